package embedded

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/feeroutes"
	"github.com/vipharness/vipharness/localnet/minitia"
)

// DefaultWasmChainID is the chain id of the embedded Wasm rollup.
const DefaultWasmChainID = "vip-wasm-1"

// CosmosOption changes an embedded Cosmos rollup's minitia settings (chain id, fees, funded
// mnemonics, block gas and time, ...) before it starts.
type CosmosOption func(*minitia.Config)

// WasmOption and MoveOption configure StartWasm and StartMove.
type (
	WasmOption = CosmosOption
	MoveOption = CosmosOption
)

// WithMaxBlockGas sets the rollup's block gas limit.
func WithMaxBlockGas(gas int64) CosmosOption {
	return func(c *minitia.Config) { c.MaxBlockGas = gas }
}

// WithBlockTime sets the interval between blocks.
func WithBlockTime(d time.Duration) CosmosOption {
	return func(c *minitia.Config) { c.BlockTime = d }
}

// WithCosmosDataDir keeps the chain in dir: its stores on disk, its genesis, validator key and
// dev mnemonics (0600). A dir that holds a chain resumes it (the same chain id, accounts and
// contract state; new ports).
func WithCosmosDataDir(dir string) CosmosOption {
	return func(c *minitia.Config) { c.Home, c.Persist = dir, true }
}

// WithBridge registers the rollup under an OPinit bridge of its L1, as the L1 stand-in's
// registration leaves a minitia: opchild's bridge_info from genesis, the first mnemonic's
// account as the bridge executor and admin.
func WithBridge(b feeroutes.Bridge) CosmosOption {
	return func(c *minitia.Config) { c.Bridge = &b }
}

// WithNoGeneratedAccounts funds only the given mnemonics (none: no account).
func WithNoGeneratedAccounts() CosmosOption {
	return func(c *minitia.Config) { c.GeneratedAccounts = -1 }
}

// StartWasm starts an embedded Wasm rollup: the project's minitia application with wasmd's
// x/wasm under an in-process CometBFT. By default it has chain id DefaultWasmChainID, bech32
// prefix "init", fee denom "umin" at a minimum gas price of 0.15, and two fresh mnemonics whose
// first secp256k1 (coin type 118, what wasmd tools derive) and eth_secp256k1 (coin type 60,
// Initia.js MnemonicKey()'s default) accounts are both funded.
func StartWasm(ctx context.Context, opts ...WasmOption) (*WasmRollup, error) {
	return StartCosmos(ctx, vip.Wasm, opts...)
}

// cosmosDefaults are each Cosmos VM's embedded rollup settings: its chain id, the key kind
// its funded accounts are reported in (the VM's tools' default), and the version abci_info
// reports.
var cosmosDefaults = map[vip.VM]minitia.Config{
	vip.Wasm: {VM: vip.Wasm, ChainID: DefaultWasmChainID, KeyType: vip.Secp256k1, Version: "v0.0.0-vipharness+wasmvm.v3.0.7"},
	vip.Move: {VM: vip.Move, ChainID: DefaultMoveChainID, KeyType: vip.EthSecp256k1, Version: "v0.0.0-vipharness+movevm.v1.1.2"},
}

// StartCosmos starts the embedded rollup of a Cosmos VM (Wasm or Move) with its defaults,
// changed by opts.
func StartCosmos(ctx context.Context, vm vip.VM, opts ...CosmosOption) (*CosmosRollup, error) {
	cfg, ok := cosmosDefaults[vm]
	if !ok {
		return nil, fmt.Errorf("embedded engine: %s is not a Cosmos VM here (want wasm or move)", vm)
	}
	for _, o := range opts {
		o(&cfg)
	}
	n, err := minitia.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &CosmosRollup{node: n}, nil
}

// WasmRollup and MoveRollup are embedded Cosmos rollups of their VM.
type (
	WasmRollup = CosmosRollup
	MoveRollup = CosmosRollup
)

// CosmosRollup is an in-process Cosmos rollup on the project's minitia application.
type CosmosRollup struct {
	node     *minitia.Node
	stopOnce sync.Once
	stopErr  error
}

var _ localnet.Rollup = (*CosmosRollup)(nil)

// VM is the rollup's VM.
func (r *CosmosRollup) VM() vip.VM { return r.node.Config().VM }

// ChainID is the Cosmos chain id.
func (r *CosmosRollup) ChainID() string { return r.node.ChainID() }

// Endpoints are CometBFT's RPC and the API server's REST URLs.
func (r *CosmosRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{CometRPC: r.node.RPCURL(), REST: r.node.RESTURL()}
}

// Funded returns the genesis-funded accounts with their mnemonics and keys; each
// mnemonic's account of the other coin type (60 beside 118, 118 beside 60) is funded too.
func (r *CosmosRollup) Funded() []localnet.Account {
	also := r.node.AlsoFunded()
	var out []localnet.Account
	for i, a := range r.node.Funded() {
		acc := localnet.Account{Address: a.Address, Mnemonic: a.Mnemonic, PrivateKey: a.PrivateKey}
		if i < len(also) {
			if also[i].KeyType == vip.EthSecp256k1 {
				acc.CoinType60Address = also[i].Address
			} else {
				acc.CoinType118Address = also[i].Address
			}
		}
		out = append(out, acc)
	}
	return out
}

// Resumed reports whether the rollup resumed the chain its data dir kept (WithCosmosDataDir).
func (r *CosmosRollup) Resumed() bool { return r.node.Resumed() }

// Height is the latest committed block height.
func (r *CosmosRollup) Height() int64 { return r.node.Height() }

// Node is the running minitia node, for in-process use.
func (r *CosmosRollup) Node() *minitia.Node { return r.node }

// Stop ends the chain and its servers; safe to call more than once.
func (r *CosmosRollup) Stop(context.Context) error {
	r.stopOnce.Do(func() { r.stopErr = r.node.Close() })
	return r.stopErr
}
