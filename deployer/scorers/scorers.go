// Package scorers opens the Scorer of a rollup's VM from one Config. The choices that differ
// per VM (which client to dial, which endpoints it needs, which key type signs, how a
// contract address is written) are made here once, for vipctl, its demo and the e2e
// harness alike; callers then hold a Scorer and never switch on the VM.
package scorers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	sdk "github.com/cosmos/cosmos-sdk/types"

	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/evm"
	"github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/deployer/vm/wasm"
)

// Config is what opening a Scorer takes. It holds secrets: it prints them as [secret].
type Config struct {
	VM deployer.VM
	// JSONRPC is an EVM rollup's JSON-RPC URL; CometRPC and REST are a Move or Wasm
	// rollup's CometBFT RPC and Cosmos REST URLs.
	JSONRPC, CometRPC, REST string
	// Operator signs updates and finalizations, Deployer the deployment (default: the
	// operator): 32-byte secp256k1 secrets; either may be nil for read-only use.
	Operator, Deployer Secret
	// OperatorSigner and DeployerSigner sign instead of the secrets: a keyring or keystore
	// key, a Ledger (see deployer/keys). The deployer defaults to the operator.
	OperatorSigner, DeployerSigner keys.Signer
	// KeyType is the Cosmos key kind of the secrets; "" is the VM's (DefaultKeyType).
	KeyType keys.KeyType
	// Contract attaches to a deployed contract. When it is "" and ContractFor is set, the
	// contract is looked up by the chain id the node reports (one dial, no second).
	Contract    string
	ContractFor func(chainID string) (string, error)
	// Code deploys other contract code than the committed artifact (EVM creation code,
	// Wasm code, a Move module built for the deployer).
	Code []byte
	// GasPrice overrides a Cosmos node's minimum gas price.
	GasPrice *sdk.DecCoin
	// MoveCompiler builds vip_score for a Move deployer other than the development one;
	// the other VMs ignore it, so callers set it whatever the VM.
	MoveCompiler movecontract.Compiler
	// JournalDir, ChunkSize, Window, Logger and Progress are the push's knobs; zero values
	// keep each deployer's default.
	JournalDir string
	ChunkSize  int
	Window     int
	Logger     *slog.Logger
	Progress   func(done, total int)

	spec deployer.Spec // set by Open
}

// Secret is a private key's bytes; it never prints.
type Secret []byte

func (Secret) String() string               { return "[secret]" }
func (Secret) GoString() string             { return "[secret]" }
func (Secret) LogValue() slog.Value         { return slog.StringValue("[secret]") }
func (Secret) MarshalText() ([]byte, error) { return []byte("[secret]"), nil }

// vms are the VMs this build knows: each one's Spec and how its Scorer opens.
var vms = map[deployer.VM]struct {
	spec deployer.Spec
	open func(context.Context, Config, []deployer.Option) (*deployer.Scorer, error)
}{
	deployer.EVM:  {evm.Spec, openEVM},
	deployer.Move: {move.Spec, openMove},
	deployer.Wasm: {wasm.Spec, openWasm},
}

// Describe is the Spec of vm: what it means to the code around it.
func Describe(vm deployer.VM) (deployer.Spec, error) {
	v, ok := vms[vm]
	if !ok {
		return deployer.Spec{}, fmt.Errorf("unknown vm %q: want evm, move or wasm", vm)
	}
	return v.spec, nil
}

// MustDescribe is Describe of a VM known to be valid (a deployer constant, a parsed --vm).
func MustDescribe(vm deployer.VM) deployer.Spec {
	spec, err := Describe(vm)
	if err != nil {
		panic(err)
	}
	return spec
}

// ByNodeName is the VM whose nodes give name as node_info's application_version.name
// (minievm, minimove, miniwasm; wasmd's "wasm"), any case.
func ByNodeName(name string) (deployer.VM, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, vm := range deployer.VMs {
		spec := vms[vm].spec
		if name == spec.Minitia || slices.Contains(spec.NodeNames, name) {
			return vm, true
		}
	}
	return "", false
}

// DefaultKeyType is the key kind a VM's rollups use: Initia's eth_secp256k1 on EVM and
// Move, secp256k1 (coin type 118) on Wasm.
func DefaultKeyType(vm deployer.VM) keys.KeyType { return vms[vm].spec.KeyType }

// Open dials the rollup of cfg.VM and returns its Scorer, attached to the configured
// contract if any.
func Open(ctx context.Context, cfg Config) (*deployer.Scorer, error) {
	v, ok := vms[cfg.VM]
	if !ok {
		return nil, fmt.Errorf("no deployer for vm %q: want evm, move or wasm", cfg.VM)
	}
	cfg.spec = v.spec
	opts, err := options(cfg)
	if err != nil {
		return nil, err
	}
	s, err := v.open(ctx, cfg, opts)
	if err != nil {
		return nil, err
	}
	contract := cfg.Contract
	if contract == "" && cfg.ContractFor != nil {
		if contract, err = cfg.ContractFor(s.ChainID()); err != nil {
			s.Close()
			return nil, err
		}
	}
	if contract != "" {
		if err := s.Attach(contract); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

func openEVM(ctx context.Context, cfg Config, opts []deployer.Option) (*deployer.Scorer, error) {
	if cfg.JSONRPC == "" {
		return nil, errors.New("an EVM rollup needs its JSON-RPC URL")
	}
	return evm.Dial(ctx, cfg.JSONRPC, opts...)
}

func openWasm(ctx context.Context, cfg Config, opts []deployer.Option) (*deployer.Scorer, error) {
	if err := needCosmos(cfg); err != nil {
		return nil, err
	}
	return wasm.Dial(ctx, cfg.CometRPC, cfg.REST, opts...)
}

func openMove(ctx context.Context, cfg Config, opts []deployer.Option) (*deployer.Scorer, error) {
	if err := needCosmos(cfg); err != nil {
		return nil, err
	}
	return move.Dial(ctx, cfg.CometRPC, cfg.REST, opts...)
}

func needCosmos(cfg Config) error {
	if cfg.CometRPC == "" || cfg.REST == "" {
		return fmt.Errorf("a %s rollup needs its CometBFT RPC and REST URLs", cfg.VM)
	}
	return nil
}

// options are cfg as the Scorer's settings, the same on every VM: the secrets become
// software signers of the VM's key kind (Ethereum keys on EVM) unless a signer is given.
func options(cfg Config) ([]deployer.Option, error) {
	kind := cfg.KeyType
	if kind == "" || !cfg.spec.Cosmos {
		kind = cfg.spec.KeyType
	}
	opts := []deployer.Option{
		deployer.WithJournalDir(cfg.JournalDir), deployer.WithChunkSize(cfg.ChunkSize), deployer.WithWindow(cfg.Window),
		deployer.WithLogger(cfg.Logger), deployer.WithProgress(cfg.Progress), move.WithCompiler(cfg.MoveCompiler),
	}
	for _, k := range []struct {
		secret Secret
		signer keys.Signer
		with   func(keys.Signer) deployer.Option
		role   string
	}{{cfg.Operator, cfg.OperatorSigner, deployer.WithOperator, "operator"}, {cfg.Deployer, cfg.DeployerSigner, deployer.WithDeployer, "deployer"}} {
		signer := k.signer
		if signer == nil && k.secret != nil {
			pk, err := keys.PrivKeyFromBytes(k.secret, kind)
			if err != nil {
				return nil, fmt.Errorf("%s key: %w", k.role, err)
			}
			if signer, err = keys.FromPrivKey(pk, k.role+" key"); err != nil {
				return nil, fmt.Errorf("%s key: %w", k.role, err)
			}
		}
		if signer != nil {
			opts = append(opts, k.with(signer))
		}
	}
	if cfg.Code != nil {
		opts = append(opts, deployer.WithCode(cfg.Code))
	}
	if cfg.GasPrice != nil {
		opts = append(opts, deployer.WithGasPrice(*cfg.GasPrice))
	}
	return opts, nil
}

// FundFresh readies a fresh account (secret, of key kind kind) to sign on s's rollup for
// gas: on a Cosmos rollup, where the chain simulates only for an existing account, funder
// pays it the fees of gas and the gas price it was paid at is returned; an EVM rollup's
// calls need no account, so nothing is sent there and the price is nil.
func FundFresh(ctx context.Context, s *deployer.Scorer, funder keys.Signer, secret []byte, kind keys.KeyType, gas uint64) (*sdk.DecCoin, error) {
	cs, ok := deployer.As[cosmostx.Backed](s)
	if !ok {
		return nil, nil
	}
	if funder == nil {
		return nil, errors.New("no key to fund a fresh account with")
	}
	c := cs.Client()
	key, err := keys.PrivKeyFromBytes(secret, kind)
	if err != nil {
		return nil, err
	}
	sg, err := c.SignerOf(ctx, funder)
	if err != nil {
		return nil, fmt.Errorf("funding account: %w", err)
	}
	if err := c.Fund(ctx, sg, c.Address(key.PubKey()), c.FeeFunds(gas)); err != nil {
		return nil, fmt.Errorf("fund a fresh account: %w", err)
	}
	price := c.GasPrice
	return &price, nil
}
