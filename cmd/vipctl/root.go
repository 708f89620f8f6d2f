package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/cosmostx"
	"github.com/vipharness/vipharness/deployer/evm"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/move"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/stage"
	"github.com/vipharness/vipharness/deployer/wasm"
)

// globals are the flags every command shares.
type globals struct {
	vm         string
	rpc        string
	cometRPC   string
	rest       string
	gasPrice   string
	keyType    string
	contract   string
	stateDir   string
	jsonOut    bool
	verbose    bool
	l1REST     string
	vipAddr    string
	network    string
	chunkSize  int
	window     int
	out        io.Writer
	errOut     io.Writer
	logger     *slog.Logger
	noProgress bool
	// code, when set, is the contract build to deploy instead of ours (vipctl check --artifact).
	code []byte
}

func newRoot() *cobra.Command {
	g := &globals{out: os.Stdout, errOut: os.Stderr}
	root := &cobra.Command{
		Use:           "vipctl",
		Short:         "Deploy, operate and verify the VIP scoring contract of a rollup",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			level := slog.LevelWarn
			if g.verbose {
				level = slog.LevelDebug
			}
			g.logger = slog.New(slog.NewTextHandler(g.errOut, &slog.HandlerOptions{Level: level}))
			if _, err := deployer.ParseVM(g.vm); err != nil {
				return invalid(err)
			}
			// Journals and deployments are found again on a re-run by this path: pin it now.
			dir, err := filepath.Abs(g.stateDir)
			if err != nil {
				return invalid(fmt.Errorf("--state-dir %q: %w", g.stateDir, err))
			}
			g.stateDir = dir
			return nil
		},
	}
	f := root.PersistentFlags()
	f.StringVar(&g.vm, "vm", envOr("VM", "evm"), "rollup VM: evm, move or wasm (env VM)")
	f.StringVar(&g.rpc, "rpc", os.Getenv("JSON_RPC_URL"), "rollup JSON-RPC URL (env JSON_RPC_URL)")
	f.StringVar(&g.cometRPC, "comet-rpc", os.Getenv("COMET_RPC_URL"), "rollup CometBFT RPC URL: abci_info, and Wasm txs (env COMET_RPC_URL)")
	f.StringVar(&g.rest, "rest", os.Getenv("REST_URL"), "rollup Cosmos REST URL, for Wasm (env REST_URL)")
	f.StringVar(&g.gasPrice, "gas-price", os.Getenv("GAS_PRICE"), "Wasm gas price such as 0.025stake; default: the node's minimum (env GAS_PRICE)")
	f.StringVar(&g.keyType, "key-type", envOr("KEY_TYPE", ""), "Cosmos account key: secp256k1 (coin type 118) or eth_secp256k1 (coin type 60); default secp256k1 for Wasm, eth_secp256k1 for Move (Initia's keys) (env KEY_TYPE)")
	f.StringVar(&g.contract, "contract", os.Getenv("CONTRACT_ADDRESS"), "scoring contract address; default: the one this tool deployed on this chain (env CONTRACT_ADDRESS)")
	f.StringVar(&g.stateDir, "state-dir", envOr("VIPHARNESS_DIR", ".vipharness"), "where deployments and journals are kept; relative to the working directory (env VIPHARNESS_DIR)")
	f.BoolVar(&g.jsonOut, "json", false, "print machine-readable JSON")
	f.BoolVarP(&g.verbose, "verbose", "v", false, "debug logs on stderr")
	f.StringVar(&g.network, "network", os.Getenv("NETWORK"), "L1 preset: mainnet or testnet (env NETWORK)")
	f.StringVar(&g.l1REST, "l1-rest", os.Getenv("L1_REST_URL"), "L1 REST URL for the VIP stage (env L1_REST_URL)")
	f.StringVar(&g.vipAddr, "vip-address", os.Getenv("VIP_MODULE_ADDRESS"), "address of the L1 vip module (env VIP_MODULE_ADDRESS)")
	f.IntVar(&g.chunkSize, "chunk-size", 0, "entries per tx; 0 derives it from the chain's gas limits")
	f.IntVar(&g.window, "window", 8, "chunk txs in flight at once")
	f.BoolVar(&g.noProgress, "no-progress", false, "no progress bar")

	root.AddCommand(newDeployCmd(g), newScoresCmd(g), newStageCmd(g), newVerifyCmd(g), newLocalnetCmd(g), newDemoCmd(g), newKeysCmd(g), newIndexerCmd(g), newRouterCmd(g), newSetupCmd(g))
	// Before registration: does the rollup and its contract conform.
	root.AddCommand(newCheckCmd(g))
	// Step 8, every stage: follow the L1.
	root.AddCommand(newOperateCmd(g))
	// Registration (steps 2, 6 and 7 of the program).
	root.AddCommand(newRegistryCmd(g), newWhitelistCmd(g))
	root.AddCommand(newMoveBuildCmd())
	return root
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// printResult writes v as JSON with --json, else the human text.
func (g *globals) printResult(v any, human string) error {
	if g.jsonOut {
		enc := json.NewEncoder(g.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(g.out, human)
	return err
}

// l1Reader resolves the L1 source from flags, env and presets.
func (g *globals) l1Reader() (*stage.Reader, error) {
	rest, addr := g.l1REST, g.vipAddr
	if g.network != "" {
		p, err := stage.Preset(g.network)
		if err != nil {
			return nil, invalid(err)
		}
		if rest == "" {
			rest = p.REST
		}
		if addr == "" {
			addr = p.VIPAddress
		}
	}
	if rest == "" || addr == "" {
		return nil, invalid(errors.New("no L1 to read the stage from: pass --stage (or INIT_STAGE), or --l1-rest and --vip-address, or --network"))
	}
	return stage.NewReader(rest, addr), nil
}

// resolveStage is the explicit stage, else the L1's current stage.
func (g *globals) resolveStage(ctx context.Context, explicit uint64) (uint64, error) {
	if explicit != 0 {
		return explicit, nil
	}
	if v := os.Getenv("INIT_STAGE"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			return 0, invalid(fmt.Errorf("INIT_STAGE %q is not a stage number >= 1", v))
		}
		return n, nil
	}
	r, err := g.l1Reader()
	if err != nil {
		return 0, err
	}
	st, err := r.Stage(ctx)
	if err != nil {
		return 0, fmt.Errorf("read L1 stage: %w", err)
	}
	return st, nil
}

// deployment is what the state file remembers per chain.
type deployment struct {
	deployer.Deployment
	Time time.Time `json:"time"`
}

func (g *globals) statePath(vm deployer.VM, chainID string) string {
	return filepath.Join(g.stateDir, "deployments", fmt.Sprintf("%s-%s.json", vm, chainID))
}

func (g *globals) saveDeployment(d deployer.Deployment) error {
	path := g.statePath(d.VM, d.ChainID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save deployment: %w", err)
	}
	b, _ := json.MarshalIndent(deployment{Deployment: d, Time: time.Now().UTC()}, "", "  ")
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func (g *globals) loadDeployment(vm deployer.VM, chainID string) (string, error) {
	b, err := os.ReadFile(g.statePath(vm, chainID))
	if errors.Is(err, os.ErrNotExist) {
		return "", invalid(fmt.Errorf("no contract: pass --contract (or CONTRACT_ADDRESS), or deploy on chain %s first", chainID))
	}
	if err != nil {
		return "", err
	}
	var d deployment
	if err := json.Unmarshal(b, &d); err != nil {
		return "", fmt.Errorf("read deployment state %s: %w", g.statePath(vm, chainID), err)
	}
	return d.Contract, nil
}

// scorer opens the Scorer for --vm, with keys from the environment, attached to the
// contract (--contract, or the one this tool deployed on the chain) when needContract.
func (g *globals) scorer(ctx context.Context, needContract bool, progress func(done, total int)) (deployer.Scorer, func(), error) {
	vm, _ := deployer.ParseVM(g.vm)
	if progress == nil {
		progress = func(int, int) {}
	}
	switch vm {
	case deployer.EVM:
		return g.evmScorer(ctx, needContract, progress)
	case deployer.Wasm:
		return g.wasmScorer(ctx, needContract, progress)
	case deployer.Move:
		return g.moveScorer(ctx, needContract, progress)
	}
	return nil, nil, invalid(fmt.Errorf("--vm %q: want evm, move or wasm", g.vm))
}

// roleKeys reads the deployer and operator keys (either may be absent), deriving mnemonic
// keys on path.
func roleKeys(opts ...keys.EnvOption) (dep, op *keys.Account, err error) {
	if op, err = keys.FromEnv(keys.Operator, opts...); err != nil && !errors.Is(err, keys.ErrNoKey) {
		return nil, nil, invalid(err)
	}
	if dep, err = keys.FromEnv(keys.Deployer, opts...); err != nil && !errors.Is(err, keys.ErrNoKey) {
		return nil, nil, invalid(err)
	}
	return dep, op, nil
}

func (g *globals) evmScorer(ctx context.Context, needContract bool, progress func(done, total int)) (deployer.Scorer, func(), error) {
	if g.rpc == "" {
		return nil, nil, invalid(errors.New("no rollup RPC: pass --rpc or set JSON_RPC_URL"))
	}
	opts := []evm.Option{evm.WithJournalDir(filepath.Join(g.stateDir, "journal")), evm.WithLogger(g.logger),
		evm.WithChunkSize(g.chunkSize), evm.WithWindow(g.window), evm.WithProgress(progress)}
	dep, op, err := roleKeys()
	if err != nil {
		return nil, nil, err
	}
	if op != nil {
		opts = append(opts, evm.WithOperatorKey(op.PrivateKey()))
	}
	if g.code != nil {
		opts = append(opts, evm.WithCreationCode(g.code))
	}
	if dep != nil {
		opts = append(opts, evm.WithDeployerKey(dep.PrivateKey()))
	}
	if needContract {
		addr := g.contract
		if addr == "" {
			chainID, err := evmChainID(ctx, g.rpc)
			if err != nil {
				return nil, nil, err
			}
			if addr, err = g.loadDeployment(deployer.EVM, chainID); err != nil {
				return nil, nil, err
			}
		}
		if !common.IsHexAddress(addr) {
			return nil, nil, invalid(fmt.Errorf("contract address %q is not a 0x address", addr))
		}
		opts = append(opts, evm.WithContract(common.HexToAddress(addr)))
	}
	s, err := evm.Dial(ctx, g.rpc, opts...)
	if err != nil {
		return nil, nil, err
	}
	return s, s.Close, nil
}

func evmChainID(ctx context.Context, rpcURL string) (string, error) {
	c, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return "", fmt.Errorf("dial evm rpc %s: %w", rpcURL, err)
	}
	defer c.Close()
	id, err := c.ChainID(ctx)
	if err != nil {
		return "", fmt.Errorf("read chain id from %s: %w", rpcURL, err)
	}
	return id.String(), nil
}

// cosmosKeys reads the gas price and the deployer and operator keys of a Cosmos rollup (Wasm
// or Move), whose key type defaults to def.
func (g *globals) cosmosKeys(vm deployer.VM, def keys.KeyType) (gasPrice *sdk.DecCoin, dep, op cryptotypes.PrivKey, err error) {
	if g.cometRPC == "" || g.rest == "" {
		return nil, nil, nil, invalid(fmt.Errorf("a %s rollup needs its CometBFT RPC and REST URLs: pass --comet-rpc and --rest (or set COMET_RPC_URL and REST_URL)", vm))
	}
	keyType := def
	if g.keyType != "" {
		if keyType, err = parseKeyType(g.keyType); err != nil {
			return nil, nil, nil, invalid(err)
		}
	}
	path := keys.CosmosPath
	if keyType == keys.EthSecp256k1 {
		path = keys.EVMPath
	}
	if g.gasPrice != "" {
		p, err := cosmostx.ParseGasPrice(g.gasPrice)
		if err != nil {
			return nil, nil, nil, invalid(err)
		}
		gasPrice = &p
	}
	depAcct, opAcct, err := roleKeys(keys.WithPath(path))
	if err != nil {
		return nil, nil, nil, err
	}
	priv := func(a *keys.Account) (cryptotypes.PrivKey, error) {
		if a == nil {
			return nil, nil
		}
		pk, err := keys.PrivKeyFromBytes(a.Secret(), keyType)
		if err != nil {
			return nil, invalid(err)
		}
		return pk, nil
	}
	if dep, err = priv(depAcct); err != nil {
		return nil, nil, nil, err
	}
	if op, err = priv(opAcct); err != nil {
		return nil, nil, nil, err
	}
	return gasPrice, dep, op, nil
}

func (g *globals) wasmScorer(ctx context.Context, needContract bool, progress func(done, total int)) (deployer.Scorer, func(), error) {
	gasPrice, dep, op, err := g.cosmosKeys(deployer.Wasm, keys.Secp256k1)
	if err != nil {
		return nil, nil, err
	}
	opts := []wasm.Option{wasm.WithJournalDir(filepath.Join(g.stateDir, "journal")), wasm.WithLogger(g.logger),
		wasm.WithChunkSize(g.chunkSize), wasm.WithWindow(g.window), wasm.WithProgress(progress)}
	if gasPrice != nil {
		opts = append(opts, wasm.WithGasPrice(*gasPrice))
	}
	if op != nil {
		opts = append(opts, wasm.WithOperatorKey(op))
	}
	if g.code != nil {
		opts = append(opts, wasm.WithCode(g.code))
	}
	if dep != nil {
		opts = append(opts, wasm.WithDeployerKey(dep))
	}
	s, err := wasm.Dial(ctx, g.cometRPC, g.rest, opts...)
	if err != nil {
		return nil, nil, err
	}
	if needContract {
		addr := g.contract
		if addr == "" {
			if addr, err = g.loadDeployment(deployer.Wasm, s.ChainID()); err != nil {
				return nil, nil, err
			}
		}
		if s, err = wasm.Dial(ctx, g.cometRPC, g.rest, append(opts, wasm.WithContract(addr))...); err != nil {
			if strings.HasPrefix(err.Error(), "contract:") {
				return nil, nil, invalid(err)
			}
			return nil, nil, err
		}
	}
	return s, s.Close, nil
}

func (g *globals) moveScorer(ctx context.Context, needContract bool, progress func(done, total int)) (deployer.Scorer, func(), error) {
	gasPrice, dep, op, err := g.cosmosKeys(deployer.Move, keys.EthSecp256k1)
	if err != nil {
		return nil, nil, err
	}
	opts := []move.Option{move.WithJournalDir(filepath.Join(g.stateDir, "journal")), move.WithLogger(g.logger),
		move.WithChunkSize(g.chunkSize), move.WithWindow(g.window), move.WithProgress(progress)}
	if gasPrice != nil {
		opts = append(opts, move.WithGasPrice(*gasPrice))
	}
	if op != nil {
		opts = append(opts, move.WithOperatorKey(op))
	}
	if g.code != nil {
		opts = append(opts, move.WithModule(g.code))
	}
	if dep != nil {
		opts = append(opts, move.WithDeployerKey(dep))
	}
	comp, err := moveCompiler()
	if err != nil {
		return nil, nil, err
	}
	opts = append(opts, move.WithCompiler(comp))
	s, err := move.Dial(ctx, g.cometRPC, g.rest, opts...)
	if err != nil {
		return nil, nil, err
	}
	if needContract {
		addr := g.contract
		if addr == "" {
			if addr, err = g.loadDeployment(deployer.Move, s.ChainID()); err != nil {
				return nil, nil, err
			}
		}
		if s, err = move.Dial(ctx, g.cometRPC, g.rest, append(opts, move.WithModuleAddress(addr))...); err != nil {
			if strings.HasPrefix(err.Error(), "module address") {
				return nil, nil, invalid(err)
			}
			return nil, nil, err
		}
	}
	return s, s.Close, nil
}

func parseKeyType(s string) (keys.KeyType, error) {
	switch k := keys.KeyType(strings.ToLower(strings.TrimSpace(s))); k {
	case keys.Secp256k1, keys.EthSecp256k1:
		return k, nil
	}
	return "", fmt.Errorf("--key-type %q: want secp256k1 (coin type 118) or eth_secp256k1 (coin type 60)", s)
}

// classify maps errors to exit codes.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	var re *evm.RevertError
	var ce *push.ChunkError
	var we *wasm.ContractError
	var me *move.AbortError
	if errors.As(err, &re) || errors.As(err, &ce) || errors.As(err, &we) || errors.As(err, &me) {
		return reverted(err)
	}
	return err
}
