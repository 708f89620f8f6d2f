package jsclients_test

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/vipharness/vipharness/deployer/vip"
)

// modulesCalls is how many calls initia_modules.mjs makes on each VM when it runs to its end,
// and modulesAbsent how many of them are Initia's modules a local minitia does not run
// (localnet/minitia/README.md).
var (
	modulesCalls  = map[vip.VM]int{vip.Wasm: 22, vip.Move: 28}
	modulesAbsent = map[vip.VM]int{vip.Wasm: 2, vip.Move: 2}
)

var _ = Describe("Initia.js over a Cosmos rollup's module APIs", func() {
	for _, vm := range []vip.VM{vip.Wasm, vip.Move} {
		for _, target := range initiaTargets(vm) {
			Context(target.String(), Label("initia.js", string(target.VM), target.Engine.Name()), func() {
				It("answers auth, bank, tendermint, upgrade, authz, feegrant and the VM's module routes; Initia's absent modules are refused as unknown routes", func(ctx SpecContext) {
					if plainNode(target) {
						Skip(target.String() + " runs plain wasmd, not the minitia app")
					}
					r := startFresh(ctx, target)
					funded := r.Funded()
					Expect(len(funded)).To(BeNumerically(">=", 2), "two funded mnemonics (granter and grantee)")
					vars := cosmjsEnv(r)
					vars["VM"], vars["MNEMONIC2"], vars["ENGINE"] = string(target.VM), funded[1].Mnemonic, target.Engine.Name()
					calls, err := runScript(ctx, "initia_modules.mjs", vars)
					absent := 0
					for _, c := range calls {
						if strings.HasPrefix(c.Name, "absent: ") {
							absent++
						}
					}
					fmt.Fprintf(GinkgoWriter, "initia_modules.mjs on %s: %d calls answered, %d absent modules refused as unknown routes\n", target, len(calls)-absent, absent)
					expectCallsPassed(target, "initia_modules.mjs", "Initia.js", calls, err, modulesCalls[target.VM])
					if target.Engine.Name() == "minitia" {
						Expect(absent).To(BeZero(), "a real minitia runs opchild")
					} else {
						Expect(absent).To(Equal(modulesAbsent[target.VM]))
					}
				}, SpecTimeout(time.Minute+scriptTimeout))
			})
		}
	}
})
