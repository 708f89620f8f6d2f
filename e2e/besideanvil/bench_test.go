// Package besideanvil_test measures the embedded EVM localnet (`vipctl localnet up --vm evm`:
// the chain, the indexer stand-in, the router and L1 stand-ins and the local agent in one
// process) beside anvil, the chain Foundry users run locally (pinned in e2e/foundry's
// package.json, `make setup-foundry`), in the same run: how fast vipctl pushes a stage to
// each on a fresh chain, and the memory each chain process holds per address afterwards.
// BenchmarkScale pushes, finalizes and audits a large stage on the embedded chain alone
// (VIPHARNESS_EVM_SCALE addresses; skipped unless set).
package besideanvil_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// anvilKey is the private key of anvil's first funded dev account (its published default
// mnemonic, account 0).
const anvilKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

// chain is a chain process vipctl talks to, with the environment vipctl needs for it.
type chain struct {
	name string
	cmd  *exec.Cmd
	env  []string
	dir  string // the chain's own files (its database folder on the embedded chain)
}

// memory is what the chain process holds (VmRSS) and has held at most (VmHWM), in bytes.
func (c *chain) memory(tb testing.TB) (rss, peak int64) {
	tb.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		tb.Fatalf("%s: read its memory: %v", c.name, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			tb.Fatalf("%s: %s %q: %v", c.name, k, v, err)
		}
		if k == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	return rss, peak
}

// cpu is the CPU time (user and system) the chain process has used so far.
func (c *chain) cpu(tb testing.TB) time.Duration {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		tb.Fatalf("%s: read its CPU time: %v", c.name, err)
	}
	// utime and stime are fields 14 and 15, counted after the parenthesised command name.
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		tb.Fatalf("%s: /proc stat %q", c.name, b)
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			tb.Fatalf("%s: /proc stat field %q: %v", c.name, v, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// clockTicks is the kernel's USER_HZ, the unit of /proc's CPU times (100 on Linux).
const clockTicks = 100

// stop ends the chain process (by its PID) and waits for it.
func (c *chain) stop() {
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = c.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = c.cmd.Process.Kill()
			<-done
		}
	}
}

// startEmbedded runs `vipctl localnet up --vm evm` and reads the env file it writes.
func startEmbedded(tb testing.TB, vipctl, dir string) *chain {
	tb.Helper()
	envFile := filepath.Join(dir, "localnet.env")
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(vipctl, "localnet", "up", "--vm", "evm", "--env-file", envFile, "--state-dir", filepath.Join(dir, "up"))
	// The chain's database goes to a temporary folder under dir (TMPDIR), which is measured.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "VIPHARNESS_MOVEVM="+movevm.Dir())
	log, err := os.Create(filepath.Join(dir, "localnet.log"))
	if err != nil {
		tb.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start vipctl localnet up: %v", err)
	}
	c := &chain{name: "embedded", cmd: cmd, dir: tmp}
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, err := os.ReadFile(envFile)
		if err == nil && len(b) > 0 {
			if c.env, err = harness.ParseEnv(b); err != nil {
				c.stop()
				tb.Fatalf("env file: %v", err)
			}
			return c
		}
		if time.Now().After(deadline) {
			c.stop()
			out, _ := os.ReadFile(filepath.Join(dir, "localnet.log"))
			tb.Fatalf("vipctl localnet up wrote no env file in 60 s:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// anvilBin is the pinned anvil from e2e/foundry's node_modules.
func anvilBin(tb testing.TB) string {
	tb.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "foundry", "node_modules", ".bin", "anvil"))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		tb.Skipf("no anvil (%v): make setup-foundry installs it", err)
	}
	return bin
}

// startAnvil runs anvil on a free loopback port, with --prune-history when prune is set.
func startAnvil(tb testing.TB, bin string, prune bool) *chain {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	args := []string{"--host", "127.0.0.1", "--port", strconv.Itoa(port), "--silent"}
	name := "anvil"
	if prune {
		args, name = append(args, "--prune-history"), "anvil-prune"
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start anvil: %v", err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	c := &chain{name: name, cmd: cmd, env: []string{"VM=evm", "JSON_RPC_URL=" + url, "PRIVATE_KEY=" + anvilKey}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
		if err == nil {
			resp.Body.Close()
			return c
		}
		if time.Now().After(deadline) {
			c.stop()
			tb.Fatalf("anvil did not answer in 30 s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// run is a vipctl command's wall time and the CPU time it and the chain used meanwhile.
type run struct{ wall, vipctlCPU, chainCPU time.Duration }

// vipctl runs the vipctl binary against c with its own state folder, and fails tb with its
// output when it fails.
func vipctl(tb testing.TB, bin string, c *chain, state string, args ...string) time.Duration {
	return vipctlRun(tb, bin, c, state, args...).wall
}

// vipctlRun is vipctl, measured.
func vipctlRun(tb testing.TB, bin string, c *chain, state string, args ...string) run {
	tb.Helper()
	cmd := exec.Command(bin, append([]string{"--state-dir", state, "--no-progress"}, args...)...)
	// Only the chain's variables: none of this process's keys or endpoints leak in.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "VIPHARNESS_MOVEVM=" + movevm.Dir()}, c.env...)
	start, chain0 := time.Now(), c.cpu(tb)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("%s: vipctl %s: %v\n%s", c.name, strings.Join(args, " "), err, out)
	}
	return run{wall: time.Since(start), chainCPU: c.cpu(tb) - chain0,
		vipctlCPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

func buildVipctl(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "vipctl")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/vipharness/vipharness/cmd/vipctl").CombinedOutput()
	if err != nil {
		tb.Fatalf("build vipctl: %v\n%s", err, out)
	}
	return bin
}

// scoreFile writes n generated addresses and scores as CSV.
func scoreFile(tb testing.TB, dir string, n int) string {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("scores-%d.csv", n))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := scores.Write(w, scores.Generate(n, 7), scores.CSV); err != nil {
		tb.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// load1 is the machine's one-minute load average.
func load1(tb testing.TB) float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		tb.Fatal(err)
	}
	f, err := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// side is one chain kind's totals over a benchmark's rounds.
type side struct {
	pushes    []time.Duration
	chainCPU  time.Duration // the chain process's CPU time over the pushes
	vipctlCPU time.Duration // vipctl's
	perAddr   float64       // bytes the chain process grew by over the push, per address
	rss, peak int64         // after the push
	rounds    int
}

// BenchmarkBesideAnvil pushes n new addresses (VIPHARNESS_BESIDE_N, default 20,000) with
// `vipctl scores update` to a fresh chain of each kind (the embedded EVM localnet, anvil,
// anvil --prune-history), deployed first, untimed, with `vipctl deploy`; rounds of the three
// (VIPHARNESS_BESIDE_ROUNDS, default 3), the order reversed every other round so that no
// side always runs on a machine the other just warmed. It reports each side's addresses per
// second in its median round and the embedded chain's speed beside each anvil's (above 1: faster
// here), each chain process's resident memory after the push and its growth over the push
// per address (the mean over rounds), the CPU time the chain process and vipctl each used for
// a push (the mean over rounds: on two cores a side's speed follows their sum), and the
// machine's load average before and after.
func BenchmarkBesideAnvil(b *testing.B) {
	anvil := anvilBin(b)
	bin := buildVipctl(b)
	n, rounds := envInt("VIPHARNESS_BESIDE_N", 20_000), envInt("VIPHARNESS_BESIDE_ROUNDS", 3)
	file := scoreFile(b, b.TempDir(), n)
	kinds := []string{"embedded", "anvil", "anvil-prune"}
	sides := map[string]*side{}
	for _, k := range kinds {
		sides[k] = &side{}
	}
	b.ReportMetric(load1(b), "load1-start")
	for b.Loop() {
		for r := range rounds {
			order := kinds
			if r%2 == 1 {
				order = []string{kinds[2], kinds[1], kinds[0]}
			}
			for _, k := range order {
				dir := b.TempDir()
				var c *chain
				switch k {
				case "embedded":
					c = startEmbedded(b, bin, dir)
				default:
					c = startAnvil(b, anvil, k == "anvil-prune")
				}
				state := filepath.Join(dir, "state")
				vipctl(b, bin, c, state, "deploy", "--stage", "1")
				before, _ := c.memory(b)
				took := vipctlRun(b, bin, c, state, "scores", "update", "--file", file, "--stage", "1", "--no-read-back")
				rss, peak := c.memory(b)
				c.stop()
				s := sides[k]
				s.pushes = append(s.pushes, took.wall)
				s.chainCPU += took.chainCPU
				s.vipctlCPU += took.vipctlCPU
				s.perAddr += float64(rss-before) / float64(n)
				s.rss, s.peak = s.rss+rss, s.peak+peak
				s.rounds++
			}
		}
	}
	b.ReportMetric(load1(b), "load1-end")
	rate := func(k string) float64 {
		s := sides[k]
		return float64(n) / median(s.pushes).Seconds()
	}
	for _, k := range kinds {
		s := sides[k]
		if s.rounds == 0 {
			continue
		}
		b.ReportMetric(rate(k), k+"-addr/s")
		b.ReportMetric(s.perAddr/float64(s.rounds)/1024, k+"-KB/addr")
		b.ReportMetric(s.chainCPU.Seconds()/float64(s.rounds), k+"-chain-cpu-s")
		b.ReportMetric(s.vipctlCPU.Seconds()/float64(s.rounds), k+"-vipctl-cpu-s")
		b.ReportMetric(float64(s.rss)/float64(s.rounds)/(1<<20), k+"-rss-MB")
	}
	if sides["embedded"].rounds > 0 {
		b.ReportMetric(rate("embedded")/rate("anvil"), "embedded/anvil")
		b.ReportMetric(rate("embedded")/rate("anvil-prune"), "embedded/anvil-prune")
	}
}

// BenchmarkScale pushes a stage of VIPHARNESS_EVM_SCALE new addresses (skipped unless set,
// e.g. 1000000) to the embedded EVM localnet with vipctl, finalizes it (the local agent
// snapshots it, reading every score back) and audits it against that snapshot: the wall
// time of each step, the localnet process's peak resident memory (VmHWM) over the run and
// what it holds at the end, per address, and the chain's database on disk per address.
func BenchmarkScale(b *testing.B) {
	n := envInt("VIPHARNESS_EVM_SCALE", 0)
	if n == 0 {
		b.Skip("VIPHARNESS_EVM_SCALE is not set")
	}
	bin := buildVipctl(b)
	file := scoreFile(b, b.TempDir(), n)
	b.ReportMetric(load1(b), "load1-start")
	for b.Loop() {
		dir := b.TempDir()
		c := startEmbedded(b, bin, dir)
		state := filepath.Join(dir, "state")
		vipctl(b, bin, c, state, "deploy", "--stage", "1")
		start, _ := c.memory(b)
		push := vipctl(b, bin, c, state, "scores", "update", "--file", file, "--stage", "1", "--no-read-back")
		pushed, _ := c.memory(b)
		b.ReportMetric(load1(b), "load1-pushed")
		finalize := vipctl(b, bin, c, state, "stage", "finalize", "--stage", "1", "--force", "--yes")
		audit := vipctl(b, bin, c, state, "audit", "--stage", "1", "--bridge-id", "1")
		end, peak := c.memory(b)
		disk := du(b, c.dir)
		c.stop()
		b.ReportMetric(push.Seconds(), "push-s")
		b.ReportMetric(float64(n)/push.Seconds(), "push-addr/s")
		b.ReportMetric(finalize.Seconds(), "finalize-s")
		b.ReportMetric(audit.Seconds(), "audit-s")
		b.ReportMetric(float64(start)/(1<<20), "rss-start-MB")
		b.ReportMetric(float64(pushed)/(1<<20), "rss-pushed-MB")
		b.ReportMetric(float64(end)/(1<<20), "rss-end-MB")
		b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MB")
		b.ReportMetric(float64(pushed)/float64(n)/1024, "rss-KB/addr")
		b.ReportMetric(float64(pushed-start)/float64(n)/1024, "growth-KB/addr")
		b.ReportMetric(float64(disk)/float64(n)/1024, "disk-KB/addr")
	}
	b.ReportMetric(load1(b), "load1-end")
}

// median is the middle of ds (the mean of the two middle ones for an even count): a chain's
// rare slow run (anvil's pushes now and then take twice as long) does not move it.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// du is the bytes of the files under dir.
func du(tb testing.TB, dir string) int64 {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			total += fi.Size()
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("size of %s: %v", dir, err)
	}
	return total
}
