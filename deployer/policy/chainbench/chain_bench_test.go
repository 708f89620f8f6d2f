// Package chainbench_test measures a policy's stage of 1,000,000 records read from a node
// over JSON-RPC and from the indexer stand-in over its HTTP API. It lives apart from
// deployer/policy so that the readers' figures come from a process of their own: the
// benchmark serves the chain and the indexer, and re-runs its own binary as a child that
// reads and scores the stage; the child's peak resident set (rusage) and CPU time are the
// reader's alone.
package chainbench_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/indexer"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/localnet/indexer"
)

// benchPolicy scores the Transfer logs by three rules: a capped volume sum, a count with a
// where, and a time-weighted balance (BenchmarkCompute's, over the chain).
const benchPolicy = `policy: 1
name: bench
vm: evm
actions:
  - {title: Trade, description: Every token sent counts.}
params:
  token: "0x00000000000000000000000000000000000000aa"
sources:
  - name: transfers
    erc20_transfer: {contract: $token}
rules:
  - {name: vol, source: transfers, aggregate: sum, user: args.from, amount: args.value / 1e18, cap: 100}
  - {name: n, source: transfers, aggregate: count, user: tx.from, where: "args.value > 1e17"}
  - {name: hold, source: transfers, aggregate: time_weighted_balance, from: args.from, to: args.to, amount: args.value / 1e18}
`

const (
	childEnv   = "VIPHARNESS_POLICY_BENCH_CHILD" // node URL; set in the child only
	childIxEnv = "VIPHARNESS_POLICY_BENCH_INDEXER"
	childWin   = "VIPHARNESS_POLICY_BENCH_WINDOW" // start,end
	// childCosmos names the Cosmos policy (move, wasm) the child scores from a CometBFT node
	// or the indexer alone; unset for the EVM one.
	childCosmos = "VIPHARNESS_POLICY_BENCH_COSMOS"
	// childProfile names a file for the child's CPU profile (to look into a figure).
	childProfile = "VIPHARNESS_POLICY_BENCH_CPUPROFILE"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if err := child(); err != nil {
			fmt.Fprintln(os.Stderr, "chainbench child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childResult is what the child prints.
type childResult struct {
	Records map[string]int `json:"records"` // per source
	// PeakRSSMB is the child's VmHWM: its own peak, where rusage's maxrss of an exec'd
	// child also holds the parent's resident set at the fork.
	PeakRSSMB   float64 `json:"peak_rss_mb"`
	Scores      int     `json:"scores"`
	Seconds     float64 `json:"seconds"`
	ScoreDigest string  `json:"score_digest"`
	InputDigest string  `json:"input_digest"`
}

// child reads the window from the node (or the indexer, with block times from the node),
// scores it and writes the outputs in memory, as scores compute does after the L1 read.
func child() error {
	ctx := context.Background()
	if path := os.Getenv(childProfile); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var start, end uint64
	if _, err := fmt.Sscanf(os.Getenv(childWin), "%d,%d", &start, &end); err != nil {
		return fmt.Errorf("window: %w", err)
	}
	t0 := time.Now()
	read := readEVM
	if os.Getenv(childCosmos) != "" {
		read = readCosmos
	}
	p, run, r, done, err := read(ctx, start, end)
	if err != nil {
		return err
	}
	defer done()
	res, err := policy.Compute(ctx, p, run.Span.Window, r)
	if err != nil {
		return err
	}
	scoreFile, _, err := policy.Outputs(p, run, res)
	if err != nil {
		return err
	}
	out := childResult{Records: res.Records, PeakRSSMB: peakRSSMB(), Scores: len(res.Scores), Seconds: time.Since(t0).Seconds(),
		ScoreDigest: fmt.Sprintf("%x", sha(scoreFile)), InputDigest: fmt.Sprintf("%x", res.InputDigest)}
	return json.NewEncoder(os.Stdout).Encode(out)
}

// readEVM opens the EVM stage: the node over JSON-RPC, or the indexer with block times from
// the node.
func readEVM(ctx context.Context, start, end uint64) (*policy.Policy, policy.Run, policy.Reader, func(), error) {
	run := policy.Run{Stage: 1, BridgeID: 1, SourceKind: "node"}
	p, err := policy.Parse([]byte(benchPolicy), nil)
	if err != nil {
		return nil, run, nil, nil, err
	}
	node, err := policy.DialNode(ctx, os.Getenv(childEnv))
	if err != nil {
		return nil, run, nil, nil, err
	}
	if run.Span, err = policy.FindWindow(ctx, node, start, end); err != nil {
		node.Close()
		return nil, run, nil, nil, err
	}
	var r policy.Reader = node
	if u := os.Getenv(childIxEnv); u != "" {
		c, err := api.NewClient(u)
		if err != nil {
			node.Close()
			return nil, run, nil, nil, err
		}
		r, run.SourceKind = &policy.IndexerSource{Client: c, Node: node}, "indexer"
	}
	return p, run, r, node.Close, nil
}

// BenchmarkComputeChain is a stage of 1,000,000 Transfer logs (10,000 blocks of 10
// transactions of 10 logs, 10,000 users) read and scored by a child process from the node
// (eth_getLogs spans scaled to about 5,000 logs a reply, eth_getBlockReceipts and headers in batches of 100) and
// from the indexer stand-in (evm-txs pages of 1,000 transactions, block times from the
// node): records/s (wall, the child's whole run), records per CPU second of the child, its
// peak resident set, and the machine's load average when it ran.
func BenchmarkComputeChain(b *testing.B) {
	ctx := context.Background()
	chain := (&synthChain{Blocks: 10_001, TxsPerBlock: 10, LogsPerTx: 10, Users: 10_000, Genesis: 1_700_000_000,
		Token: common.HexToAddress("0xaa")}).index()
	url, stop, err := chain.serve()
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	ix := follow(b, chain.Blocks, func() (*indexer.Indexer, error) {
		return indexer.NewFromSource(ctx, chain, indexer.WithPollInterval(time.Millisecond))
	})
	// The stage's blocks are 1..10,000; block 10,001 is past its end.
	window := fmt.Sprintf("%d,%d", chain.Genesis+1, chain.Genesis+chain.Blocks)
	const want = 1_000_000

	digests := map[string]string{}
	for _, source := range []string{"node", "indexer"} {
		b.Run("source="+source, func(b *testing.B) {
			env := []string{childEnv + "=" + url, childWin + "=" + window, childIxEnv + "="}
			if source == "indexer" {
				env = append(env, childIxEnv+"="+ix.URL())
			}
			digests[source] = measureChild(b, env, map[string]int{"transfers": want})
		})
	}
	if digests["node"] != "" && digests["indexer"] != "" && digests["node"] != digests["indexer"] {
		b.Fatalf("the node and the indexer gave different scores or inputs: %s / %s", digests["node"], digests["indexer"])
	}
}

// follow starts the indexer stand-in, waits until it holds the chain's blocks, and closes
// it when b ends.
func follow(b *testing.B, blocks uint64, start func() (*indexer.Indexer, error)) *indexer.Indexer {
	b.Helper()
	t0 := time.Now()
	ix, err := start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ix.Close() })
	if err := ix.WaitHeight(context.Background(), blocks); err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed %d blocks (%d txs) in %v", blocks, ix.Count(), time.Since(t0).Round(time.Millisecond))
	return ix
}

// measureChild runs the child b.N times with env added to this process's and reports its
// figures: records/s (wall, the child's whole run), records per CPU second of the child, its
// peak resident set, and the machine's load average when it ran. want is the records each
// source must yield; the result is the child's score and input digests.
func measureChild(b *testing.B, env []string, want map[string]int) string {
	b.Helper()
	var wall, cpu time.Duration
	var rss, load float64
	var digest string
	total := 0
	for _, n := range want {
		total += n
	}
	for b.Loop() {
		load = max(load, loadAvg())
		cmd := exec.CommandContext(context.Background(), os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("child: %v: %s", err, stderr.String())
		}
		wall += time.Since(start)
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		var res childResult
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			b.Fatalf("child printed %q: %v", stdout.String(), err)
		}
		rss = max(rss, res.PeakRSSMB)
		if e := stderr.String(); e != "" { // GODEBUG=gctrace=1 and the like
			b.Logf("child's stderr (last 2,000 bytes): %s", e[max(0, len(e)-2000):])
		}
		for name, n := range want {
			if res.Records[name] != n {
				b.Fatalf("child read %d records of %s (want %d)", res.Records[name], name, n)
			}
		}
		if res.Scores == 0 {
			b.Fatal("child scored nobody")
		}
		digest = res.ScoreDigest + " " + res.InputDigest
	}
	n := float64(total) * float64(b.N)
	b.ReportMetric(n/wall.Seconds(), "records/s")
	b.ReportMetric(n/cpu.Seconds(), "records/cpu-s")
	b.ReportMetric(rss, "peak-rss-MB")
	b.ReportMetric(load, "load-avg-1m")
	return digest
}

// loadAvg is the machine's 1-minute load average (0 where /proc has none).
func loadAvg() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, err := strconv.ParseFloat(strings.Fields(string(raw))[0], 64)
	if err != nil {
		return 0
	}
	return f
}

func sha(b []byte) [32]byte { return sha256.Sum256(b) }

// peakRSSMB is VmHWM from /proc/self/status in MB (0 where there is none).
func peakRSSMB() float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err == nil {
				return kb * 1024 / 1e6
			}
		}
	}
	return 0
}
