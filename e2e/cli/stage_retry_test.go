package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
)

// The retry scenario on every VM: a CI job that runs `stage finalize` twice, or
// `scores update` after the L1 moved, must not finalize a stage early or empty, and must not
// send a second effect.
var _ = Describe("stage commands retried", func() {
	for _, target := range harness.Targets() {
		Context(target.String(), Label(string(target.VM), target.Engine.Name(), "cli", "retry"), Ordered, func() {
			const l1Stage = 5
			var (
				env            *harness.Env
				stateDir, file string
				contract       string
				scorer         *deployer.Scorer
			)

			BeforeAll(func(ctx SpecContext) {
				var err error
				env, err = harness.Start(ctx, target, l1Stage, GinkgoT().TempDir())
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { Expect(env.Stop(ctx)).To(Succeed()) })
				stateDir = GinkgoT().TempDir()
				file, err = env.ScoreFile(GinkgoT().TempDir(), "small.csv")
				Expect(err).NotTo(HaveOccurred())
			})

			run := func(ctx context.Context, dir string, args ...string) (string, int) {
				return env.RunVipctl(ctx, vipctl, dir, args...)
			}
			// sendsNothing runs vipctl and asserts the operator sent no tx.
			sendsNothing := func(ctx context.Context, wantCode int, args ...string) string {
				before, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())
				out, code := run(ctx, stateDir, args...)
				Expect(code).To(Equal(wantCode), out)
				after, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(after).To(Equal(before), "nothing may be sent: %s", out)
				return out
			}
			openStage := func(ctx context.Context) uint64 {
				st, err := scorer.OpenStage(ctx)
				Expect(err).NotTo(HaveOccurred())
				return st
			}

			It("deploys at the L1 stage and pushes to it without --stage", func(ctx SpecContext) {
				out, code := run(ctx, stateDir, "deploy", "--json")
				Expect(code).To(Equal(0), out)
				var d vip.Deployment
				Expect(json.Unmarshal([]byte(out), &d)).To(Succeed(), out)
				Expect(d.InitStage).To(BeEquivalentTo(l1Stage))
				contract = d.Contract
				var err error
				scorer, err = env.Scorer(ctx, d.Contract)
				Expect(err).NotTo(HaveOccurred())
				out, code = run(ctx, stateDir, "scores", "update", "--file", file)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring(fmt.Sprintf("stage %d:", l1Stage)))
				out, code = run(ctx, stateDir, "verify", "--file", file)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring(fmt.Sprintf("stage %d:", l1Stage)))
			}, SpecTimeout(2*time.Minute))

			It("reports the deployment on a second deploy: exit 0, nothing sent, the same contract", func(ctx SpecContext) {
				out := sendsNothing(ctx, 0, "deploy", "--json")
				var d vip.Deployment
				Expect(json.Unmarshal([]byte(out), &d)).To(Succeed(), out)
				Expect(d.Status).To(Equal(vip.StatusAlready), out)
				Expect(d.Contract).To(Equal(contract))
				Expect(d.InitStage).To(BeEquivalentTo(l1Stage))
				out = sendsNothing(ctx, 0, "deploy")
				Expect(out).To(ContainSubstring(fmt.Sprintf("already deployed at %s stage %d", contract, l1Stage)))
				// The default contract is still the one deployed.
				states, err := filepath.Glob(filepath.Join(stateDir, "deployments", "*.json"))
				Expect(err).NotTo(HaveOccurred())
				Expect(states).To(HaveLen(1))
				b, err := os.ReadFile(states[0])
				Expect(err).NotTo(HaveOccurred())
				Expect(string(b)).To(ContainSubstring(contract))
				if target.VM == vip.Move {
					// One vip_score per deployer: --new is refused by name, not by an abort code.
					out = sendsNothing(ctx, 2, "deploy", "--new")
					Expect(out).To(And(ContainSubstring("already deployed at "+contract), ContainSubstring("--new cannot")))
					Expect(out).NotTo(ContainSubstring("EDEPLOYER_ALREADY_ADDED"))
				}
			}, SpecTimeout(time.Minute))

			It("refuses to finalize a stage the L1 has not moved past, naming both stages", func(ctx SpecContext) {
				out := sendsNothing(ctx, 2, "stage", "finalize")
				Expect(out).To(And(ContainSubstring("open stage is 5"), ContainSubstring("L1 is at stage 5")))
				out = sendsNothing(ctx, 2, "stage", "finalize", "--stage", "5")
				Expect(out).To(ContainSubstring("--force"))
				out = sendsNothing(ctx, 2, "stage", "finalize", "--stage", "5", "--force")
				Expect(out).To(ContainSubstring("--yes"), "no terminal: a forced finalize still needs --yes")
				Expect(openStage(ctx)).To(BeEquivalentTo(5))
			}, SpecTimeout(time.Minute))

			It("finalizes once the L1 moved on, and a retry changes nothing", func(ctx SpecContext) {
				_, err := env.L1.Advance(ctx)
				Expect(err).NotTo(HaveOccurred())
				out, code := run(ctx, stateDir, "stage", "finalize", "--json")
				Expect(code).To(Equal(0), out)
				var first struct {
					Stage  uint64 `json:"stage"`
					TxHash string `json:"tx_hash"`
				}
				Expect(json.Unmarshal([]byte(out), &first)).To(Succeed(), out)
				Expect(first.Stage).To(BeEquivalentTo(5))
				Expect(first.TxHash).NotTo(BeEmpty())
				Expect(openStage(ctx)).To(BeEquivalentTo(6))

				// The CI retry of the issue: without --stage it now refuses (6 is open, L1 at 6).
				out = sendsNothing(ctx, 2, "stage", "finalize")
				Expect(out).To(And(ContainSubstring("open stage is 6"), ContainSubstring("L1 is at stage 6")))
				// With --stage it reports the earlier tx.
				out = sendsNothing(ctx, 0, "stage", "finalize", "--stage", "5")
				Expect(out).To(ContainSubstring(fmt.Sprintf("stage 5 already finalized (tx %s)", first.TxHash)))
				// From another state dir (no record): the tx comes from the chain's events.
				out, code = run(ctx, GinkgoT().TempDir(), "stage", "finalize", "--stage", "5", "--contract", contract)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring(fmt.Sprintf("stage 5 already finalized (tx %s)", first.TxHash)))
				Expect(openStage(ctx)).To(BeEquivalentTo(6))
				info, err := scorer.StageInfo(ctx, 6)
				Expect(err).NotTo(HaveOccurred())
				Expect(info.Finalized).To(BeFalse())
			}, SpecTimeout(time.Minute))

			It("writes the L1 stage without --stage only when the contract agrees, else names stage sync", func(ctx SpecContext) {
				out, code := run(ctx, stateDir, "scores", "update", "--file", file)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("stage 6:"))
				_, err := env.L1.Advance(ctx)
				Expect(err).NotTo(HaveOccurred())
				out = sendsNothing(ctx, 2, "scores", "update", "--file", file)
				Expect(out).To(And(ContainSubstring("stage sync"), ContainSubstring("L1 is at stage 7"), ContainSubstring("open stage is 6")))
				// verify defaults to the stage the file was last pushed to.
				out, code = run(ctx, stateDir, "verify", "--file", file)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("stage 6:"))
			}, SpecTimeout(time.Minute))

			It("finalizes an empty stage only with --allow-empty and --yes", func(ctx SpecContext) {
				out, code := run(ctx, stateDir, "stage", "finalize", "--yes")
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("finalized stage 6"))
				_, err := env.L1.Advance(ctx)
				Expect(err).NotTo(HaveOccurred())
				out = sendsNothing(ctx, 2, "stage", "finalize")
				Expect(out).To(And(ContainSubstring("stage 7 is empty"), ContainSubstring("--allow-empty")))
				out = sendsNothing(ctx, 2, "stage", "finalize", "--allow-empty")
				Expect(out).To(ContainSubstring("--yes"))
				out, code = run(ctx, stateDir, "stage", "finalize", "--allow-empty", "--yes")
				Expect(code).To(Equal(0), out)
				Expect(openStage(ctx)).To(BeEquivalentTo(8))
			}, SpecTimeout(time.Minute))
		})
	}
})
