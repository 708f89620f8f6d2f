package cli_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
)

// Every knob and input checked before anything is sent, on every VM: each refusal is exit 2
// and leaves the operator's nonce or sequence where it was.
var _ = Describe("input validated before anything is sent", func() {
	for _, target := range harness.Targets() {
		Context(target.String(), Label(string(target.VM), target.Engine.Name(), "cli", "validate"), Ordered, func() {
			const l1Stage = 3
			var (
				env                *harness.Env
				stateDir, small    string
				contract, notScore string
			)

			BeforeAll(func(ctx SpecContext) {
				var err error
				env, err = harness.Start(ctx, target, l1Stage, GinkgoT().TempDir())
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { Expect(env.Stop(ctx)).To(Succeed()) })
				stateDir = GinkgoT().TempDir()
				small, err = env.ScoreFile(GinkgoT().TempDir(), "small.csv")
				Expect(err).NotTo(HaveOccurred())
				out, code := env.RunVipctl(ctx, vipctl, stateDir, "deploy", "--json")
				Expect(code).To(Equal(0), out)
				var d vip.Deployment
				Expect(json.Unmarshal([]byte(out), &d)).To(Succeed(), out)
				contract = d.Contract
				// A fresh address in the VM's form: an account that holds no contract.
				s, err := env.Scorer(ctx, contract)
				Expect(err).NotTo(HaveOccurred())
				raw := make([]byte, 20)
				_, _ = rand.Read(raw)
				notScore = s.Codec().Encode(raw)
			}, NodeTimeout(5*time.Minute))

			// refused runs vipctl, wants exit 2 saying says, and the operator's nonce or
			// sequence unchanged.
			refused := func(ctx context.Context, says string, args ...string) {
				GinkgoHelper()
				before, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())
				out, code := env.RunVipctl(ctx, vipctl, stateDir, args...)
				Expect(code).To(Equal(2), out)
				Expect(out).To(ContainSubstring(says))
				after, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(after).To(Equal(before), "nothing may be sent: %s", out)
			}

			It("refuses knobs out of range, naming the flag", func(ctx SpecContext) {
				refused(ctx, "--chunk-size -5", "scores", "update", "--file", small, "--chunk-size", "-5")
				refused(ctx, "--window 0", "scores", "update", "--file", small, "--window", "0")
				refused(ctx, "--window -1", "scores", "update", "--file", small, "--window", "-1")
				// A push flag on a command that pushes nothing is refused as unknown.
				refused(ctx, "unknown flag: --window", "stage", "finalize", "--window", "0", "--force", "--yes")
				// --force closes a stage early only when it is named.
				refused(ctx, fmt.Sprintf("--stage %d --force", l1Stage), "stage", "finalize", "--force", "--yes")
			}, SpecTimeout(2*time.Minute))

			It("refuses a contract address that holds no scoring contract, before the first tx", func(ctx SpecContext) {
				refused(ctx, "not a scoring contract", "scores", "update", "--file", small, "--contract", notScore)
				refused(ctx, "not a scoring contract", "stage", "finalize", "--stage", fmt.Sprint(l1Stage), "--contract", notScore, "--force", "--yes")
			}, SpecTimeout(2*time.Minute))

			It("refuses a file still being written, and one rewritten while it is read", func(ctx SpecContext) {
				dir := GinkgoT().TempDir()
				cut := filepath.Join(dir, "cut.csv")
				b, err := os.ReadFile(small)
				Expect(err).NotTo(HaveOccurred())
				Expect(os.WriteFile(cut, []byte(strings.TrimRight(string(b), "\n")), 0o644)).To(Succeed())
				refused(ctx, "last line has no newline", "scores", "update", "--file", cut)

				// A large file that grows by whole valid lines all the time vipctl runs: every
				// read spans a write, and what it read would be a valid set of neither version.
				big := filepath.Join(dir, "big.csv")
				entries := env.Generate(300_000, 7)
				f, err := os.Create(big)
				Expect(err).NotTo(HaveOccurred())
				w := bufio.NewWriter(f)
				Expect(scores.Write(w, entries[:200_000], scores.CSV)).To(Succeed())
				Expect(w.Flush()).To(Succeed())
				stop, wg := make(chan struct{}), sync.WaitGroup{}
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					defer f.Close()
					for _, e := range entries[200_000:] {
						select {
						case <-stop:
							return
						case <-time.After(time.Millisecond):
						}
						_, err := fmt.Fprintf(f, "%s,%d\n", e.Addr, e.Amount)
						Expect(err).NotTo(HaveOccurred())
					}
				}()
				refused(ctx, "changed while it was read", "scores", "update", "--file", big)
				out, code := env.RunVipctl(ctx, vipctl, stateDir, "verify", "--file", big, "--stage", fmt.Sprint(l1Stage))
				close(stop)
				wg.Wait()
				Expect(code).To(Equal(2), out)
				Expect(out).To(ContainSubstring("changed while it was read"))
			}, SpecTimeout(3*time.Minute))

			It("still pushes the same file once it is whole", func(ctx SpecContext) {
				out, code := env.RunVipctl(ctx, vipctl, stateDir, "scores", "update", "--file", small)
				Expect(code).To(Equal(0), out)
			}, SpecTimeout(2*time.Minute))

			It("refuses a stage total above u64 before the first tx, and takes the limit itself", func(ctx SpecContext) {
				dir := GinkgoT().TempDir()
				write := func(name string, entries []scores.Entry) string {
					GinkgoHelper()
					path := filepath.Join(dir, name)
					f, err := os.Create(path)
					Expect(err).NotTo(HaveOccurred())
					Expect(scores.Write(f, entries, scores.CSV)).To(Succeed())
					Expect(f.Close()).To(Succeed())
					return path
				}
				fresh := env.Generate(3, 45)
				halves := []scores.Entry{{Addr: fresh[0].Addr, Amount: 1 << 63}, {Addr: fresh[1].Addr, Amount: 1 << 63}}
				refused(ctx, "above the u64 limit 18446744073709551615", "scores", "update", "--file", write("halves.csv", halves))

				s, err := env.Scorer(ctx, contract)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(s.Close)
				info, err := s.StageInfo(ctx, l1Stage)
				Expect(err).NotTo(HaveOccurred())
				Expect(info.TotalScore).To(BeNumerically(">", 0), "the stage holds the small file")
				top := []scores.Entry{{Addr: fresh[0].Addr, Amount: scores.MaxTotal - info.TotalScore}}
				out, code := env.RunVipctl(ctx, vipctl, stateDir, "scores", "update", "--file", write("top.csv", top))
				Expect(code).To(Equal(0), out)
				info, err = s.StageInfo(ctx, l1Stage)
				Expect(err).NotTo(HaveOccurred())
				Expect(info.TotalScore).To(Equal(scores.MaxTotal))
				refused(ctx, fmt.Sprintf("stage %d: the stage's total score would reach 18446744073709551616", l1Stage),
					"scores", "update", "--file", write("one-more.csv", []scores.Entry{{Addr: fresh[2].Addr, Amount: 1}}))
			}, SpecTimeout(3*time.Minute))

			It("refuses a chunk size no tx can hold, and verify of an address with no contract, with exit 2", func(ctx SpecContext) {
				refused(ctx, "--chunk-size", "scores", "update", "--file", small, "--chunk-size", "100000")
				refused(ctx, "not a scoring contract", "verify", "--file", small, "--stage", fmt.Sprint(l1Stage), "--contract", notScore)
			}, SpecTimeout(2*time.Minute))
		})
	}
})
