package embedded

import (
	"context"
	"sync"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitia"
)

// DefaultWasmChainID is the chain id of the embedded Wasm rollup.
const DefaultWasmChainID = "vip-wasm-1"

// WasmOption changes the embedded Wasm rollup's minitia settings (chain id, fees, funded
// mnemonics, block gas and time, ...) before it starts.
type WasmOption func(*minitia.Config)

// WithMaxBlockGas sets the rollup's block gas limit.
func WithMaxBlockGas(gas int64) WasmOption { return func(c *minitia.Config) { c.MaxBlockGas = gas } }

// WithBlockTime sets the interval between blocks.
func WithBlockTime(d time.Duration) WasmOption { return func(c *minitia.Config) { c.BlockTime = d } }

// StartWasm starts an embedded Wasm rollup: the project's minitia application with wasmd's
// x/wasm under an in-process CometBFT. By default it has chain id DefaultWasmChainID, bech32
// prefix "init", fee denom "umin" at a minimum gas price of 0.15, and two fresh mnemonics whose
// first secp256k1 (coin type 118, what wasmd tools derive) and eth_secp256k1 (coin type 60,
// Initia.js MnemonicKey()'s default) accounts are both funded.
func StartWasm(ctx context.Context, opts ...WasmOption) (*WasmRollup, error) {
	cfg := minitia.Config{
		VM:      deployer.Wasm,
		ChainID: DefaultWasmChainID,
		KeyType: keys.Secp256k1,
		Version: "v0.0.0-vipharness+wasmvm.v3.0.7",
	}
	for _, o := range opts {
		o(&cfg)
	}
	n, err := minitia.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &WasmRollup{node: n}, nil
}

// WasmRollup is an in-process Cosmos rollup on the project's minitia application.
type WasmRollup struct {
	node     *minitia.Node
	stopOnce sync.Once
	stopErr  error
}

var _ localnet.Rollup = (*WasmRollup)(nil)

// VM is the rollup's VM.
func (r *WasmRollup) VM() deployer.VM { return r.node.Config().VM }

// ChainID is the Cosmos chain id.
func (r *WasmRollup) ChainID() string { return r.node.ChainID() }

// Endpoints are CometBFT's RPC and the API server's REST URLs.
func (r *WasmRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{CometRPC: r.node.RPCURL(), REST: r.node.RESTURL()}
}

// Funded returns the genesis-funded accounts with their mnemonics and keys; each
// mnemonic's coin type 60 account is funded too.
func (r *WasmRollup) Funded() []localnet.Account {
	also := r.node.AlsoFunded()
	var out []localnet.Account
	for i, a := range r.node.Funded() {
		acc := localnet.Account{Address: a.Address, Mnemonic: a.Mnemonic, PrivateKey: a.PrivateKey}
		if i < len(also) && also[i].KeyType == keys.EthSecp256k1 {
			acc.CoinType60Address = also[i].Address
		}
		out = append(out, acc)
	}
	return out
}

// Height is the latest committed block height.
func (r *WasmRollup) Height() int64 { return r.node.Height() }

// Node is the running minitia node, for in-process use.
func (r *WasmRollup) Node() *minitia.Node { return r.node }

// Stop ends the chain and its servers; safe to call more than once.
func (r *WasmRollup) Stop(context.Context) error {
	r.stopOnce.Do(func() { r.stopErr = r.node.Close() })
	return r.stopErr
}
