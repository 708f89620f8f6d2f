package embedded

import (
	"context"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
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
// price of 0.15, and two fresh mnemonics whose first secp256k1 (coin type 118) and first
// eth_secp256k1 (coin type 60, Initia.js MnemonicKey()'s default) accounts are both funded.
func StartWasm(ctx context.Context, opts ...WasmOption) (*WasmRollup, error) {
	exec, err := wasmexec.New()
	if err != nil {
		return nil, err
	}
	base := []devnode.Option{
		devnode.WithChainID(DefaultWasmChainID),
		devnode.WithAppVersion(devnode.DefaultAppName, "v0.0.0-devnode+wasmvm.v3.0.7"),
		// miniwasm's CoinType is 60: Initia's wallets derive eth_secp256k1 keys from a
		// mnemonic, wasmd tools secp256k1 (118). Fund both, so either works.
		devnode.WithAlsoFundedKeyType(keys.EthSecp256k1),
	}
	return startDev(ctx, deployer.Wasm, exec, append(base, opts...))
}
