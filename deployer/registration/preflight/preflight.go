// Package preflight checks, before a deploy, that a rollup and its accounts are ready (steps
// 1-2 of the program): the rollup answers on its faces; its VM, version and chain id are what
// the deploy expects; the minitiad release that matches its version (the node CLI to install)
// is named for this OS and architecture; a Cosmos node indexes txs; the L1 answers with its VIP stage; the deployer and
// operator hold enough for the estimated deploy and first push; on minievm the EVM chain id is
// the one Initia derives from the chain id; and an existing contract is there, has the
// official interface and keeps up with the L1 stage. Each finding says what to do about it.
package preflight

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	sdkmath "cosmossdk.io/math"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/bindings/nodehttp"
	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

// Status is a finding's verdict.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn" // works, but look at it
	Fail Status = "fail" // the deploy would fail or do the wrong thing
	Skip Status = "skip" // not checked: an input is missing
)

// Finding is one check's result and what to do about it.
type Finding struct {
	Check  string `json:"check"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	// Fix is what to do, in words; Inputs the inputs it asks to give or correct, Value the
	// one to give when the check knows it (the VM the rollup runs), and Then the operation
	// to run. A front end names them with its own flags and commands.
	Fix    string  `json:"fix,omitempty"`
	Inputs []Input `json:"inputs,omitempty"`
	Value  string  `json:"value,omitempty"`
	Then   Action  `json:"then,omitempty"`
}

// Input is an input of the checks, by what it holds.
type Input string

const (
	InCometRPC Input = "comet_rpc" // Config.CometRPC
	InREST     Input = "rest"      // Config.REST
	InJSONRPC  Input = "json_rpc"  // Config.JSONRPC
	InVM       Input = "vm"        // Config.VM
	InL1       Input = "l1"        // Config.L1: the L1's REST and VIP module, or a network's
	InStage    Input = "stage"     // an explicit stage to deploy at instead of the L1's
	InContract Input = "contract"  // Config.ContractAddress
	InKeys     Input = "keys"      // the deployer's and the operator's keys (Config.Accounts)
)

// Action is an operation a Fix asks for.
type Action string

const (
	ActDeploy   Action = "deploy"   // deploy the contract
	ActFinalize Action = "finalize" // finalize the stages the L1 has moved past
)

// Report is every finding in the order checked.
type Report struct {
	Findings []Finding `json:"findings"`
	OK       bool      `json:"ok"` // no finding failed
}

// Count returns the number of findings with status s.
func (r Report) Count(s Status) int {
	n := 0
	for _, f := range r.Findings {
		if f.Status == s {
			n++
		}
	}
	return n
}

// Account is a key the deploy uses, in the chain's address form (0x for EVM, bech32 else),
// and what it pays for: the deploy, the first push, or both.
type Account struct {
	Role    string // deployer, operator
	Address string
	Deploys bool
	Pushes  bool
}

// Contract reads an existing scoring contract.
type Contract interface {
	// Exists reports whether code or a module is at the address.
	Exists(ctx context.Context) (bool, error)
	// Interface returns the official functions the contract lacks (nil: it has them all).
	Interface(ctx context.Context) ([]string, error)
	// OpenStage is the stage that accepts score updates now.
	OpenStage(ctx context.Context) (uint64, error)
}

// Config is what to check.
type Config struct {
	// VM is the VM the deploy targets; "" accepts the one the rollup names.
	VM vip.VM
	// The rollup's faces: CometBFT RPC, Cosmos REST, EVM JSON-RPC ("" where it has none).
	CometRPC, REST, JSONRPC string
	// L1 reads the VIP stage; nil skips the L1 checks.
	L1 *l1node.Reader
	// Accounts to check balances of.
	Accounts []Account
	// EVMCreationCode is the contract's creation code with its constructor arguments, which
	// the node estimates the EVM deploy's gas for (default: ours at stage 1).
	EVMCreationCode []byte
	// FirstPush is the number of addresses the first score push is estimated for.
	FirstPush int
	// ContractAddress and Contract check an existing contract; nil skips.
	ContractAddress string
	Contract        Contract
	// GOOS and GOARCH name the release asset to download (Go's names).
	GOOS, GOARCH string
	Client       *probe.Client
}

// Run performs every check.
func Run(ctx context.Context, cfg Config) Report {
	r := &run{cfg: cfg, c: cfg.Client}
	if r.c == nil {
		r.c = &probe.Client{}
	}
	r.c.REST, r.c.JSONRPC = cfg.REST, cfg.JSONRPC
	r.rollup(ctx)
	r.txIndex(ctx)
	r.l1(ctx)
	r.balances(ctx)
	r.contract(ctx)
	rep := Report{Findings: r.findings, OK: true}
	for _, f := range r.findings {
		if f.Status == Fail {
			rep.OK = false
		}
	}
	return rep
}

type run struct {
	cfg      Config
	c        *probe.Client
	findings []Finding

	vm       vip.VM
	spec     vip.Spec // the VM's, zero while the VM is unknown
	chainID  string
	minitia  string
	l1Stage  uint64
	gasPrice sdkDecOrWei
}

// sdkDecOrWei is the chain's gas price: a Cosmos fee denom's minimum, or EVM wei.
type sdkDecOrWei struct {
	denom string
	dec   sdkmath.LegacyDec
	wei   *big.Int
}

func (r *run) add(check string, s Status, detail, fix string, inputs ...Input) {
	r.findings = append(r.findings, Finding{Check: check, Status: s, Detail: detail, Fix: fix, Inputs: inputs})
}

// last is the finding added last, to add its Value or Then.
func (r *run) last() *Finding { return &r.findings[len(r.findings)-1] }

func (r *run) rollup(ctx context.Context) {
	cfg := r.cfg
	if cfg.CometRPC == "" && cfg.REST == "" && cfg.JSONRPC == "" {
		r.add("rollup", Fail, "no rollup endpoint given: nothing to check",
			"give the rollup's CometBFT RPC and REST, and its JSON-RPC on EVM", InCometRPC, InREST, InJSONRPC)
		return
	}
	// abci_info: reachable, an Initia rollup, its version.
	var version string
	if cfg.CometRPC == "" {
		r.add("rollup rpc", Skip, "no CometBFT RPC given", "give the rollup's CometBFT RPC, port 26657 on minitiad", InCometRPC)
	} else if v, err := cosmosnode.New("", cfg.CometRPC, nil).ABCIInfo(ctx); err != nil {
		r.add("rollup rpc", Fail, err.Error(), "start the rollup's node, or fix its CometBFT RPC URL", InCometRPC)
	} else {
		version = v.Version
		r.add("rollup rpc", OK, fmt.Sprintf("abci_info at height %d", v.LastBlockHeight), "")
		if v.App != "minitia" {
			r.add("initia rollup", Warn, fmt.Sprintf("abci_info data is %q, an Initia rollup answers \"minitia\"", v.App),
				"point the CometBFT RPC at the rollup's minitiad node; a stand-in chain cannot be registered", InCometRPC)
		} else {
			r.add("initia rollup", OK, "abci_info data is minitia", "")
		}
	}
	// node_info: the VM, the version, the chain id.
	var ni cosmosnode.NodeInfo
	if cfg.REST == "" {
		s := Skip
		if spec, err := vip.Describe(cfg.VM); err == nil && spec.Cosmos {
			s = Fail
		}
		r.add("rollup rest", s, "no REST endpoint given", "give the rollup's REST API, port 1317 on minitiad", InREST)
	} else if info, err := r.c.NodeInfo(ctx); err != nil {
		r.add("rollup rest", Fail, err.Error(), "start the rollup's REST API (api.enable in app.toml), or fix its URL", InREST)
	} else {
		ni = info
		r.chainID = ni.Network
		r.add("rollup rest", OK, fmt.Sprintf("node_info: %s %s (%s)", ni.Name, ni.Version, ni.AppName), "")
		if version == "" {
			version = ni.Version
		}
	}
	r.setVM(cfg.VM)
	r.minitia = ni.Name
	if ni.Name != "" {
		vm, ok := vip.ByNodeName(ni.Name)
		switch {
		case !ok:
			r.add("vm", Warn, fmt.Sprintf("node_info names %q, not minievm, minimove or miniwasm", ni.Name), "say which VM's contract to deploy", InVM)
		case cfg.VM != "" && vm != cfg.VM:
			r.add("vm", Fail, fmt.Sprintf("the rollup is %s (%s), the deploy targets %s", ni.Name, vm, cfg.VM), "target the rollup's VM", InVM)
			r.last().Value = string(vm)
		default:
			r.setVM(vm)
			r.add("vm", OK, fmt.Sprintf("%s (%s)", ni.Name, vm), "")
		}
	} else if cfg.VM != "" {
		r.add("vm", Warn, fmt.Sprintf("the rollup does not name its VM; taking the VM given, %s", cfg.VM), "give the rollup's REST so node_info can confirm the VM", InREST)
	}
	r.release(version)
	r.chainIDs(ctx)
	r.evm(ctx)
}

// release names the minitiad release that matches the rollup's version.
// txIndex checks that the node indexes txs: a Cosmos push confirms each chunk by its tx hash
// (and finds in the blocks only the few a stopped node failed to index), so a node started
// with indexer = "null" would leave every chunk unconfirmed.
func (r *run) txIndex(ctx context.Context) {
	if r.cfg.CometRPC == "" || !r.spec.Cosmos {
		return
	}
	var reply struct {
		Error *struct {
			Data string `json:"data"`
		} `json:"error"`
	}
	err := cosmosnode.New("", r.cfg.CometRPC, r.c.HTTP).RPC.GetJSON(ctx, "/tx?hash=0x"+strings.Repeat("00", 32), &reply)
	var he *nodehttp.Error
	var text string
	switch {
	case errors.As(err, &he):
		text = he.Message
	case err != nil:
		r.add("tx index", Warn, err.Error(), "check the CometBFT RPC URL", InCometRPC)
		return
	case reply.Error != nil:
		text = reply.Error.Data
	}
	switch {
	case strings.Contains(text, "indexing is disabled"):
		r.add("tx index", Fail, "the node does not index txs: a push could not confirm its chunks by hash",
			`set indexer = "kv" under [tx_index] in the node's config.toml and restart it`)
	case strings.Contains(text, "not found"):
		r.add("tx index", OK, "the node looks txs up by hash", "")
	default:
		r.add("tx index", Warn, fmt.Sprintf("the node's tx lookup answered unexpectedly: %.200s", text), "check that the CometBFT RPC URL is the rollup's", InCometRPC)
	}
}

func (r *run) release(version string) {
	if version == "" {
		return
	}
	minitia := r.minitia
	if minitia == "" {
		minitia = r.spec.Minitia
	}
	rel, err := probe.ReleaseFor(minitia, version, r.cfg.GOOS, r.cfg.GOARCH)
	var nr *probe.ErrNotRelease
	switch {
	case errors.As(err, &nr) && rel.Tag != "":
		r.add("version", Warn, fmt.Sprintf("%s; the nearest release is %s (%s)", err, rel.Tag, rel.Asset),
			fmt.Sprintf("use a minitiad built from the rollup's own commit, or %s from %s if it matches", rel.Tag, rel.URL))
	case errors.As(err, &nr):
		r.add("version", Warn, err.Error(), "ask the rollup's operators which minitiad build it runs")
	case err != nil:
		r.add("version", Warn, fmt.Sprintf("version %s: %v", version, err), "build minitiad from the rollup's tag yourself")
	default:
		r.add("version", OK, fmt.Sprintf("%s %s: release asset %s", minitia, rel.Tag, rel.Asset),
			fmt.Sprintf("install the matching node CLI: %s", rel.URL))
	}
}

// chainIDs compares the chain id the RPC and the REST report.
func (r *run) chainIDs(ctx context.Context) {
	if r.cfg.CometRPC == "" {
		return
	}
	network, err := r.c.CometNetwork(ctx, r.cfg.CometRPC)
	if err != nil {
		return // the rpc finding already says the RPC is unreachable
	}
	switch {
	case r.chainID == "":
		r.chainID = network
		r.add("chain id", OK, network, "")
	case network != r.chainID:
		r.add("chain id", Fail, fmt.Sprintf("the RPC reports %q, the REST %q: two different chains", network, r.chainID),
			"point the CometBFT RPC and the REST at the same rollup", InCometRPC, InREST)
	default:
		r.add("chain id", OK, network, "")
	}
}

// evm checks the JSON-RPC face and, on minievm, Initia's EVM chain id derivation.
func (r *run) evm(ctx context.Context) {
	if r.vm == "" || r.spec.Cosmos {
		return
	}
	if r.cfg.JSONRPC == "" {
		r.add("evm json-rpc", Fail, "no JSON-RPC endpoint given", "give the rollup's EVM JSON-RPC, port 8545 on minievm", InJSONRPC)
		return
	}
	id, err := r.c.EVMChainID(ctx)
	if err != nil {
		r.add("evm json-rpc", Fail, err.Error(), "enable the JSON-RPC (json-rpc.enable in app.toml), or fix its URL", InJSONRPC)
		return
	}
	r.add("evm json-rpc", OK, fmt.Sprintf("eth_chainId %d", id), "")
	if r.chainID == "" {
		return
	}
	want := probe.DeriveEVMChainID(r.chainID)
	switch {
	case id == want:
		r.add("evm chain id", OK, fmt.Sprintf("%d is derived from chain id %q", id, r.chainID), "")
	case vip.ServesJSONRPC(r.minitia):
		r.add("evm chain id", Fail, fmt.Sprintf("eth_chainId %d, but Initia derives %d from chain id %q", id, want, r.chainID),
			"the JSON-RPC and the REST are different chains, or the node is misconfigured: fix the JSON-RPC URL or the node", InJSONRPC)
	default:
		r.add("evm chain id", Warn, fmt.Sprintf("eth_chainId %d is not %d, which minievm derives from %q (this node is not a minievm)", id, want, r.chainID),
			"registry entries of minievm rollups must carry the derived id")
	}
}

func (r *run) l1(ctx context.Context) {
	if r.cfg.L1 == nil {
		r.add("l1 stage", Skip, "no L1 given", "give the L1 (a network, or its REST and VIP module) to deploy at the L1's stage", InL1)
		return
	}
	st, err := r.cfg.L1.Stage(ctx)
	if err != nil {
		r.add("l1 stage", Fail, err.Error(), "check the L1's settings, or deploy at a stage given explicitly", InL1, InStage)
		return
	}
	r.l1Stage = st
	r.add("l1 stage", OK, fmt.Sprintf("the L1's VIP stage is %d: a deploy now starts the contract at stage %d", st, st), "")
}

// Estimated gas of a deploy and of one new address in a score push, per VM: the EVM deploy
// is estimated by the node; the rest are this project's measurements (BENCHMARKS.md: Move
// publish 319,502 and 4,492 per address; Wasm store+instantiate 850,799 and 7,335 per
// address on wasmd; EVM 9,843 per new address on a minievm), with 20% headroom.
const headroom = 120 // percent

// DeployGas and PushGas are the estimates the balances are checked against.
func DeployGas(vm vip.VM) uint64 { return gas(vm).Deploy * headroom / 100 }

// PushGas is the estimated gas of pushing n new addresses.
func PushGas(vm vip.VM, n int) uint64 {
	e := gas(vm)
	return (e.Fixed + e.PerAddress*uint64(n)) * headroom / 100
}

func (r *run) balances(ctx context.Context) {
	if len(r.cfg.Accounts) == 0 {
		r.add("balances", Skip, "no deployer or operator key in the environment", "give the deployer's and the operator's keys to check their balances", InKeys)
		return
	}
	if r.vm == "" {
		r.add("balances", Skip, "the VM is unknown", "say which VM", InVM)
		return
	}
	if !r.priceKnown(ctx) {
		return
	}
	for _, a := range r.cfg.Accounts {
		check := "balance " + a.Role
		var gas uint64
		if a.Deploys {
			g, err := r.deployGas(ctx, a.Address)
			if err != nil {
				r.add(check, Warn, fmt.Sprintf("estimate the deploy: %v", err), "the balance check below covers the first push only")
			}
			gas += g
		}
		if a.Pushes {
			gas += PushGas(r.vm, r.cfg.FirstPush)
		}
		need, have, unit, err := r.need(ctx, a.Address, gas)
		if err != nil {
			r.add(check, Fail, fmt.Sprintf("%s: %v", a.Address, err), "check the address and the rollup's REST/JSON-RPC")
			continue
		}
		detail := fmt.Sprintf("%s holds %s %s; the estimate needs %s %s (%d gas)", a.Address, have, unit, need, unit, gas)
		if have.Cmp(need) < 0 {
			r.add(check, Fail, detail, fmt.Sprintf("send at least %s %s to %s", new(big.Int).Sub(need, have), unit, a.Address))
		} else {
			r.add(check, OK, detail, "")
		}
	}
}

// priceKnown reads the gas price once.
func (r *run) priceKnown(ctx context.Context) bool {
	if !r.spec.Cosmos {
		wei, err := r.c.EVMGasPrice(ctx)
		if err != nil {
			r.add("gas price", Fail, err.Error(), "fix the JSON-RPC URL", InJSONRPC)
			return false
		}
		r.gasPrice.wei = wei
		if wei.Sign() == 0 {
			r.add("gas price", Warn, "the node's gas price (eth_gasPrice) is 0: txs pay no fee, and the registry entry needs a minimum gas price",
				"set a minimum gas price (app.toml minimum-gas-prices and opchild's min_gas_prices; on minievm a whole number of the fee denom's units)")
		}
		return true
	}
	prices, err := r.c.MinGasPrices(ctx)
	if err != nil {
		r.add("gas price", Fail, fmt.Sprintf("read the minimum gas price: %v", err), "fix the REST URL", InREST)
		return false
	}
	if len(prices) == 0 || prices[0].Amount.IsZero() {
		// minitiad init writes zero to both places: the rollup runs, with free txs.
		r.add("gas price", Warn, "the rollup's minimum gas price is 0 (opchild's min_gas_prices is empty or zero): txs pay no fee, and the registry entry needs a minimum gas price",
			"set one in app.toml minimum-gas-prices and opchild's min_gas_prices")
		if len(prices) > 0 {
			r.gasPrice.denom = prices[0].Denom
		}
		r.gasPrice.dec = sdkmath.LegacyZeroDec()
		return true
	}
	r.gasPrice.denom, r.gasPrice.dec = prices[0].Denom, prices[0].Amount
	return true
}

// deployGas is the deploy's estimated gas: the node's eth_estimateGas of the creation code
// on EVM, the measured figure else.
func (r *run) deployGas(ctx context.Context, from string) (uint64, error) {
	if r.spec.Cosmos {
		return DeployGas(r.vm), nil
	}
	code := r.cfg.EVMCreationCode
	if len(code) == 0 {
		var err error
		if code, err = EVMCreationCode(1); err != nil {
			return 0, err
		}
	}
	g, err := r.c.EVMEstimateGas(ctx, from, "", code)
	return g * headroom / 100, err
}

// need is what an address must hold for gas and what it holds, in the fee unit.
func (r *run) need(ctx context.Context, address string, gas uint64) (need, have *big.Int, unit string, err error) {
	if !r.spec.Cosmos {
		have, err := r.c.EVMBalance(ctx, address)
		if err != nil {
			return nil, nil, "", err
		}
		return new(big.Int).Mul(new(big.Int).SetUint64(gas), r.gasPrice.wei), have, "wei", nil
	}
	if r.gasPrice.denom == "" { // a rollup with no minimum gas price: no fee to hold
		return new(big.Int), new(big.Int), "of the fee denom (none set)", nil
	}
	bal, err := r.c.Balance(ctx, address, r.gasPrice.denom)
	if err != nil {
		return nil, nil, "", err
	}
	fee := r.gasPrice.dec.MulInt64(int64(gas)).Ceil().TruncateInt()
	return fee.BigInt(), bal.Amount.BigInt(), r.gasPrice.denom, nil
}

func (r *run) contract(ctx context.Context) {
	if r.cfg.ContractAddress == "" {
		r.add("contract", Skip, "no contract given", "give the contract after a deploy to check it against the L1 stage", InContract)
		return
	}
	if r.cfg.Contract == nil {
		r.add("contract", Skip, "the contract cannot be read without the rollup's endpoints", "give the rollup's endpoints", InCometRPC, InREST, InJSONRPC)
		return
	}
	c := r.cfg.Contract
	addr := r.cfg.ContractAddress
	ok, err := c.Exists(ctx)
	switch {
	case err != nil:
		r.add("contract", Fail, fmt.Sprintf("%s: %v", addr, err), "check the contract address and the rollup's endpoints", InContract)
		return
	case !ok:
		r.add("contract", Fail, fmt.Sprintf("nothing is deployed at %s", addr), "deploy first, or fix the contract address", InContract)
		r.last().Then = ActDeploy
		return
	}
	r.add("contract", OK, fmt.Sprintf("deployed at %s", addr), "")
	missing, err := c.Interface(ctx)
	switch {
	case err != nil:
		r.add("contract interface", Fail, err.Error(), "check the contract address", InContract)
	case len(missing) > 0:
		r.add("contract interface", Fail, fmt.Sprintf("%s lacks the official %s", addr, strings.Join(missing, ", ")),
			"deploy a contract with the official interface (ours has it): the VIP agent reads these")
		r.last().Then = ActDeploy
	default:
		r.add("contract interface", OK, fmt.Sprintf("%s has the official interface", addr), "")
	}
	open, err := c.OpenStage(ctx)
	if err != nil {
		r.add("contract stage", Fail, fmt.Sprintf("read the open stage: %v", err), "check the contract address", InContract)
		return
	}
	switch {
	case r.l1Stage == 0:
		r.add("contract stage", Warn, fmt.Sprintf("the contract's open stage is %d; the L1 stage is unknown", open), "give the L1 to compare it with", InL1)
	case open == r.l1Stage:
		r.add("contract stage", OK, fmt.Sprintf("the contract's open stage %d is the L1's", open), "")
	case open < r.l1Stage:
		r.add("contract stage", Fail, fmt.Sprintf("the contract's open stage %d is behind the L1's %d", open, r.l1Stage),
			fmt.Sprintf("finalize stages %d..%d", open, r.l1Stage-1))
		r.last().Then = ActFinalize
	default:
		r.add("contract stage", Warn, fmt.Sprintf("the contract's open stage %d is ahead of the L1's %d", open, r.l1Stage),
			"scores pushed now count for a stage the L1 has not reached; check the L1's settings", InL1)
	}
}

// gas is the VM's measured estimate (zero for an unknown VM).
func gas(vm vip.VM) vip.GasEstimate {
	spec, _ := vip.Describe(vm)
	return spec.Gas
}

// setVM makes vm the VM the checks run for ("" while unknown).
func (r *run) setVM(vm vip.VM) {
	r.vm = vm
	r.spec, _ = vip.Describe(vm)
}
