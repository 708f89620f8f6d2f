package sidebyside_test

import (
	"encoding/base64"
	"strings"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
)

// errorProbes ask what a client's mistakes ask: malformed or missing things on every face.
// Their answers are compared whole (codes, masked words, shapes).
var errorProbes = []probe{
	jsonrpc("JSON-RPC eth_getLogs with fromBlock after toBlock", "eth_getLogs", func(localnet.Rollup) []any {
		return []any{map[string]any{"fromBlock": "0x5", "toBlock": "0x1"}}
	}, nil),
	jsonrpc("JSON-RPC eth_getLogs over 100,000 blocks", "eth_getLogs", func(localnet.Rollup) []any {
		return []any{map[string]any{"fromBlock": "0x1", "toBlock": "0x186a1"}}
	}, nil),
	jsonrpc("JSON-RPC eth_getFilterChanges of an unknown filter", "eth_getFilterChanges", func(localnet.Rollup) []any { return []any{"0x1234"} }, nil),
	jsonrpc("JSON-RPC eth_uninstallFilter of an unknown filter", "eth_uninstallFilter", func(localnet.Rollup) []any { return []any{"0x1234"} }, nil),
	jsonrpc("JSON-RPC eth_getTransactionReceipt of a malformed hash", "eth_getTransactionReceipt", func(localnet.Rollup) []any { return []any{"0x12"} }, nil),
	jsonrpc("JSON-RPC eth_call to a malformed address", "eth_call", func(localnet.Rollup) []any {
		return []any{map[string]any{"to": "0x1234"}, "latest"}
	}, nil),
	jsonrpc("JSON-RPC eth_getBalance at pending", "eth_getBalance", func(localnet.Rollup) []any { return []any{fresh().Hex(), "pending"} }, nil),
	jsonrpc("JSON-RPC eth_getStorageAt of an empty account", "eth_getStorageAt", func(localnet.Rollup) []any {
		return []any{fresh().Hex(), "0x0", "latest"}
	}, nil),
	jsonrpc("JSON-RPC eth_sendTransaction", "eth_sendTransaction", func(r localnet.Rollup) []any {
		return []any{map[string]any{"from": r.Funded()[0].Address, "to": fresh().Hex()}}
	}, nil),
	jsonrpc("JSON-RPC eth_sign", "eth_sign", func(r localnet.Rollup) []any { return []any{r.Funded()[0].Address, "0x00"} }, nil),
	jsonrpc("JSON-RPC a method that does not exist", "eth_nope", noParams, nil),
	jsonrpc("JSON-RPC eth_getBlockByNumber with a malformed tag", "eth_getBlockByNumber", func(localnet.Rollup) []any { return []any{"newest", false} }, nil),
	jsonrpc("JSON-RPC eth_getTransactionCount at a block past the head", "eth_getTransactionCount", func(r localnet.Rollup) []any {
		return []any{r.Funded()[0].Address, "0xffffff"}
	}, nil),
	wasmContract("REST a Wasm smart query that is not JSON", func(a string) string {
		return "/cosmwasm/wasm/v1/contract/" + a + "/smart/" + base64.StdEncoding.EncodeToString([]byte(`{not json`))
	}, nil),
	wasmContract("REST a Wasm smart query of no message the contract knows", func(a string) string {
		return "/cosmwasm/wasm/v1/contract/" + a + "/smart/" + base64.StdEncoding.EncodeToString([]byte(`{"no_such_query":{}}`))
	}, nil),
	wasmContract("REST a Wasm raw query of a key that is not there", func(a string) string {
		return "/cosmwasm/wasm/v1/contract/" + a + "/raw/" + base64.StdEncoding.EncodeToString([]byte("nothing-here"))
	}, nil),
	wasmContract("REST a Wasm contract's state, a page of one", func(a string) string {
		return "/cosmwasm/wasm/v1/contract/" + a + "/state?pagination.limit=1&pagination.count_total=true"
	}, func(v any) string {
		return shape(v) + " total " + strings.TrimSpace(toString(dig(v, "pagination.total")))
	}),
	rest("REST a Wasm code that is not there", []vip.VM{vip.Wasm}, func(localnet.Rollup) string { return "/cosmwasm/wasm/v1/code/999" }, nil),
	rest("REST a Wasm code's contracts when it has none", []vip.VM{vip.Wasm}, func(localnet.Rollup) string { return "/cosmwasm/wasm/v1/code/999/contracts" }, nil),
	rest("REST Move resources of an address with none", []vip.VM{vip.Move}, func(localnet.Rollup) string {
		return "/initia/move/v1/accounts/" + fresh().Hex() + "/resources"
	}, nil),
	rest("REST Move modules of an address with none", []vip.VM{vip.Move}, func(localnet.Rollup) string {
		return "/initia/move/v1/accounts/" + fresh().Hex() + "/modules"
	}, nil),
	rest("REST Move a table that is not there", []vip.VM{vip.Move}, func(localnet.Rollup) string { return "/initia/move/v1/tables/0x99" }, nil),
	rest("REST auth account that is not there", nil, func(localnet.Rollup) string {
		return "/cosmos/auth/v1beta1/accounts/init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqzqkmcy"
	}, nil),
	rest("REST a tx that is not there", nil, func(localnet.Rollup) string { return "/cosmos/tx/v1beta1/txs/" + strings.Repeat("AB", 32) }, nil),
	rest("REST a block past the head", nil, func(localnet.Rollup) string { return "/cosmos/base/tendermint/v1beta1/blocks/999999" }, nil),
}

func toString(v any) string {
	if v == nil {
		return ""
	}
	s, _ := v.(string)
	return s
}
