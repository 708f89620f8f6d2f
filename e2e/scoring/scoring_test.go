package scoring_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/l1"
)

const l1Stage = 5

// The same specs run for every VM on every engine that harness.Targets returns.
var _ = Describe("VIP scoring", func() {
	for _, target := range harness.Targets() {
		Context(target.String(), Label(string(target.VM), target.Engine.Name()), Ordered, func() {
			var (
				env      *harness.Env
				scorer   *deployer.Scorer
				contract string
				expect   = harness.Expected[target.VM]
			)

			// Node logs only for failed specs.
			AfterEach(func() {
				if CurrentSpecReport().Failed() && env != nil {
					if logs := env.FailureLogs(); logs != "" {
						AddReportEntry("node log", logs)
					}
				}
			})

			BeforeAll(func(ctx SpecContext) {
				var err error
				env, err = harness.Start(ctx, target, l1Stage, GinkgoT().TempDir())
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) {
					Expect(env.Stop(ctx)).To(Succeed())
				}, NodeTimeout(30*time.Second))

			}, NodeTimeout(2*time.Minute))

			It("deploys at the stage the L1 reports", func(ctx SpecContext) {
				st, err := l1node.NewReader(env.L1.URL(), env.L1.VIPAddress(), nil).Stage(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(st).To(BeEquivalentTo(l1Stage))

				ver, err := cosmosnode.New("", env.Rollup.Endpoints().CometRPC, nil).ABCIInfo(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(ver.Version).NotTo(BeEmpty())

				scorer, err = env.Scorer(ctx, "")
				Expect(err).NotTo(HaveOccurred())
				d, err := scorer.Deploy(ctx, st)
				Expect(err).NotTo(HaveOccurred())
				contract = d.Contract
				Expect(d.InitStage).To(BeEquivalentTo(l1Stage))

				open, err := scorer.OpenStage(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(open).To(BeEquivalentTo(l1Stage))
				info, err := scorer.StageInfo(ctx, l1Stage)
				Expect(err).NotTo(HaveOccurred())
				Expect(info).To(Equal(vip.StageInfo{Stage: l1Stage, Exists: true}))
			}, SpecTimeout(time.Minute))

			It("pushes the fixture score set and reads it back", func(ctx SpecContext) {
				path, err := env.ScoreFile(GinkgoT().TempDir(), "small.csv")
				Expect(err).NotTo(HaveOccurred())
				entries, err := scores.ParseFile(path, "")
				Expect(err).NotTo(HaveOccurred())
				canonical, err := scores.Validate(entries, scorer.CheckAddress)
				Expect(err).NotTo(HaveOccurred())

				res, err := scorer.UpdateScores(ctx, l1Stage, canonical)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.Confirmed).To(Equal(res.Chunks))

				rep, err := deployer.Verify(ctx, scorer, l1Stage, canonical)
				Expect(err).NotTo(HaveOccurred())
				Expect(rep.Mismatches).To(BeEmpty())
				Expect(rep.OK()).To(BeTrue())
				Expect(rep.InputTotal.Equal(rep.TotalScore)).To(BeTrue(), "input total %s, on chain %d", rep.InputTotal, rep.TotalScore)
			}, SpecTimeout(time.Minute))

			It("pushes 10,000 addresses in several chunks, and a re-run sends nothing", func(ctx SpecContext) {
				entries := env.Generate(10_000, 42)
				before, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())

				res, err := scorer.UpdateScores(ctx, l1Stage, entries)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.Chunks).To(BeNumerically(">", 1))
				Expect(res.Confirmed).To(Equal(res.Chunks))
				after, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(after - before).To(BeEquivalentTo(res.Chunks))

				again, err := scorer.UpdateScores(ctx, l1Stage, entries)
				Expect(err).NotTo(HaveOccurred())
				Expect(again.Confirmed).To(BeZero())
				Expect(again.Resumed).To(Equal(res.Chunks))
				final, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(final).To(Equal(after), "a re-run of a confirmed push must send nothing")

				rep, err := deployer.Verify(ctx, scorer, l1Stage, entries)
				Expect(err).NotTo(HaveOccurred())
				Expect(rep.Mismatches).To(BeEmpty())
				Expect(rep.Matched).To(Equal(10_000))
				Expect(rep.TotalsAgree).To(BeTrue())
			}, SpecTimeout(3*time.Minute))

			It("rejects a sender that is not on the allow list, sending nothing", func(ctx SpecContext) {
				stranger, err := env.Stranger(ctx, contract)
				Expect(err).NotTo(HaveOccurred())
				// The interface check (vipctl check --contract, and every write command
				// before its first tx) proves the operator may write: a stranger's fails.
				_, err = stranger.CheckInterface(ctx)
				Expect(err).To(MatchError(vip.ErrCannotWrite))
				Expect(harness.ContractError(err)).To(Equal(expect["not allowed"]), "%v", err)
				_, err = stranger.UpdateScores(ctx, l1Stage, env.Generate(3, 7))
				Expect(harness.ContractError(err)).To(Equal(expect["not allowed"]), "%v", err)
				_, err = stranger.FinalizeStage(ctx, l1Stage)
				Expect(harness.ContractError(err)).To(Equal(expect["not allowed"]), "%v", err)
			}, SpecTimeout(time.Minute))

			It("rejects mismatched address and score lists", func(ctx SpecContext) {
				if expect["length mismatch"] == "" {
					Skip(target.String() + ": update_scores takes [address, score] pairs, so the lists cannot differ in length")
				}
				err := env.CallMismatched(ctx, contract, l1Stage)
				Expect(harness.ContractError(err)).To(Equal(expect["length mismatch"]), "%v", err)
			}, SpecTimeout(time.Minute))

			It("rejects an update of a stage that does not exist", func(ctx SpecContext) {
				_, err := scorer.UpdateScores(ctx, l1Stage+3, env.Generate(2, 8))
				Expect(harness.ContractError(err)).To(Equal(expect["missing stage"]), "%v", err)
			}, SpecTimeout(time.Minute))

			It("refuses stage zero before sending", func(ctx SpecContext) {
				fresh, err := env.Scorer(ctx, "")
				Expect(err).NotTo(HaveOccurred())
				before, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())
				_, err = fresh.Deploy(ctx, 0)
				Expect(err).To(MatchError(ContainSubstring("stage")))
				after, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(after).To(Equal(before))
			}, SpecTimeout(time.Minute))

			DescribeTable("rejects malformed score files without sending anything",
				func(ctx SpecContext, file, problem string) {
					before, err := env.OperatorSequence(ctx)
					Expect(err).NotTo(HaveOccurred())
					path, err := env.ScoreFile(GinkgoT().TempDir(), file)
					Expect(err).NotTo(HaveOccurred())
					entries, err := scores.ParseFile(path, "")
					if err == nil {
						_, err = scorer.UpdateScores(ctx, l1Stage, entries)
					}
					Expect(err).To(MatchError(ContainSubstring(problem)))
					after, err := env.OperatorSequence(ctx)
					Expect(err).NotTo(HaveOccurred())
					Expect(after).To(Equal(before))
				},
				Entry("bad checksum", "bad-checksum.csv", "checksum"),
				Entry("duplicate address", "duplicate.csv", "duplicate"),
				Entry("score over u64", "overflow.csv", "range"),
				Entry("empty file", "empty.csv", "empty"),
			)

			It("finalizes the stage, opens the next, and refuses further updates and a re-finalize", func(ctx SpecContext) {
				before, err := scorer.Scores(ctx, l1Stage)
				Expect(err).NotTo(HaveOccurred())
				_, err = scorer.FinalizeStage(ctx, l1Stage)
				Expect(err).NotTo(HaveOccurred())

				info, err := scorer.StageInfo(ctx, l1Stage)
				Expect(err).NotTo(HaveOccurred())
				Expect(info.Finalized).To(BeTrue())
				open, err := scorer.OpenStage(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(open).To(BeEquivalentTo(l1Stage + 1))

				_, err = scorer.UpdateScores(ctx, l1Stage, before[:2])
				Expect(harness.ContractError(err)).To(Equal(expect["finalized"]), "%v", err)

				// Re-finalizing is refused and leaves the next stage as it was.
				next := env.Generate(2, 11)
				_, err = scorer.UpdateScores(ctx, l1Stage+1, next)
				Expect(err).NotTo(HaveOccurred())
				nextBefore, err := scorer.StageInfo(ctx, l1Stage+1)
				Expect(err).NotTo(HaveOccurred())
				_, err = scorer.FinalizeStage(ctx, l1Stage)
				Expect(harness.ContractError(err)).To(Equal(expect["refinalize"]), "%v", err)
				nextAfter, err := scorer.StageInfo(ctx, l1Stage+1)
				Expect(err).NotTo(HaveOccurred())
				Expect(nextAfter).To(Equal(nextBefore))
				Expect(nextAfter.TotalScore).To(Equal(next[0].Amount + next[1].Amount))

				after, err := scorer.Scores(ctx, l1Stage)
				Expect(err).NotTo(HaveOccurred())
				Expect(after).To(Equal(before), "finalized scores never change")
			}, SpecTimeout(time.Minute))

			It("syncs the contract's open stage up to the L1 stage", func(ctx SpecContext) {
				Expect(env.L1.Set(ctx, l1Stage+4)).To(Succeed())
				target, err := l1node.NewReader(env.L1.URL(), env.L1.VIPAddress(), nil).Stage(ctx)
				Expect(err).NotTo(HaveOccurred())
				done, err := deployer.SyncStage(ctx, scorer, target, func(from, to uint64) bool { return true })
				Expect(err).NotTo(HaveOccurred())
				Expect(done).To(Equal([]uint64{l1Stage + 1, l1Stage + 2, l1Stage + 3}))
				open, err := scorer.OpenStage(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(open).To(BeEquivalentTo(l1Stage + 4))
			}, SpecTimeout(time.Minute))

			It("reports an unreachable L1 with its URL", func(ctx SpecContext) {
				url := env.L1.URL()
				down, err := l1.Start(ctx)
				Expect(err).NotTo(HaveOccurred())
				deadURL := down.URL()
				Expect(down.Close()).To(Succeed())
				_, err = l1node.NewReader(deadURL, env.L1.VIPAddress(), nil).Stage(ctx)
				Expect(err).To(MatchError(ContainSubstring(deadURL)))
				Expect(url).NotTo(Equal(deadURL))
			}, SpecTimeout(time.Minute))
		})
	}
})
