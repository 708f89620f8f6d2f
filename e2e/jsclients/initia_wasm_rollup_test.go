// (Not initia_wasm_test.go: a _wasm suffix is a GOARCH build constraint.)

package jsclients_test

import (
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/vipharness/vipharness/deployer/vip"
)

// wasmCalls is how many calls initia_wasm.mjs makes when it runs to its end.
const wasmCalls = 40

var _ = Describe("Initia.js on a Wasm rollup", func() {
	for _, target := range initiaTargets(vip.Wasm) {
		Context(target.String(), Label("initia.js", string(target.VM), target.Engine.Name()), Ordered, func() {
			It("answers every call an application makes, from both of the mnemonic's funded accounts", func(ctx SpecContext) {
				if plainNode(target) {
					Skip(target.String() + " runs plain wasmd: no coin type 60 account is funded and no opchild params are served")
				}
				env := startInitiaRollup(ctx, target)
				funded := env.Rollup.Funded()
				if funded[0].CoinType60Address == "" {
					Skip(target.String() + " funds no coin type 60 account (a plain wasmd): Initia.js MnemonicKey() defaults have no funds there")
				}
				contract, addr, score := deployScored(ctx, env)
				vars := cosmosScriptEnv(env, feeDenom(env))
				wasmFile, err := filepath.Abs(filepath.Join("..", "..", "contracts", "wasm", "artifacts", "vip_score.wasm"))
				Expect(err).NotTo(HaveOccurred())
				vars["CONTRACT"], vars["SCORED"], vars["SCORE"] = contract, addr, strconv.FormatUint(score, 10)
				vars["FUNDED_ADDRESS"], vars["COIN_TYPE60_ADDRESS"], vars["WASM_FILE"] = funded[0].Address, funded[0].CoinType60Address, wasmFile
				calls, err := runScript(ctx, "initia_wasm.mjs", vars)
				expectAllPassed(target, "initia_wasm.mjs", calls, err, wasmCalls)
			}, SpecTimeout(3*time.Minute+scriptTimeout))
		})
	}
})
