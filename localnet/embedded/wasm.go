package embedded

import (
	"context"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet/devnode"
	"github.com/vipharness/vipharness/localnet/devnode/wasmexec"
)

// DefaultWasmChainID is the chain id of the embedded Wasm rollup.
const DefaultWasmChainID = "vip-wasm-1"

// WasmOption configures StartWasm: any dev node option (chain id, bech32 prefix, fee denom and
// gas price, funded mnemonics and key type, block gas and tx size limits, logger).
type WasmOption = devnode.Option

// StartWasm starts an embedded Wasm rollup running CosmWasm contracts on wasmvm/v3. By default
// it has chain id DefaultWasmChainID, bech32 prefix "init", fee denom "umin" at a minimum gas
// price of 0.15, and two funded secp256k1 (coin type 118) accounts with fresh mnemonics.
func StartWasm(ctx context.Context, opts ...WasmOption) (*WasmRollup, error) {
	exec, err := wasmexec.New()
	if err != nil {
		return nil, err
	}
	base := []devnode.Option{
		devnode.WithChainID(DefaultWasmChainID),
		devnode.WithAppVersion(devnode.DefaultAppName, "v0.0.0-devnode+wasmvm.v3.0.7"),
	}
	return startDev(ctx, deployer.Wasm, exec, append(base, opts...))
}
