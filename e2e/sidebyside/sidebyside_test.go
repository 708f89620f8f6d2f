package sidebyside_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/minitiad"
)

var all = []vip.VM{vip.EVM, vip.Wasm, vip.Move}

// probes are the requests sent to both sides: REST, CometBFT RPC and JSON-RPC faces, answers
// that succeed and refusals. What is each chain's own (names, versions, addresses, hashes,
// heights) is compared by shape only, so it needs no allowance.
var probes = append([]probe{
	rest("REST node_info", nil, func(localnet.Rollup) string { return "/cosmos/base/tendermint/v1beta1/node_info" }, nil),
	rest("REST auth params", nil, func(localnet.Rollup) string { return "/cosmos/auth/v1beta1/params" }, nil),
	rest("REST bank balances of the funded account", nil, func(r localnet.Rollup) string { return "/cosmos/bank/v1beta1/balances/" + bech32Of(r) }, nil),
	rest("REST opchild params", nil, func(localnet.Rollup) string { return "/opinit/opchild/v1/params" }, func(v any) string { return shape(dig(v, "params")) }),
	rest("REST tx gas prices (the L1's route)", nil, func(localnet.Rollup) string { return "/initia/tx/v1/gas_prices" }, nil),
	{name: "REST opchild validators", ask: opchildValidators},
	rest("REST opchild bridge info", nil, func(localnet.Rollup) string { return "/opinit/opchild/v1/bridge_info" }, nil),
	rest("REST opchild next L1 sequence", nil, func(localnet.Rollup) string { return "/opinit/opchild/v1/next_l1_sequence" }, func(v any) string { return fmt.Sprint(v) }),
	rest("REST an unknown route", nil, func(localnet.Rollup) string { return "/vipharness/no/such/route" }, nil),
	rest("REST a missing Move module", []vip.VM{vip.Move}, func(localnet.Rollup) string {
		return "/initia/move/v1/accounts/0x1/modules/no_such_module"
	}, nil),
	rest("REST a missing Move resource", []vip.VM{vip.Move}, func(r localnet.Rollup) string {
		return "/initia/move/v1/accounts/0x1/resources/by_struct_tag?struct_tag=0x1::no_such_module::Nothing"
	}, nil),
	rest("REST Move denom of an address with no metadata", []vip.VM{vip.Move}, func(localnet.Rollup) string { return "/initia/move/v1/denom?metadata=0x2" }, nil),
	rest("REST Move metadata of a denom in upper case", []vip.VM{vip.Move}, func(localnet.Rollup) string {
		return "/initia/move/v1/metadata?denom=move/ABCDEF"
	}, nil),
	rest("REST Move metadata of a denom of odd hex", []vip.VM{vip.Move}, func(localnet.Rollup) string { return "/initia/move/v1/metadata?denom=move/abc" }, nil),
	rest("REST Move metadata of a fee-like denom", []vip.VM{vip.Move}, func(localnet.Rollup) string { return "/initia/move/v1/metadata?denom=unoone" },
		func(v any) string { return fmt.Sprint(v) }),
	rest("REST bank balance of a denom never issued", nil, func(r localnet.Rollup) string {
		return "/cosmos/bank/v1beta1/balances/" + bech32Of(r) + "/by_denom?denom=unoone"
	}, func(v any) string { return fmt.Sprint(v) }),
	rest("REST bank supply of a denom never issued", nil, func(localnet.Rollup) string { return "/cosmos/bank/v1beta1/supply/by_denom?denom=unoone" },
		func(v any) string { return fmt.Sprint(v) }),
	rest("REST Move params", []vip.VM{vip.Move}, func(localnet.Rollup) string { return "/initia/move/v1/params" }, func(v any) string { return shape(dig(v, "params")) }),
	rest("REST Wasm codes", []vip.VM{vip.Wasm}, func(localnet.Rollup) string { return "/cosmwasm/wasm/v1/code" }, nil),
	rest("REST Wasm params", []vip.VM{vip.Wasm}, func(localnet.Rollup) string { return "/cosmwasm/wasm/v1/codes/params" }, func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}),
	wasmContract("REST a Wasm contract's info", func(a string) string { return "/cosmwasm/wasm/v1/contract/" + a },
		sharedFields("contract_info", "code_id", "admin", "label", "ibc_port_id", "extension")),
	wasmContract("REST a Wasm contract's history", func(a string) string { return "/cosmwasm/wasm/v1/contract/" + a + "/history" }, firstOf("entries")),
	wasmContract("REST a Wasm contract's raw state", func(a string) string { return "/cosmwasm/wasm/v1/contract/" + a + "/state" }, firstOf("models")),
	wasmContract("REST a Wasm contract's smart query", func(a string) string {
		return "/cosmwasm/wasm/v1/contract/" + a + "/smart/" + base64.StdEncoding.EncodeToString([]byte(`{"get_stage_info":{"stage":1}}`))
	}, nil),
	rest("REST a Wasm code's info", []vip.VM{vip.Wasm}, func(localnet.Rollup) string { return "/cosmwasm/wasm/v1/code/1" }, func(v any) string {
		return shape(dig(v, "code_info"))
	}),
	rest("REST Wasm codes' info", []vip.VM{vip.Wasm}, func(localnet.Rollup) string { return "/cosmwasm/wasm/v1/code-info/1" }, nil),
	rest("REST bank supply", nil, func(localnet.Rollup) string { return "/cosmos/bank/v1beta1/supply" }, firstOf("supply")),
	rest("REST bank denoms metadata", nil, func(localnet.Rollup) string { return "/cosmos/bank/v1beta1/denoms_metadata" }, nil),
	rest("REST auth module accounts", nil, func(localnet.Rollup) string { return "/cosmos/auth/v1beta1/module_accounts" }, firstOf("accounts")),
	rest("REST auth account of the funded account", nil, func(r localnet.Rollup) string { return "/cosmos/auth/v1beta1/accounts/" + bech32Of(r) }, func(v any) string {
		return shape(dig(v, "account")) + " " + fmt.Sprint(dig(v, "account.@type"))
	}),
	rest("REST a query of a missing Wasm contract", []vip.VM{vip.Wasm}, func(localnet.Rollup) string {
		return "/cosmwasm/wasm/v1/contract/init14hj2tavq8fpesdwxxcu44rty3hh90vhujrvcmstl4zr3txmfvw9sx58pds/smart/e30="
	}, nil),
	abci("ABCI query auth params", nil, "/cosmos.auth.v1beta1.Query/Params", true),
	abci("ABCI query bank params", nil, "/cosmos.bank.v1beta1.Query/Params", true),
	abci("ABCI query opchild params", nil, "/opinit.opchild.v1.Query/Params", false),
	abciRead("ABCI query opchild validators", nil, "/opinit.opchild.v1.Query/Validators", opchildValidatorsValue),
	abci("ABCI query opchild next L1 sequence", nil, "/opinit.opchild.v1.Query/NextL1Sequence", true),
	abci("ABCI query opchild bridge info without a bridge", nil, "/opinit.opchild.v1.Query/BridgeInfo", false),
	abci("ABCI query an unknown service", nil, "/vipharness.no.v1.Query/Nothing", false),
	abci("ABCI query Wasm params", []vip.VM{vip.Wasm}, "/cosmwasm.wasm.v1.Query/Params", true),
	abci("ABCI query Move params", []vip.VM{vip.Move}, "/initia.move.v1.Query/Params", false),
	abci("ABCI query the node's config", nil, "/cosmos.base.node.v1beta1.Service/Config", false),
	rpc("RPC status", "/status", ""),
	rpc("RPC abci_info", "/abci_info", "response"),
	rpc("RPC health", "/health", ""),
	rpc("RPC the latest block", "/block", "block"),
	rpc("RPC the validators", "/validators", ""),
	rpc("RPC net_info", "/net_info", ""),
	rpc("RPC num_unconfirmed_txs", "/num_unconfirmed_txs", ""),
	rpc("RPC an unknown method", "/no_such_method", ""),
	jsonrpc("JSON-RPC eth_chainId", "eth_chainId", noParams, nil),
	jsonrpc("JSON-RPC net_version", "net_version", noParams, func(v any) string { return fmt.Sprint(v) }),
	jsonrpc("JSON-RPC eth_gasPrice", "eth_gasPrice", noParams, nil),
	jsonrpc("JSON-RPC eth_maxPriorityFeePerGas", "eth_maxPriorityFeePerGas", noParams, func(v any) string { return fmt.Sprint(v) }),
	jsonrpc("JSON-RPC eth_estimateGas from an address with no account", "eth_estimateGas", func(localnet.Rollup) []any {
		return []any{map[string]any{"from": fresh().Hex(), "to": fresh().Hex()}}
	}, nil),
	jsonrpc("JSON-RPC eth_estimateGas without from", "eth_estimateGas", func(localnet.Rollup) []any {
		return []any{map[string]any{"to": fresh().Hex()}}
	}, nil),
	jsonrpc("JSON-RPC eth_call that reverts", "eth_call", func(localnet.Rollup) []any {
		// Creation code that reverts with 4 bytes of data: PUSH4 0xdeadbeef PUSH1 0 MSTORE PUSH1 4 PUSH1 28 REVERT.
		return []any{map[string]any{"data": "0x63deadbeef6000526004601cfd"}, "latest"}
	}, nil),
	jsonrpc("JSON-RPC eth_getBlockByNumber latest", "eth_getBlockByNumber", func(localnet.Rollup) []any { return []any{"latest", false} }, nil),
	jsonrpc("JSON-RPC eth_getBlockByNumber 0", "eth_getBlockByNumber", func(localnet.Rollup) []any { return []any{"0x0", false} },
		func(v any) string { return fmt.Sprintf("number %v", dig(v, "number")) }),
	{name: "Cosmos a bank send above u64", vms: []vip.VM{vip.Wasm, vip.Move}, ask: overU64Send, timeout: time.Minute},
	{name: "Cosmos a bank send above the balance", vms: []vip.VM{vip.Wasm, vip.Move}, ask: overBalanceSend, timeout: time.Minute},
}, append(append(append(append(evmProbes, moveAuthzProbe, moveScriptProbe, moveCoinProbe, moveViewProbe, txRefusalsProbe), errorProbes...), cometProbes...), cosmosGasProbes...)...)

func noParams(localnet.Rollup) []any { return []any{} }

// opchildValidators keeps opchild's validator list's shape and what a minitia's genesis
// fixes of each validator: the node's own moniker (CometBFT status'), the sequencer's power
// and the key's type (keys and addresses differ by chain).
func opchildValidators(ctx context.Context, r localnet.Rollup) (answer, error) {
	status, err := get(ctx, r.Endpoints().CometRPC+"/status", func(v any) string { s, _ := dig(v, "result.node_info.moniker").(string); return s })
	if err != nil {
		return answer{}, err
	}
	return get(ctx, r.Endpoints().REST+"/opinit/opchild/v1/validators", func(v any) string {
		out := fmt.Sprintf("%s (status names a moniker: %v)", shape(v), status.Shape != "")
		list, _ := dig(v, "validators").([]any)
		for _, val := range list {
			out += fmt.Sprintf(" [%s node's moniker=%v cons_power=%v key=%v]", shape(val), dig(val, "moniker") == status.Shape,
				dig(val, "cons_power"), dig(val, "consensus_pubkey.@type"))
		}
		return out
	})
}

// startPair starts our rollup of vm and a real minitiad of it, each stopped when the
// container ends; without the real binary the specs skip (fail with REQUIRE_MINITIA=1).
func startPair(ctx SpecContext, vm vip.VM, ourEngine embedded.Engine, realEngine minitiad.Engine) (ours, real localnet.Rollup) {
	if err := realEngine.Available(ctx, vm); err != nil {
		if harness.Required("minitia") {
			Fail(fmt.Sprintf("REQUIRE_MINITIA=1: %v", err))
		}
		Skip(err.Error())
	}
	var err error
	ours, err = ourEngine.StartRollup(ctx, vm)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) { Expect(ours.Stop(ctx)).To(Succeed()) })
	real, err = realEngine.StartRollup(ctx, vm)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) { Expect(real.Stop(ctx)).To(Succeed()) })
	return ours, real
}

// Reasons that several known differences share.
const (
	noCometBlocks = "the geth EVM's CometBFT face is a stand-in over geth's chain: it serves the node's status, abci_info, abci_query, validators and the mempool's size, but no CometBFT blocks, commits, txs, tx search, consensus params or tx broadcast (its blocks and txs are geth's, with no Cosmos tx around them); a minievm serves them all"
	garbagePanics = "a minitia's CheckTx path panics on bytes that are not a tx (\"runtime error: index out of range\", answered as JSON-RPC -32603 by CometBFT's recovery); ours answers the SDK's decode refusal in a CheckTx result, as a plain Cosmos SDK node does. Copying a crash is not worth its cost: both refuse the bytes"
)

// known are differences found and not closed yet on the project's rollups (the README's
// "Differences that remain"), by probe name and VM; each must still differ, so the list
// stays true.
var known = map[string]map[vip.VM]string{
	"RPC broadcast_tx_sync of garbage":   {vip.Wasm: garbagePanics, vip.Move: garbagePanics},
	"JSON-RPC a transfer's gas and logs": {vip.EVM: "the fee denom is an ERC-20 on both (the fee's payment and refund are Transfer logs in the receipt), and its decimals() is read where a minievm reads it (in the ante handler and before every EVM call, after x/evm's params, the token's record and the minimum gas price, each read on the tx's gas as there), but running decimals() costs 6,633 gas in a minievm's 10,436-byte ERC-20 (EIP-4762 prices each code chunk a call touches; traced on v1.2.18 with a gas-logging build outside the repository) and 1,657 in our 2,164-byte token, whose bytecode is our own: a read is 31,261 gas there and 26,285 here, so a transfer uses 111,563 there and 102,365 here (estimates 170,860 and 163,152)"},
}

// knownOnGeth are the differences of the EVM rollup on go-ethereum's simulated chain
// (embedded-geth), by probe name: the faces it lacks because its chain is geth's, with no
// Cosmos tx, module or CometBFT block under it.
var knownOnGeth = map[string]string{
	"RPC a tx that is not there":                                   noCometBlocks,
	"RPC a block past the head":                                    noCometBlocks,
	"RPC block results past the head":                              noCometBlocks,
	"RPC a commit past the head":                                   noCometBlocks,
	"RPC the consensus params":                                     noCometBlocks,
	"RPC tx_search with a malformed query":                         noCometBlocks,
	"RPC tx_search of no tx":                                       noCometBlocks,
	"RPC the blockchain's first blocks":                            noCometBlocks,
	"RPC unconfirmed txs":                                          noCometBlocks,
	"RPC broadcast_tx_sync of garbage":                             noCometBlocks,
	"JSON-RPC a tx sent again":                                     "the geth EVM's pool answers a tx it holds with geth's \"already known\" and a mined one with \"nonce too low\"; a minievm answers both with an empty -32000 (the SDK's code for a tx in CometBFT's cache carries no log)",
	"JSON-RPC a transfer's gas and logs":                           "the geth EVM charges geth's gas (a transfer 21,000) and logs only the contract's events; minievm charges Cosmos gas (estimate 170,860, used ~111,500) and logs the fee token's Transfer events (fee paid, value, refund): both need minievm's Cosmos tx execution",
	"JSON-RPC a dynamic-fee transfer's price":                      "minievm reports a type-2 tx's gasPrice and effectiveGasPrice as its fee cap and charges the cap for the Cosmos gas used plus half the gas left unused (measured: a cap of 105 on 111,563 used of 170,860 cost 14,827,261); geth charges base fee + tip for the gas used. Matching the report alone would make the geth EVM's receipts disagree with its balances, and the charge needs minievm's Cosmos gas",
	"RPC the latest block":                                         "the geth EVM's blocks are geth's, and its CometBFT face (a stand-in) serves no CometBFT blocks; a minievm's blocks are CometBFT's, each EVM tx inside a Cosmos tx",
	"JSON-RPC eth_sendRawTransaction of txs short of gas or coins": "the geth EVM's pool judges a tx by geth's rules: under a transfer's 21,000 intrinsic gas it answers \"intrinsic gas too low\", and a value above the balance \"insufficient funds\"; a minievm converts the tx into a Cosmos tx first, whose fee check fails a limit that low (\"fee amount manipulation detected: Tx conversion failed\", also at 21,000), and takes a value above the balance into its mempool (the EVM call fails when it runs). geth cannot put a tx it cannot pay for into a block",
	"REST a tx that is not there":                                  "the geth EVM's Cosmos face serves no Cosmos txs (its txs are geth's, with no Cosmos tx around them), so its tx route answers 501; a minievm looks the hash up among its Cosmos txs (404 code 5, \"tx not found\")",
	"REST a block past the head":                                   "the geth EVM's Cosmos face serves no Cosmos blocks (its blocks are geth's), so its block route answers 501; a minievm's answers a height past its head 400 code 3",
	"JSON-RPC the prices a contract sees":                          "the geth EVM estimates a create at gas price 0, so its estimate prices storing a zero GASPRICE, with no margin: the create, sent at its price, runs out of gas and stores nothing; a minievm's estimate is simulated x 1.4 + 50,000, and its EVM sees the tx's price and the chain's minimum gas price",
	"REST auth module accounts":                                    "the geth EVM runs no Cosmos modules, so it has no module accounts to list (a minievm lists its modules' accounts: fee_collector, opchild, transfer and others); its Cosmos face answers an empty list",
}

// pair is one of our rollups to set beside the real minitiad of its VM, with its known
// differences.
type pair struct {
	vm     vip.VM
	engine embedded.Engine
	known  func(probe string) (string, bool)
}

var pairs = func() []pair {
	var out []pair
	for _, vm := range all {
		out = append(out, pair{vm: vm, engine: embedded.Engine{}, known: func(name string) (string, bool) {
			why, ok := known[name][vm]
			return why, ok
		}})
		if vm == vip.EVM {
			out = append(out, pair{vm: vm, engine: embedded.Engine{EVMOnGeth: true}, known: func(name string) (string, bool) {
				why, ok := knownOnGeth[name]
				return why, ok
			}})
		}
	}
	return out
}()

var _ = Describe("the project's rollups beside Initia's real minitiad", Label("sidebyside", "minitia"), func() {
	for _, pr := range pairs {
		vm := pr.vm
		Context(string(vm)+"/"+pr.engine.Name(), Label(string(vm), pr.engine.Name()), Ordered, func() {
			var ours, real localnet.Rollup
			BeforeAll(func(ctx SpecContext) {
				ours, real = startPair(ctx, vm, pr.engine, minitiad.Engine{})
			}, NodeTimeout(4*time.Minute))

			It("answers every probe as the real rollup does, but for the differences listed", func(ctx SpecContext) {
				var unexpected, closed, still []string
				asked := 0
				for _, p := range probes {
					if !p.on(vm) {
						continue
					}
					asked++
					timeout := probeTimeout
					if p.timeout > 0 {
						timeout = p.timeout
					}
					pctx, cancel := context.WithTimeout(ctx, timeout)
					a, errA := p.ask(pctx, ours)
					b, errB := p.ask(pctx, real)
					cancel()
					Expect(errA).NotTo(HaveOccurred(), "%s on ours", p.name)
					Expect(errB).NotTo(HaveOccurred(), "%s on the real one", p.name)
					line := fmt.Sprintf("%s\n    ours: %s\n    real: %s", p.name, a, b)
					why, isKnown := pr.known(p.name)
					switch {
					case p.alike(a, b) && isKnown:
						closed = append(closed, p.name+" (listed as known: "+why+")")
					case p.alike(a, b):
					case isKnown:
						still = append(still, line)
					default:
						unexpected = append(unexpected, line)
					}
				}
				AddReportEntry("differences", fmt.Sprintf("%s: %d probes, %d known differences left:\n%s", vm, asked, len(still), strings.Join(still, "\n")))
				fmt.Fprintf(GinkgoWriter, "%s: %d probes, %d known differences left\n", vm, asked, len(still))
				Expect(unexpected).To(BeEmpty(), "differences not listed as known")
				Expect(closed).To(BeEmpty(), "known differences that are closed: take them off the list")
			}, SpecTimeout(6*time.Minute))
		})
	}
})

// wasmContract asks about the first contract the gas txs instantiated (the gas run makes it,
// whichever probe asks first): path(address) on the REST face, keep its answer's value.
func wasmContract(name string, path func(addr string) string, keep func(any) string) probe {
	return probe{name: name, vms: []vip.VM{vip.Wasm}, ask: func(ctx context.Context, r localnet.Rollup) (answer, error) {
		if _, err := cosmosGas(ctx, r); err != nil {
			return answer{}, err
		}
		list, err := get(ctx, r.Endpoints().REST+"/cosmwasm/wasm/v1/code/1/contracts", func(v any) string {
			c, _ := dig(v, "contracts").([]any)
			if len(c) == 0 {
				return ""
			}
			return fmt.Sprint(c[0])
		})
		if err != nil || list.Shape == "" || list.Status != 200 {
			return list, err
		}
		return get(ctx, r.Endpoints().REST+path(list.Shape), keep)
	}}
}

// sharedFields keeps the shape of the object at path and the values of the named fields
// (those every chain shares).
func sharedFields(path string, fields ...string) func(any) string {
	return func(v any) string {
		obj := dig(v, path)
		shared := map[string]any{}
		for _, k := range fields {
			shared[k] = dig(obj, k)
		}
		b, _ := json.Marshal(shared)
		return shape(obj) + " " + string(b)
	}
}

// firstOf keeps the shape of the list at path's first element.
func firstOf(path string) func(any) string {
	return func(v any) string {
		list, _ := dig(v, path).([]any)
		if len(list) == 0 {
			return "[]"
		}
		return shape(list[0])
	}
}
