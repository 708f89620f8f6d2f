package jsclients_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet"
)

// cosmjsWasmCalls and cosmjsMoveCalls are how many calls cosmjs_wasm.mjs and cosmjs_move.mjs
// make when they run to their end.
const (
	cosmjsWasmCalls = 39
	cosmjsMoveCalls = 27
)

// cosmjsStage is the stage the CosmJS spec instantiates the scoring contract at.
const cosmjsStage = "3"

var _ = Describe("CosmJS on a Wasm rollup", func() {
	for _, target := range initiaTargets(vip.Wasm) {
		Context(target.String(), Label("cosmjs", string(target.VM), target.Engine.Name()), func() {
			It("uploads, instantiates (and instantiate2), scores, finalizes, migrates and changes admins, all under fee auto; smart and raw queries; authz and fee grants; empty searches", func(ctx SpecContext) {
				if plainNode(target) {
					Skip(target.String() + " runs plain wasmd, not the minitia app")
				}
				r := startFresh(ctx, target)
				funded := r.Funded()
				Expect(funded[0].Mnemonic).NotTo(BeEmpty(), "the first funded account comes from a mnemonic")
				vars := cosmjsEnv(r)
				wasmFile, err := filepath.Abs(filepath.Join("..", "..", "contracts", "wasm", "artifacts", "vip_score.wasm"))
				Expect(err).NotTo(HaveOccurred())
				// On Wasm the funded Address is the mnemonic's coin type 118 account.
				vars["WASM_FILE"], vars["FUNDED_ADDRESS"], vars["STAGE"] = wasmFile, funded[0].Address, cosmjsStage
				calls, err := runScript(ctx, "cosmjs_wasm.mjs", vars)
				expectCallsPassed(target, "cosmjs_wasm.mjs", "CosmJS", calls, err, cosmjsWasmCalls)
			}, SpecTimeout(time.Minute+scriptTimeout))
		})
	}
})

var _ = Describe("CosmJS on a Move rollup", func() {
	for _, target := range initiaTargets(vip.Move) {
		Context(target.String(), Label("cosmjs", string(target.VM), target.Engine.Name()), func() {
			It("reads balances, blocks, accounts (an eth_secp256k1 one through an accountParser) and txs, and sends from the coin type 118 account", func(ctx SpecContext) {
				r := startFresh(ctx, target)
				funded := r.Funded()
				Expect(funded[0].Mnemonic).NotTo(BeEmpty(), "the first funded account comes from a mnemonic")
				Expect(funded[0].CoinType118Address).NotTo(BeEmpty(), "the mnemonic's coin type 118 account is funded for CosmJS")
				vars := cosmjsEnv(r)
				// On Move the funded Address is the mnemonic's coin type 60 (eth_secp256k1) account.
				vars["COIN_TYPE60_ADDRESS"], vars["COIN_TYPE118_ADDRESS"] = funded[0].Address, funded[0].CoinType118Address
				calls, err := runScript(ctx, "cosmjs_move.mjs", vars)
				expectCallsPassed(target, "cosmjs_move.mjs", "CosmJS", calls, err, cosmjsMoveCalls)
			}, SpecTimeout(time.Minute+scriptTimeout))
		})
	}
})

// startFresh starts a new chain of the target (no tx sent on it yet), stopped when the spec
// ends.
func startFresh(ctx context.Context, t harness.Target) localnet.Rollup {
	if err := t.Engine.Available(ctx, t.VM); err != nil {
		Skip(fmt.Sprintf("%s: %v", t, err))
	}
	r, err := t.Engine.StartRollup(ctx, t.VM)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) { Expect(r.Stop(ctx)).To(Succeed()) }, NodeTimeout(30*time.Second))
	Expect(r.Funded()).NotTo(BeEmpty())
	return r
}

// cosmjsEnv is what every CosmJS script reads: the CometBFT RPC, the chain, its bech32
// prefix, the node's minimum gas price (its fee denom) and the first funded mnemonic.
func cosmjsEnv(r localnet.Rollup) map[string]string {
	ep := r.Endpoints()
	price, denom := minGasPrice(ep.REST)
	funded := r.Funded()
	prefix, _, err := bech32.DecodeAndConvert(funded[0].Address)
	Expect(err).NotTo(HaveOccurred())
	return map[string]string{
		"RPC_URL": ep.CometRPC, "REST_URL": ep.REST, "CHAIN_ID": r.ChainID(), "BECH32_PREFIX": prefix,
		"GAS_PRICE": price, "FEE_DENOM": denom, "MNEMONIC": funded[0].Mnemonic,
	}
}

// minGasPrice reads the node's minimum gas price (the SDK's node service config), as
// "<amount><denom>", and its denom.
func minGasPrice(rest string) (price, denom string) {
	resp, err := http.Get(rest + "/cosmos/base/node/v1beta1/config")
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var cfg struct {
		MinimumGasPrice string `json:"minimum_gas_price"`
	}
	Expect(json.NewDecoder(resp.Body).Decode(&cfg)).To(Succeed())
	price = strings.Split(cfg.MinimumGasPrice, ",")[0]
	i := strings.IndexFunc(price, func(c rune) bool { return (c < '0' || c > '9') && c != '.' })
	Expect(i).To(BeNumerically(">", 0), "a minimum gas price with a denom, got %q", cfg.MinimumGasPrice)
	return price, price[i:]
}

// expectCallsPassed fails unless the script made exactly want calls and every one passed,
// and logs the count.
func expectCallsPassed(t harness.Target, script, client string, calls []call, err error, want int) {
	passed := len(calls) - len(failed(calls))
	fmt.Fprintf(GinkgoWriter, "%s on %s: %d of %d %s calls passed\n", script, t, passed, len(calls), client)
	AddReportEntry(client+" calls", fmt.Sprintf("%s on %s: %d/%d", script, t, passed, len(calls)))
	Expect(err).NotTo(HaveOccurred())
	Expect(failed(calls)).To(BeEmpty())
	Expect(calls).To(HaveLen(want), "the script must run every call to the end")
}
