package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/snapshot"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/agent"
	"github.com/vipharness/vipharness/localnet/l1"
	"github.com/vipharness/vipharness/localnet/minitia"
)

const (
	l1Stage   = 3 // the L1's stage at start; bridges registered then score from stage 4
	first     = 4
	bridge    = 7 // snapshotted by the agent
	wrongTot  = 8 // snapshotted with another total
	wrongRoot = 9 // snapshotted with the right total and another root
)

type auditJSON struct {
	BridgeID     uint64 `json:"bridge_id"`
	Stage        uint64 `json:"stage"`
	MerkleRoot   string `json:"merkle_root"`
	TotalL2Score uint64 `json:"total_l2_score"`
	Leaves       int    `json:"leaves"`
	L1           *struct {
		Version uint64 `json:"version"`
		Verdict string `json:"verdict"`
	} `json:"l1"`
}

// readLines reads a proofs file into lines by address.
func readLines(path string) map[snapshot.Address]snapshot.ProofLine {
	f, err := os.Open(path)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	out := map[snapshot.Address]snapshot.ProofLine{}
	Expect(snapshot.ReadProofs(f, func(_ int, l snapshot.ProofLine) error { out[l.Address] = l; return nil })).To(Succeed())
	return out
}

func wantAbort(err error, category, reason uint64) {
	GinkgoHelper()
	a, ok := l1.Abort(err)
	Expect(ok).To(BeTrue(), "want a Move abort, got %v", err)
	Expect([2]uint64{a.Category(), a.Reason()}).To(Equal([2]uint64{category, reason}), "abort %s code %d", a.Module, a.Code)
}

var _ = Describe("vipctl audit", func() {
	for _, target := range harness.Targets() {
		Context(target.String(), Label(string(target.VM), target.Engine.Name(), "audit"), Ordered, func() {
			var (
				env      *harness.Env
				scorer   *deployer.Scorer
				contract string
				stateDir string
				userKey  minitia.Account
				userAddr snapshot.Address
				sets     = map[uint64][]scores.Entry{}
			)

			AfterEach(func() {
				if CurrentSpecReport().Failed() && env != nil {
					if logs := env.FailureLogs(); logs != "" {
						AddReportEntry("node log", logs)
					}
				}
			})

			BeforeAll(func(ctx SpecContext) {
				mnemonic, err := minitia.NewMnemonic()
				Expect(err).NotTo(HaveOccurred())
				userKey, err = minitia.DeriveAccount(mnemonic, vip.EthSecp256k1, "init")
				Expect(err).NotTo(HaveOccurred())
				userAddr, err = snapshot.L1Address(userKey.Key.PubKey().Address())
				Expect(err).NotTo(HaveOccurred())
				var opts []l1.Option
				for _, id := range []uint64{bridge, wrongTot, wrongRoot} {
					opts = append(opts, l1.WithBridge(l1.Bridge{ID: id, VM: target.VM, Contract: "scoring contract"}))
				}
				env, err = harness.Start(ctx, target, l1Stage, GinkgoT().TempDir(), append(opts, l1.WithFundedMnemonic(mnemonic))...)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { Expect(env.Stop(ctx)).To(Succeed()) }, NodeTimeout(30*time.Second))
				stateDir = GinkgoT().TempDir()
			}, NodeTimeout(2*time.Minute))

			It("operate finalizes two stages while the L1 moves, and the agent snapshots each", func(ctx SpecContext) {
				var err error
				scorer, err = env.Scorer(ctx, "")
				Expect(err).NotTo(HaveOccurred())
				d, err := scorer.Deploy(ctx, first)
				Expect(err).NotTo(HaveOccurred())
				contract = d.Contract
				ag := agent.New(env.L1, bridge, func(context.Context) (scores.StageReader, error) { return scorer, nil })
				done, err := ag.Step(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(done).To(BeEmpty(), "the L1 is still at stage %d: nothing is due", l1Stage)

				// The team's scoring query, as operate runs it: stage-N.csv for VIP_STAGE=N.
				srcDir := GinkgoT().TempDir()
				query := fmt.Sprintf(`cat %q/stage-$VIP_STAGE.csv`, srcDir)
				user := scorer.Codec().Encode(userKey.Key.PubKey().Address())
				// A live query has the open stage's scores too: operate pushes them each pass.
				for i, st := range []uint64{first, first + 1} {
					set := append(env.Generate(30+i*7, int64(50+i)), scores.Entry{Addr: user, Amount: uint64(123 + i)})
					set[0].Amount = 0 // a zero score is a leaf too
					var b bytes.Buffer
					Expect(scores.Write(&b, set, scores.CSV)).To(Succeed())
					Expect(os.WriteFile(filepath.Join(srcDir, fmt.Sprintf("stage-%d.csv", st)), b.Bytes(), 0o600)).To(Succeed())
					sets[st] = set
				}
				Expect(os.WriteFile(filepath.Join(srcDir, fmt.Sprintf("stage-%d.csv", first+2)), []byte(user+",1\n"), 0o600)).To(Succeed())
				for _, st := range []uint64{first, first + 1} {
					// The L1 moves past st: one operate pass pushes st's final scores and
					// finalizes it; the agent then snapshots st, and only st.
					Expect(env.L1.Set(ctx, st+1)).To(Succeed())
					out, code := env.RunVipctl(ctx, vipctl, stateDir, "--contract", contract, "operate", "--command", query, "--once")
					Expect(code).To(Equal(0), out)
					info, err := scorer.StageInfo(ctx, st)
					Expect(err).NotTo(HaveOccurred())
					Expect(info.Finalized).To(BeTrue(), "operate finalized stage %d:\n%s", st, out)
					done, err = ag.Step(ctx)
					Expect(err).NotTo(HaveOccurred())
					Expect(done).To(Equal([]uint64{st}))
				}
				done, err = ag.Step(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(done).To(BeEmpty(), "a snapshot is submitted once")
			}, SpecTimeout(4*time.Minute))

			It("rebuilds each snapshot: `vipctl audit` matches the L1 and writes every address's proof", func(ctx SpecContext) {
				for _, st := range []uint64{first, first + 1} {
					proofs := filepath.Join(stateDir, "proofs-"+strconv.FormatUint(st, 10)+".jsonl")
					out, code := env.RunVipctl(ctx, vipctl, stateDir, "--json", "--contract", contract, "audit", "--stage", strconv.FormatUint(st, 10), "--bridge-id", strconv.Itoa(bridge), "--proofs", proofs)
					Expect(code).To(Equal(0), out)
					var got auditJSON
					Expect(json.Unmarshal([]byte(out), &got)).To(Succeed(), out)

					// Our own tree of the scores we pushed, keyed as the L1 sees them.
					b := snapshot.NewBuilder(bridge, st, 0)
					var total uint64
					for _, e := range sets[st] {
						raw, err := scorer.Codec().Decode(e.Addr)
						Expect(err).NotTo(HaveOccurred())
						Expect(b.Add(raw, e.Amount)).To(Succeed())
						total += e.Amount
					}
					tr, err := b.Build()
					Expect(err).NotTo(HaveOccurred())
					Expect(got).To(MatchFields(got, tr, total, st))

					lines := readLines(proofs)
					Expect(lines).To(HaveLen(len(sets[st])))
					for addr, l := range lines {
						Expect(snapshot.Verify(l.Proof, tr.Root(), snapshot.ScoreHash(bridge, st, addr, l.Score, total))).To(Succeed())
					}
					Expect(lines).To(HaveKey(userAddr))
				}
			}, SpecTimeout(2*time.Minute))

			It("a user's proof line, signed by that user, passes the L1's claim entry; tampered lines are refused", func(ctx SpecContext) {
				// Claims start in a later second than the snapshot (challenge period 0), by the L1's block clock.
				Expect(env.L1.AwaitSecondAfter(ctx, time.Now())).To(Succeed())
				line4 := readLines(filepath.Join(stateDir, "proofs-4.jsonl"))[userAddr]
				line5 := readLines(filepath.Join(stateDir, "proofs-5.jsonl"))[userAddr]
				Expect(line4.Score).To(BeEquivalentTo(123))

				claim := func(stages []uint64, lines ...snapshot.ProofLine) error {
					args, err := audit.ClaimArgs(bridge, 1, stages, lines)
					Expect(err).NotTo(HaveOccurred())
					return env.L1.Claim(ctx, userKey.Key, args)
				}
				only5 := []uint64{first + 1}
				raised := line5
				raised.Score++
				wantAbort(claim(only5, raised), 0x1, 10) // EINVALID_MERKLE_PROOFS
				bent := line5
				bent.Proof = [][]byte{bytes.Repeat([]byte{7}, 32)}
				bent.Proof = append(bent.Proof, line5.Proof[1:]...)
				wantAbort(claim(only5, bent), 0x1, 10)

				Expect(claim([]uint64{first, first + 1}, line4, line5)).To(Succeed())
			}, SpecTimeout(2*time.Minute))

			It("exits 4 on a snapshot of another total, whose proofs the claim refuses too", func(ctx SpecContext) {
				b := snapshot.NewBuilder(wrongTot, first, 0)
				for _, e := range sets[first] {
					raw, err := scorer.Codec().Decode(e.Addr)
					Expect(err).NotTo(HaveOccurred())
					Expect(b.Add(raw, e.Amount)).To(Succeed())
				}
				tr, err := b.Build()
				Expect(err).NotTo(HaveOccurred())
				root := tr.Root()
				Expect(env.L1.SubmitSnapshot(ctx, wrongTot, 1, first, root[:], tr.Total+1)).To(Succeed())
				submitted := time.Now() // after the snapshot's block: its create_time is no later

				proofs := filepath.Join(stateDir, "proofs-wrong.jsonl")
				out, code := env.RunVipctl(ctx, vipctl, stateDir, "--contract", contract, "audit", "--stage", strconv.Itoa(first), "--bridge-id", strconv.Itoa(wrongTot), "--proofs", proofs)
				Expect(code).To(Equal(4), out)
				Expect(out).To(ContainSubstring("total_l2_score is " + strconv.FormatUint(tr.Total+1, 10)))
				Expect(out).To(ContainSubstring("the contract's " + strconv.FormatUint(tr.Total, 10)))

				Expect(env.L1.AwaitSecondAfter(ctx, submitted)).To(Succeed())
				args, err := audit.ClaimArgs(wrongTot, 1, []uint64{first}, []snapshot.ProofLine{readLines(proofs)[userAddr]})
				Expect(err).NotTo(HaveOccurred())
				wantAbort(env.L1.Claim(ctx, userKey.Key, args), 0x1, 10)
			}, SpecTimeout(2*time.Minute))

			It("warns on the same total with another root, and --l1-proofs fails lines that miss the L1's root", func(ctx SpecContext) {
				var total uint64
				for _, e := range sets[first] {
					total += e.Amount
				}
				Expect(env.L1.SubmitSnapshot(ctx, wrongRoot, 1, first, bytes.Repeat([]byte{0xab}, 32), total)).To(Succeed())
				ours := filepath.Join(stateDir, "proofs-root.jsonl")
				out, code := env.RunVipctl(ctx, vipctl, stateDir, "--contract", contract, "audit", "--stage", strconv.Itoa(first), "--bridge-id", strconv.Itoa(wrongRoot), "--proofs", ours)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("tree shape is not published"))

				out, code = env.RunVipctl(ctx, vipctl, stateDir, "--contract", contract, "audit", "--stage", strconv.Itoa(first), "--bridge-id", strconv.Itoa(wrongRoot), "--l1-proofs", ours)
				Expect(code).To(Equal(4), out)
				zeros := 0
				for _, e := range sets[first] {
					if e.Amount == 0 {
						zeros++
					}
				}
				Expect(out).To(ContainSubstring(strconv.Itoa(len(sets[first])-zeros) + " fail"))
				Expect(out).To(ContainSubstring("EINVALID_MERKLE_PROOFS"))
			}, SpecTimeout(2*time.Minute))

			It("refuses a stage that is not finalized, and previews it with --allow-open", func(ctx SpecContext) {
				open := strconv.Itoa(first + 2)
				out, code := env.RunVipctl(ctx, vipctl, stateDir, "--contract", contract, "audit", "--stage", open, "--bridge-id", strconv.Itoa(bridge))
				Expect(code).To(Equal(2), out)
				Expect(out).To(ContainSubstring("not finalized"))
				out, code = env.RunVipctl(ctx, vipctl, stateDir, "--contract", contract, "audit", "--stage", open, "--bridge-id", strconv.Itoa(bridge), "--allow-open")
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("a preview"))
				Expect(out).To(ContainSubstring("no snapshot"))
			}, SpecTimeout(time.Minute))
		})
	}
})

// MatchFields checks audit's JSON against our own tree of the pushed scores.
func MatchFields(got auditJSON, tr *snapshot.Tree, total, stage uint64) OmegaMatcher {
	return SatisfyAll(
		WithTransform(func(a auditJSON) string { return a.MerkleRoot }, Equal(tr.Root().String())),
		WithTransform(func(a auditJSON) uint64 { return a.TotalL2Score }, Equal(total)),
		WithTransform(func(a auditJSON) int { return a.Leaves }, Equal(tr.Len())),
		WithTransform(func(a auditJSON) uint64 { return a.Stage }, Equal(stage)),
		WithTransform(func(a auditJSON) string {
			if a.L1 == nil {
				return "no l1"
			}
			return a.L1.Verdict + "/" + strconv.FormatUint(a.L1.Version, 10)
		}, Equal("match/1")),
		WithTransform(func(a auditJSON) bool { return strings.HasPrefix(a.MerkleRoot, "0x") }, BeFalse()),
	)
}
