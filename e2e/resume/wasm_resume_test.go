package resume_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	cmttypes "github.com/cometbft/cometbft/types"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/bindings/vipwasm"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/cosmostx"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/wasm"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// The same crash test on a Wasm rollup: vipctl --vm wasm killed with SIGKILL at several points
// of one push, then run again until it completes; every address lands in exactly one
// successful update_scores tx.
var _ = Describe("a Wasm push killed with SIGKILL", Label("wasm", "embedded", "crash"), func() {
	It("resumes from its journal and lands every chunk exactly once", func(ctx SpecContext) {
		const stage, n, chunk = 3, 5000, 100
		r, err := embedded.StartWasm(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) { Expect(r.Stop(ctx)).To(Succeed()) })
		ep := r.Endpoints()
		dev := r.Funded()[0]

		// Deploy through vipctl too, with the mnemonic from the environment (coin type 118).
		dir := GinkgoT().TempDir()
		stateDir := filepath.Join(dir, "state")
		env := append(os.Environ(), "VM=wasm", "COMET_RPC_URL="+ep.CometRPC, "REST_URL="+ep.REST, "MNEMONIC="+dev.Mnemonic, "PRIVATE_KEY=")
		deploy := exec.CommandContext(ctx, vipctl, "deploy", "--stage", fmt.Sprint(stage), "--state-dir", stateDir, "--json")
		deploy.Env = env
		out, err := deploy.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		var d deployer.Deployment
		Expect(json.Unmarshal(out, &d)).To(Succeed(), string(out))
		startHeight := r.Node().Height()

		c, err := cosmostx.Dial(ctx, ep.CometRPC, ep.REST, cosmostx.WithMessages(wasmtypes.RegisterInterfaces))
		Expect(err).NotTo(HaveOccurred())
		entries := scores.GenerateBech32(n, 99, c.Prefix())
		file := filepath.Join(dir, "scores.csv")
		f, err := os.Create(file)
		Expect(err).NotTo(HaveOccurred())
		Expect(scores.Write(f, entries, scores.CSV)).To(Succeed())
		Expect(f.Close()).To(Succeed())

		run := func(killAfterRecords int) (bool, string) {
			return runVipctl(ctx, env, stateDir, killAfterRecords, "scores", "update", "--file", file, "--stage", fmt.Sprint(stage),
				"--state-dir", stateDir, "--chunk-size", fmt.Sprint(chunk), "--window", "4", "--no-progress")
		}
		phrase := strings.Join(strings.Fields(dev.Mnemonic)[:4], " ")
		for _, at := range []int{2, 17, 48, 80} {
			killed, out := run(at)
			if !killed {
				Fail("the push finished before the kill at record " + fmt.Sprint(at) + ": " + out)
			}
			Expect(out).NotTo(ContainSubstring(phrase), "the mnemonic must never be printed")
		}
		_, out2 := run(0)
		Expect(out2).To(ContainSubstring("chunks confirmed"))
		Expect(out2).NotTo(ContainSubstring(phrase))

		s, err := wasm.Dial(ctx, ep.CometRPC, ep.REST, wasm.WithContract(d.Contract))
		Expect(err).NotTo(HaveOccurred())
		rep, err := deployer.Verify(ctx, s, stage, entries)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Mismatches).To(BeEmpty())
		Expect(rep.Matched).To(Equal(n))
		Expect(rep.TotalsAgree).To(BeTrue())

		// Every address went out in exactly one successful update_scores tx.
		sent := map[string]int{}
		txs := 0
		decode := c.Enc.TxConfig.TxDecoder()
		for h := startHeight + 1; h <= r.Node().Height(); h++ {
			height := int64(h)
			b, err := c.RPC.Block(ctx, &height)
			Expect(err).NotTo(HaveOccurred())
			for _, raw := range b.Block.Txs {
				tx, err := decode(raw)
				Expect(err).NotTo(HaveOccurred())
				out, err := c.Lookup(ctx, fmt.Sprintf("%X", cmttypes.Tx(raw).Hash()))
				Expect(err).NotTo(HaveOccurred())
				if !out.Success {
					continue
				}
				for _, m := range tx.GetMsgs() {
					exec, ok := m.(*wasmtypes.MsgExecuteContract)
					if !ok || exec.Contract != d.Contract {
						continue
					}
					var msg vipwasm.Execute
					Expect(json.Unmarshal(exec.Msg, &msg)).To(Succeed())
					if msg.UpdateScores == nil {
						continue
					}
					txs++
					for _, p := range msg.UpdateScores.Scores {
						sent[p.Addr]++
					}
				}
			}
		}
		Expect(txs).To(Equal(n / chunk))
		Expect(sent).To(HaveLen(n))
		for a, k := range sent {
			Expect(k).To(Equal(1), "address %s sent %d times", a, k)
		}
	}, SpecTimeout(5*time.Minute))
})
