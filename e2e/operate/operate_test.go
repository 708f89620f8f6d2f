package operate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet"
)

// source is the team's scoring query as the operator sees it: a shell command that prints
// stage-N.csv for VIP_STAGE=N, fails while a "fail" file exists, and prints a valid set with
// one bad line appended while a "malformed" file exists.
type source struct {
	dir  string
	mu   sync.Mutex
	sets map[uint64][]scores.Entry
}

func (s *source) command() string {
	return fmt.Sprintf(`d=%q; if [ -e "$d/fail" ]; then echo "scoring query failed: database unavailable" >&2; exit 1; fi; `+
		`cat "$d/stage-$VIP_STAGE.csv" 2>/dev/null; if [ -e "$d/malformed" ]; then echo "0x1234,5"; fi`, s.dir)
}

// set replaces stage's scores atomically (write, then rename).
func (s *source) set(stage uint64, entries []scores.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b bytes.Buffer
	Expect(scores.Write(&b, entries, scores.CSV)).To(Succeed())
	path := filepath.Join(s.dir, fmt.Sprintf("stage-%d.csv", stage))
	Expect(os.WriteFile(path+".tmp", b.Bytes(), 0o644)).To(Succeed())
	Expect(os.Rename(path+".tmp", path)).To(Succeed())
	s.sets[stage] = append([]scores.Entry(nil), entries...)
}

func (s *source) get(stage uint64) []scores.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sets[stage]
}

func (s *source) flag(name string, on bool) {
	path := filepath.Join(s.dir, name)
	if on {
		Expect(os.WriteFile(path, nil, 0o644)).To(Succeed())
	} else {
		Expect(os.Remove(path)).To(Succeed())
	}
}

// mutate changes a set as a live scoring query would: some scores move, one address drops
// out, new ones arrive.
func mutate(in []scores.Entry, fresh []scores.Entry, bump uint64) []scores.Entry {
	out := append([]scores.Entry(nil), in[1:]...)
	for i := 0; i < len(out); i += 7 {
		out[i].Amount += bump
	}
	return append(out, fresh...)
}

// operator is one run of `vipctl operate`.
type operator struct {
	cmd *exec.Cmd
	out *bytes.Buffer
}

func (o *operator) kill() {
	Expect(o.cmd.Process.Signal(syscall.SIGKILL)).To(Succeed())
	_ = o.cmd.Wait()
}

// stop sends SIGTERM and expects a clean exit.
func (o *operator) stop() {
	Expect(o.cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
	done := make(chan error, 1)
	go func() { done <- o.cmd.Wait() }()
	select {
	case err := <-done:
		Expect(err).NotTo(HaveOccurred(), "operate must exit 0 on SIGTERM:\n%s", o.out.String())
		Expect(o.out.String()).To(ContainSubstring("operator stopped"))
	case <-time.After(2 * time.Minute):
		_ = o.cmd.Process.Kill()
		Fail("operate did not stop on SIGTERM:\n" + o.out.String())
	}
}

var _ = Describe("vipctl operate", func() {
	for _, target := range harness.Targets() {
		Context(target.String(), Label(string(target.VM), target.Engine.Name(), "operate"), Ordered, func() {
			const firstStage = 3
			var (
				env      *harness.Env
				stateDir string
				src      *source
				scorer   *deployer.Scorer
				seed     int64 = 100
			)

			AfterEach(func() {
				if CurrentSpecReport().Failed() && env != nil {
					if logs := env.FailureLogs(); logs != "" {
						AddReportEntry("node log", logs)
					}
				}
			})

			BeforeAll(func(ctx SpecContext) {
				var err error
				env, err = harness.Start(ctx, target, firstStage, GinkgoT().TempDir())
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { Expect(env.Stop(ctx)).To(Succeed()) }, NodeTimeout(30*time.Second))
				stateDir = GinkgoT().TempDir()
				src = &source{dir: GinkgoT().TempDir(), sets: map[uint64][]scores.Entry{}}
				out, code := vipctlRun(ctx, env, stateDir, "deploy", "--json")
				Expect(code).To(Equal(0), out)
				var d vip.Deployment
				Expect(json.Unmarshal([]byte(out), &d)).To(Succeed(), out)
				Expect(d.InitStage).To(BeEquivalentTo(firstStage))
				scorer, err = env.Scorer(ctx, d.Contract)
				Expect(err).NotTo(HaveOccurred())
			}, NodeTimeout(3*time.Minute))

			fresh := func(n int) []scores.Entry {
				seed++
				return env.Generate(n, seed)
			}
			// startWith starts operate with environ over the Env's environment.
			startWith := func(environ []string, extra ...string) *operator {
				args := append([]string{"--state-dir", stateDir, "operate", "--command", src.command(),
					"--every", "300ms", "--poll", "200ms", "--max-backoff", "1s", "--chunk-size", "40", "--window", "2", "--listen", ""}, extra...)
				cmd := exec.Command(vipctl, args...)
				cmd.Env = append(append(os.Environ(), env.VipctlEnv()...), environ...)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				Expect(cmd.Start()).To(Succeed())
				return &operator{cmd: cmd, out: &out}
			}
			start := func(extra ...string) *operator { return startWith(nil, extra...) }
			// holds reports whether stage holds exactly want (addresses the source dropped at zero).
			holds := func(ctx context.Context, stage uint64, want []scores.Entry) error {
				rows, err := scorer.Scores(ctx, stage)
				if err != nil {
					return err
				}
				wantMap := map[string]uint64{}
				for _, e := range want {
					wantMap[e.Addr] = e.Amount
				}
				seen := 0
				for _, r := range rows {
					w, ok := wantMap[r.Addr]
					switch {
					case ok && w != r.Amount:
						return fmt.Errorf("stage %d: %s holds %d, want %d", stage, r.Addr, r.Amount, w)
					case !ok && r.Amount != 0:
						return fmt.Errorf("stage %d: %s holds %d, which the source dropped", stage, r.Addr, r.Amount)
					case ok:
						seen++
					}
				}
				if seen != len(want) {
					return fmt.Errorf("stage %d: %d of %d addresses on chain", stage, seen, len(want))
				}
				return nil
			}
			openStage := func(ctx context.Context) uint64 {
				st, err := scorer.OpenStage(ctx)
				Expect(err).NotTo(HaveOccurred())
				return st
			}

			It("pushes the open stage's scores and each change of the source", func(ctx SpecContext) {
				src.set(firstStage, fresh(120))
				op := start()
				Eventually(func() error { return holds(ctx, firstStage, src.get(firstStage)) }).WithContext(ctx).
					WithTimeout(time.Minute).WithPolling(200*time.Millisecond).Should(Succeed(), func() string { return op.out.String() })
				src.set(firstStage, mutate(src.get(firstStage), fresh(15), 11))
				Eventually(func() error { return holds(ctx, firstStage, src.get(firstStage)) }).WithContext(ctx).
					WithTimeout(time.Minute).WithPolling(200*time.Millisecond).Should(Succeed(), func() string { return op.out.String() })
				Expect(openStage(ctx)).To(BeEquivalentTo(firstStage), "nothing is finalized while the L1 stays")
				op.stop()
			}, SpecTimeout(3*time.Minute))

			It("stops on SIGTERM between writes, leaving no chunk half-sent", func(ctx SpecContext) {
				src.set(firstStage, mutate(src.get(firstStage), fresh(1200), 3))
				base := journalRecords(stateDir)
				op := start()
				deadline := time.Now().Add(30 * time.Second)
				for journalRecords(stateDir) < base+3 && time.Now().Before(deadline) {
					time.Sleep(2 * time.Millisecond)
				}
				atSignal := journalRecords(stateDir)
				op.stop()
				Expect(journalRecords(stateDir)).To(BeNumerically(">", atSignal), "the signal came mid-push, and the push went on to its end")
				Expect(halfSent(stateDir)).To(BeEmpty())
				_, err := os.Stat(filepath.Join(stateDir, "operate"))
				Expect(err).NotTo(HaveOccurred())
				pendings, err := filepath.Glob(filepath.Join(stateDir, "operate", "*.pending.json"))
				Expect(err).NotTo(HaveOccurred())
				Expect(pendings).To(BeEmpty(), "the push in progress finished before the exit")
				Expect(holds(ctx, firstStage, src.get(firstStage))).To(Succeed())
			}, SpecTimeout(3*time.Minute))

			It("finalizes every stage exactly once with its final scores across SIGKILLs, while the L1 moves", func(ctx SpecContext) {
				// Each round: the source changes, the L1 sometimes moves (by 2 once, skipping a
				// stage), and the operator is killed once its journals (pushes and finalizes)
				// have grown by a different number of records: between a record and its tx,
				// mid-push, between a push and a finalize.
				kills := []int{1, 3, 6, 2, 11, 4, 8, 9, 13}
				l1Stage := uint64(firstStage)
				for i, records := range kills {
					cur := l1Stage
					src.set(cur, mutate(src.get(cur), fresh(60), uint64(i+1)))
					if i%2 == 1 {
						// The stages the L1 will pass need their scores before it does.
						step := uint64(1)
						if i == 3 {
							step = 2
						}
						for st := cur + 1; st <= cur+step; st++ {
							src.set(st, fresh(90))
						}
						Expect(env.L1.Set(ctx, cur+step)).To(Succeed())
						l1Stage = cur + step
					}
					base := journalRecords(stateDir)
					op := start()
					deadline := time.Now().Add(20 * time.Second)
					for journalRecords(stateDir) < base+records && time.Now().Before(deadline) {
						time.Sleep(2 * time.Millisecond)
					}
					op.kill()
					GinkgoWriter.Printf("round %d: killed after %d new journal records (got %d); L1 %d, open %d\n",
						i, records, journalRecords(stateDir)-base, l1Stage, openStage(ctx))
				}
				// The last change of the open stage, then a run to completion.
				src.set(l1Stage, mutate(src.get(l1Stage), fresh(10), 99))
				op := start()
				Eventually(func() error {
					if open := openStage(ctx); open != l1Stage {
						return fmt.Errorf("open stage %d, L1 %d", open, l1Stage)
					}
					return holds(ctx, l1Stage, src.get(l1Stage))
				}).WithContext(ctx).WithTimeout(2*time.Minute).WithPolling(300*time.Millisecond).Should(Succeed(), func() string { return op.out.String() })
				op.stop()

				for st := uint64(firstStage); st < l1Stage; st++ {
					info, err := scorer.StageInfo(ctx, st)
					Expect(err).NotTo(HaveOccurred())
					Expect(info.Finalized).To(BeTrue(), "stage %d", st)
					Expect(holds(ctx, st, src.get(st))).To(Succeed())
				}
				info, err := scorer.StageInfo(ctx, l1Stage)
				Expect(err).NotTo(HaveOccurred())
				Expect(info.Finalized).To(BeFalse(), "the L1's stage stays open")

				// A retried finalize changes nothing.
				before, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())
				out, code := vipctlRun(ctx, env, stateDir, "stage", "finalize", "--stage", fmt.Sprint(l1Stage-1))
				Expect(code).To(Equal(0), out)
				Expect(out).To(MatchRegexp(`stage %d already finalized \(tx (0x)?[0-9A-Fa-f]{64}\)`, l1Stage-1))
				out, code = vipctlRun(ctx, env, stateDir, "stage", "finalize")
				Expect(code).To(Equal(2), out)
				Expect(env.OperatorSequence(ctx)).To(Equal(before))
				Expect(openStage(ctx)).To(Equal(l1Stage))
			}, SpecTimeout(8*time.Minute))

			DescribeTable("never pushes or finalizes from a failing source",
				func(ctx SpecContext, flag, logged string) {
					open := openStage(ctx)
					src.set(open, mutate(src.get(open), fresh(20), 5))
					src.set(open+1, fresh(30))
					src.flag(flag, true)
					Expect(env.L1.Set(ctx, open+1)).To(Succeed())
					before, err := env.OperatorSequence(ctx)
					Expect(err).NotTo(HaveOccurred())

					out, code := vipctlRun(ctx, env, stateDir, "operate", "--command", src.command(), "--once")
					Expect(code).To(Equal(1), out)
					Expect(out).To(ContainSubstring(logged))

					// Long-running: the failures are counted on /metrics, and nothing is sent.
					ports, err := localnet.FreePorts(1)
					Expect(err).NotTo(HaveOccurred())
					listen := fmt.Sprintf("127.0.0.1:%d", ports[0])
					op := start("--listen", listen)
					Eventually(func() float64 { return metric(listen, "vipctl_operate_source_errors_total") }).
						WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(BeNumerically(">=", 2))
					Expect(metric(listen, "vipctl_operate_finalizes_total")).To(BeZero())
					resp, err := http.Get("http://" + listen + "/healthz")
					Expect(err).NotTo(HaveOccurred())
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					Expect(string(body)).To(ContainSubstring(logged))
					Expect(env.OperatorSequence(ctx)).To(Equal(before), "a failing source led to a tx")
					Expect(openStage(ctx)).To(Equal(open))

					// The source recovers: the stage closes with its scores, the next opens.
					src.flag(flag, false)
					Eventually(func() error {
						if o := openStage(ctx); o != open+1 {
							return fmt.Errorf("open stage %d", o)
						}
						return holds(ctx, open+1, src.get(open+1))
					}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(300*time.Millisecond).Should(Succeed(), func() string { return op.out.String() })
					Expect(holds(ctx, open, src.get(open))).To(Succeed())
					op.stop()
				},
				Entry("the command exits 1", "fail", "database unavailable"),
				Entry("the command prints a malformed line", "malformed", "0x1234"),
			)

			It("follows its --env-file: keeps its endpoints over a malformed file, waits out a dead one, comes back, and stops on a chain started again", Label("envfile"), func(ctx SpecContext) {
				// The env file holds the endpoints (the environment none) and a key operate
				// must never print.
				const phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow"
				path := filepath.Join(GinkgoT().TempDir(), "localnet.env")
				settings := envFileSettings(env.VipctlEnv())
				write := func(rollup localnet.Endpoints, extra string) {
					lines := ""
					for _, kv := range settings {
						k, v := kv[0], kv[1]
						switch {
						case k == "JSON_RPC_URL" && v != "":
							v = rollup.JSONRPC
						case k == "COMET_RPC_URL" && v != "":
							v = rollup.CometRPC
						case k == "REST_URL" && v != "":
							v = rollup.REST
						}
						lines += fmt.Sprintf("export %s=%s\n", k, v)
					}
					lines += fmt.Sprintf("export MNEMONIC=%q\n", phrase) + extra
					Expect(os.WriteFile(path+".tmp", []byte(lines), 0o600)).To(Succeed())
					Expect(os.Rename(path+".tmp", path)).To(Succeed())
				}
				ours := env.Rollup.Endpoints()
				write(ours, "")
				ports, err := localnet.FreePorts(2)
				Expect(err).NotTo(HaveOccurred())
				listen := fmt.Sprintf("127.0.0.1:%d", ports[0])
				dead := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
				health := func() int {
					resp, err := http.Get("http://" + listen + "/healthz")
					if err != nil {
						return -1
					}
					resp.Body.Close()
					return resp.StatusCode
				}
				open := openStage(ctx)
				src.set(open, fresh(30))
				op := startWith([]string{"JSON_RPC_URL=", "COMET_RPC_URL=", "REST_URL=", "L1_REST_URL=", "VIP_MODULE_ADDRESS="},
					"--env-file", path, "--listen", listen)
				DeferCleanup(func() { _ = op.cmd.Process.Kill() })
				pushed := func() {
					GinkgoHelper()
					Eventually(func() error { return holds(ctx, open, src.get(open)) }).WithContext(ctx).
						WithTimeout(time.Minute).WithPolling(200*time.Millisecond).Should(Succeed(), func() string { return op.out.String() })
				}
				pushed()

				By("a malformed file: logged, and the endpoints in use kept")
				write(ours, "MNEMONIC "+phrase+"\n")
				Eventually(op.out.String).WithTimeout(10 * time.Second).Should(ContainSubstring("env file unusable"))
				src.set(open, mutate(src.get(open), fresh(5), 22))
				pushed()

				By("a dead endpoint: logged, the chain is down, nothing is pushed, operate waits")
				write(localnet.Endpoints{JSONRPC: dead, CometRPC: dead, REST: dead}, "")
				Eventually(op.out.String).WithTimeout(10 * time.Second).Should(ContainSubstring("endpoints changed"))
				Eventually(health).WithTimeout(30 * time.Second).Should(Equal(http.StatusServiceUnavailable))
				before, err := env.OperatorSequence(ctx)
				Expect(err).NotTo(HaveOccurred())
				src.set(open, mutate(src.get(open), fresh(5), 23))
				Consistently(func() (uint64, error) { return env.OperatorSequence(ctx) }).WithTimeout(2 * time.Second).Should(Equal(before))
				Expect(op.cmd.ProcessState).To(BeNil(), "operate must wait out a dead endpoint")

				By("the endpoints back: the change made meanwhile is pushed")
				write(ours, "")
				pushed()
				Eventually(health).WithTimeout(30 * time.Second).Should(Equal(http.StatusOK))

				if target.Engine.Name() == "external" {
					// The external engine names one running chain: it cannot start another.
					Expect(holds(ctx, open, src.get(open))).To(Succeed())
					return
				}
				By("a chain started again under the same id: operate stops with the refusal (exit 2)")
				again, err := target.Engine.StartRollup(ctx, target.VM)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { Expect(again.Stop(ctx)).To(Succeed()) }, NodeTimeout(30*time.Second))
				write(again.Endpoints(), "")
				exited := make(chan error, 1)
				go func() { exited <- op.cmd.Wait() }()
				Eventually(exited).WithTimeout(time.Minute).Should(Receive(), func() string { return op.out.String() })
				Expect(op.cmd.ProcessState.ExitCode()).To(Equal(2), op.out.String())
				// A chain of another genesis is named as started again (its first block differs);
				// geth's dev chains start from the same genesis every time, so there the refusal
				// is the contract the new chain does not hold.
				Expect(op.out.String()).To(Or(ContainSubstring("started again"), ContainSubstring("no contract code at")))
				Expect(op.out.String()).NotTo(ContainSubstring("legal winner"), "operate printed the env file's key")
				Expect(holds(ctx, open, src.get(open))).To(Succeed())
			}, SpecTimeout(4*time.Minute))
		})
	}
})

// envFileSettings are the endpoint settings of environ (the last of each key wins), in
// the order operate's env file lists them.
func envFileSettings(environ []string) [][2]string {
	vals := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		vals[k] = v
	}
	var out [][2]string
	for _, k := range []string{"VM", "JSON_RPC_URL", "COMET_RPC_URL", "REST_URL", "L1_REST_URL", "VIP_MODULE_ADDRESS"} {
		out = append(out, [2]string{k, vals[k]})
	}
	return out
}

// journalRecords counts the records of every journal below the state dir.
func journalRecords(stateDir string) int {
	n := 0
	_ = filepath.WalkDir(filepath.Join(stateDir, "journal"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			if b, err := os.ReadFile(path); err == nil {
				n += bytes.Count(b, []byte("\n"))
			}
		}
		return nil
	})
	return n
}

// halfSent lists the journaled chunks whose tx was signed (and may have been sent) but never
// confirmed.
func halfSent(stateDir string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(stateDir, "journal"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return nil
		}
		j, err := journal.Open(path)
		Expect(err).NotTo(HaveOccurred())
		defer j.Close()
		b, ok := j.Begin()
		if !ok {
			return nil
		}
		for i := range b.Chunks {
			if c := j.Chunk(i); len(c.Attempts) > 0 && !c.Confirmed {
				out = append(out, fmt.Sprintf("%s chunk %d", path, i))
			}
		}
		return nil
	})
	return out
}

// vipctlRun runs vipctl to completion with the Env's operator environment.
func vipctlRun(ctx context.Context, env *harness.Env, stateDir string, args ...string) (string, int) {
	return env.RunVipctl(ctx, vipctl, stateDir, args...)
}

// metric reads one unlabelled sample from the operator's /metrics (-1 when unreachable).
func metric(listen, name string) float64 {
	resp, err := http.Get("http://" + listen + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil {
				return f
			}
		}
	}
	return -1
}
