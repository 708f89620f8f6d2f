package jsclients_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/vipharness/vipharness/deployer/vip"
)

// modulesCalls is how many calls initia_modules.mjs makes on each VM when it runs to its end.
var modulesCalls = map[vip.VM]int{vip.Wasm: 22, vip.Move: 28}

var _ = Describe("Initia.js over a Cosmos rollup's module APIs", func() {
	for _, vm := range []vip.VM{vip.Wasm, vip.Move} {
		for _, target := range initiaTargets(vm) {
			Context(target.String(), Label("initia.js", string(target.VM), target.Engine.Name()), func() {
				It("answers auth, bank, tendermint, upgrade, authz, feegrant, opchild and the VM's module routes", func(ctx SpecContext) {
					if plainNode(target) {
						Skip(target.String() + " runs plain wasmd, not the minitia app")
					}
					r := startFresh(ctx, target)
					funded := r.Funded()
					Expect(len(funded)).To(BeNumerically(">=", 2), "two funded mnemonics (granter and grantee)")
					vars := cosmjsEnv(r)
					vars["VM"], vars["MNEMONIC2"], vars["ENGINE"] = string(target.VM), funded[1].Mnemonic, target.Engine.Name()
					calls, err := runScript(ctx, "initia_modules.mjs", vars)
					fmt.Fprintf(GinkgoWriter, "initia_modules.mjs on %s: %d calls answered\n", target, len(calls))
					expectCallsPassed(target, "initia_modules.mjs", "Initia.js", calls, err, modulesCalls[target.VM])
				}, SpecTimeout(time.Minute+scriptTimeout))
			})
		}
	}
})
