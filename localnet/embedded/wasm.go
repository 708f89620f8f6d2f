package embedded

import (
	"context"
	"errors"
	"sync"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/devnode"
	"github.com/vipharness/vipharness/localnet/devnode/wasmexec"
)

// DefaultWasmChainID is the chain id of the embedded Wasm rollup.
const DefaultWasmChainID = "vip-wasm-1"

// WasmOption configures StartWasm: any dev node option (chain id, bech32 prefix, fee denom and
// gas price, funded mnemonics and key type, block gas and tx size limits, logger).
type WasmOption = devnode.Option

// WasmRollup is an in-process Wasm rollup: the dev node (Cosmos tx path, CometBFT RPC and
// REST gateway on loopback) running CosmWasm contracts on wasmvm/v3, so Cosmos clients talk to
// it as to a wasmd chain.
type WasmRollup struct {
	node     *devnode.Node
	exec     *wasmexec.Executor
	stopOnce sync.Once
	stopErr  error
}

var _ localnet.Rollup = (*WasmRollup)(nil)

// StartWasm starts an embedded Wasm rollup. By default it has chain id DefaultWasmChainID,
// bech32 prefix "init", fee denom "umin" at a minimum gas price of 0.15, and two funded
// secp256k1 (coin type 118) accounts with fresh mnemonics.
func StartWasm(ctx context.Context, opts ...WasmOption) (*WasmRollup, error) {
	exec, err := wasmexec.New()
	if err != nil {
		return nil, err
	}
	base := []devnode.Option{
		devnode.WithChainID(DefaultWasmChainID),
		devnode.WithAppVersion("vipharness-embedded-wasm", "devnode/wasmvm-v3.0.7"),
	}
	node, err := devnode.Start(ctx, exec, append(base, opts...)...)
	if err != nil {
		return nil, errors.Join(err, exec.Close())
	}
	return &WasmRollup{node: node, exec: exec}, nil
}

// VM reports deployer.Wasm.
func (r *WasmRollup) VM() deployer.VM { return deployer.Wasm }

// ChainID is the Cosmos chain id.
func (r *WasmRollup) ChainID() string { return r.node.ChainID() }

// Endpoints returns the CometBFT RPC and REST URLs (no EVM JSON-RPC).
func (r *WasmRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{CometRPC: r.node.RPCURL(), REST: r.node.RESTURL()}
}

// Funded returns the genesis-funded accounts with their mnemonics and private keys.
func (r *WasmRollup) Funded() []localnet.Account {
	var out []localnet.Account
	for _, a := range r.node.Funded() {
		out = append(out, localnet.Account{Address: a.Address, Mnemonic: a.Mnemonic, PrivateKey: a.PrivateKey})
	}
	return out
}

// Node is the dev node, for in-process use (direct broadcast, its Encoding for signing).
func (r *WasmRollup) Node() *devnode.Node { return r.node }

// Stop ends the servers and releases the VM; safe to call more than once.
func (r *WasmRollup) Stop(context.Context) error {
	r.stopOnce.Do(func() { r.stopErr = errors.Join(r.node.Close(), r.exec.Close()) })
	return r.stopErr
}
