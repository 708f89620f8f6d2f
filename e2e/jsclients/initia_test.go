package jsclients_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/l1"
)

// initiaL1Stage is the stage the L1 stand-in reports and the scoring contract is deployed at.
const initiaL1Stage = 3

// scriptTimeout bounds one Initia.js script run: a few dozen calls and a handful of txs.
const scriptTimeout = 2 * time.Minute

// initiaTargets are the harness targets of one VM (every engine E2E_ENGINES names).
func initiaTargets(vm vip.VM) []harness.Target {
	var out []harness.Target
	for _, t := range harness.Targets() {
		if t.VM == vm {
			out = append(out, t)
		}
	}
	return out
}

// plainNode reports whether the target runs the VM's plain upstream node rather than a
// minitia's faces: geth (no Cosmos face) and wasmd (no coin type 60 accounts, no opchild) on
// the process and container engines. Their specs skip before a rollup is started.
func plainNode(t harness.Target) bool {
	name := t.Engine.Name()
	return (t.VM == vip.EVM || t.VM == vip.Wasm) && (name == "process" || name == "container")
}

// startInitiaRollup starts the target's rollup and the L1 stand-in for the running Ordered
// container, stopped when it ends.
func startInitiaRollup(ctx context.Context, t harness.Target) *harness.Env {
	env, err := harness.Start(ctx, t, initiaL1Stage, GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			if logs := env.FailureLogs(); logs != "" {
				AddReportEntry("node log", logs)
			}
		}
		Expect(env.Stop(ctx)).To(Succeed())
	}, NodeTimeout(30*time.Second))
	return env
}

// deployScored deploys the scoring contract with the operator key at initiaL1Stage and scores one
// generated address; it returns the contract and the scored entry.
func deployScored(ctx context.Context, env *harness.Env) (contract, addr string, score uint64) {
	scorer, err := env.Scorer(ctx, "")
	Expect(err).NotTo(HaveOccurred())
	d, err := scorer.Deploy(ctx, initiaL1Stage)
	Expect(err).NotTo(HaveOccurred())
	entries := env.Generate(3, 24)
	res, err := scorer.UpdateScores(ctx, initiaL1Stage, entries)
	Expect(err).NotTo(HaveOccurred())
	Expect(res.Confirmed).To(Equal(res.Chunks))
	return d.Contract, entries[0].Addr, entries[0].Amount
}

// cosmosScriptEnv is what every Initia.js script of a Cosmos rollup reads: its faces, chain,
// fee denom and the first funded mnemonic, and the L1 stand-in's.
func cosmosScriptEnv(env *harness.Env, feeDenom string) map[string]string {
	ep := env.Rollup.Endpoints()
	funded := env.Rollup.Funded()
	Expect(len(funded)).To(BeNumerically(">=", 2), "two funded accounts (the second signs the DIRECT_AUX tx)")
	Expect(funded[0].Mnemonic).NotTo(BeEmpty(), "the rollup's first funded account comes from a mnemonic")
	return map[string]string{
		"REST_URL": ep.REST, "RPC_URL": ep.CometRPC, "CHAIN_ID": env.Rollup.ChainID(),
		"MNEMONIC": funded[0].Mnemonic, "MNEMONIC2": funded[1].Mnemonic, "FEE_DENOM": feeDenom,
		"L1_REST_URL": env.L1.URL(), "L1_CHAIN_ID": l1.ChainID, "VIP_MODULE_ADDRESS": env.L1.VIPAddress(),
		"L1_STAGE": strconv.Itoa(initiaL1Stage), "STAGE": strconv.Itoa(initiaL1Stage),
		// Which node answers: Initia's real minitiad ("minitia") runs modules the project's
		// rollups do not (opchild's queries), and says so where a check differs.
		"ENGINE": env.Target.Engine.Name(),
	}
}

// expectAllPassed fails unless the script made exactly want calls and every one passed, and
// logs the count for the localnet.
func expectAllPassed(t harness.Target, script string, calls []call, err error, want int) {
	passed := len(calls) - len(failed(calls))
	fmt.Fprintf(GinkgoWriter, "%s on %s: %d of %d Initia.js calls passed\n", script, t, passed, len(calls))
	AddReportEntry("initia.js calls", fmt.Sprintf("%s on %s: %d/%d", script, t, passed, len(calls)))
	Expect(err).NotTo(HaveOccurred())
	Expect(failed(calls)).To(BeEmpty())
	Expect(calls).To(HaveLen(want), "the script must run every call to the end")
}

// feeDenom is the denom the rollup funded its first account with (the dev nodes fund the fee
// denom), read from the bank REST route.
func feeDenom(env *harness.Env) string {
	funded := env.Rollup.Funded()
	Expect(funded).NotTo(BeEmpty())
	addr := funded[0].Address
	if strings.HasPrefix(addr, "0x") { // an EVM rollup's account: its REST reads bech32 only
		b32, err := bech32.ConvertAndEncode("init", common.FromHex(addr))
		Expect(err).NotTo(HaveOccurred())
		addr = b32
	}
	resp, err := http.Get(env.Rollup.Endpoints().REST + "/cosmos/bank/v1beta1/balances/" + addr)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var out struct {
		Balances []struct {
			Denom string `json:"denom"`
		} `json:"balances"`
	}
	Expect(json.NewDecoder(resp.Body).Decode(&out)).To(Succeed())
	Expect(out.Balances).NotTo(BeEmpty(), "the first funded account holds a balance")
	return out.Balances[0].Denom
}
