// Command benchreport runs the project's Go benchmarks and the demo, and writes their
// figures to BENCHMARKS.md. Figures live here, never in timed assertions inside tests.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vipharness/vipharness/localnet/movevm"
)

// suite is one `go test -bench` run.
type suite struct {
	title     string
	pkgs      []string
	benchtime string
	note      string
}

var suites = []suite{
	{"EVM contract gas (ours beside the official VipScore)", []string{"./contracts/evm/..."}, "1x",
		"Receipt gas on Osaka rules, fresh stage. The official VipScore compiled the same way (solc 0.8.37, optimizer 200, evmVersion osaka) and measured by the same code (`VIPHARNESS_OFFICIAL_BIN` runs both in one go): 51,410 / 51,152 gas per new address at 100 / 200 per call (500 does not fit one tx), 50,895 marginal; overwrite 10,645 per address; finalize 53,772; getScores of 1,000 rows 5,667,764; at most 328 new addresses per 16,777,216-gas tx."},
	{"Move contract gas (ours beside the floor and the official vip_score)", []string{"./localnet/movevm/..."}, "1x",
		"update_score_script on Initia's MoveVM (the libmovevm of movevm v1.1.2, as a minimove v1.1.11 runs it) over an in-memory store, our framework at genesis, stage 1 open: the VM's own gas as it reports it through its gas balance (its 0.2 per tx byte included; the SDK's 10 per tx byte, signature and KV-store gas not). Per new address and per overwrite: (a call of 200 - a call of 100) / 100; fixed: a call of 200 new addresses less 200 per-address costs (mostly the VM's 5,000 minimum, 1 gas per byte of vip_score's bytecode, where 0x1 modules are free, the stage's table write and the store's read). The floor is testdata/floor, the least a module can do per address under the interface (read the address and its score, one table lookup, one add or overwrite, the running total, one UpdateScoreEvent); see the Move gas section below. The official module (initia-labs/vip-score-move 35a0f3e) is measured in the same run when `VIPHARNESS_OFFICIAL_MOVE` names its package, built out of process against our framework plus a simple_map of ours (its one missing module); measured so on 2026-11-29 (the v1.1.2 library): 3,947 per new address, 3,581 per overwrite, 13,831 fixed, finalize 28,854 (on 2026-11-24, the v0.7 library: 4,047, 3,645, 13,740, 28,863)."},
	{"Embedded rollups: start-to-ready", []string{"./localnet/embedded/..."}, "5x", "EVM: JSON-RPC served on loopback and auto-mining armed, then stopped. Wasm and Move: the minitia application (Cosmos SDK modules and the VM: wasmd's x/wasm; x/move over libmovevm with the MinitiaStdlib at 0x1, and the fee denom minted as a Move coin) built, CometBFT started in process until its first block is committed, the SDK's API server answering, then stopped."},
	{"Real nodes: start-to-ready", []string{"./localnet/process/...", "./localnet/container/..."}, "3x",
		"geth v1.17.8 --dev (genesis, init, start, first JSON-RPC answer, stop), wasmd v0.61.14 single-validator (init, genesis, gentx, start, first block, REST answer, stop) and our dev node binary (ready line with its endpoints, stop), each as a child process and as a FROM-scratch container through testcontainers-go (image from Docker's layer cache, readiness log line, removal). Skipped without `make nodes` or Docker."},
	{"Deployer throughput (EVM: embedded minitia, the geth chain and real geth)", []string{"./deployer/vm/evm/..."}, "6x",
		"5,000 new addresses through the deployer (validate, gas model, journal synced once per window of txs, pipelined nonces, each chunk's receipt read for its status, gas and block, its logs skipped, while the next chunk is sent) beside raw pre-signed txs of the same chunk size sent back to back on the same chain in the same run (the chain's ceiling), which then reads every receipt; on the embedded EVM minitia (each tx in a Cosmos tx under CometBFT, the fee paid through the ERC-20 fee token), on go-ethereum's simulated chain (`embedded-geth`) and on geth v1.17.8 --dev as a child process. Rates over 6 rounds of new addresses, the side that goes first alternating (deployer/internal/throughput)."},
	{"Wasm deployer: store + instantiate, and throughput (embedded minitia and real wasmd)", []string{"./deployer/vm/wasm/..."}, "6x",
		"Deploy: store the contract code and instantiate it (simulate, sign, broadcast, wait for each). Push: 5,000 new addresses through the deployer (validation, simulated gas model, journal synced once per window of txs, pipelined sequences, result checks overlapping the sends) beside raw pre-signed update_scores txs of the same chunk size broadcast back to back on the same chain in the same run (the chain's ceiling); on the embedded minitia at its default 100 ms blocks and at a minitia's 500 ms (`embedded-500ms`), and on wasmd v0.61.14 (200 ms blocks) as a child process. The deployer confirms each chunk by the SDK's GetTx over abci_query (protobuf), read for its code, log, gas and height only (the 1,000 update events of a chunk skipped, not decoded), where the raw run waits for the last tx only. Rates over 6 rounds of new addresses, the side that goes first alternating (deployer/internal/throughput)."},
	{"Move deployer: publish and throughput (the minitia app + libmovevm)", []string{"./deployer/vm/move/..."}, "6x",
		"Publish: one tx that publishes vip_score (prebuilt for the key), adds the deployer and sets the initial stage (simulate, sign, broadcast, wait). Push: 5,000 new addresses through the deployer (validation, simulated gas model, journal synced once per window of txs, pipelined sequences, result checks overlapping the sends) beside raw pre-signed update_score_script txs of the same chunk size broadcast back to back on the same chain in the same run (the node's own ceiling), on the embedded minitia at 100 ms and at 500 ms blocks (`embedded-500ms`) and on the dev node binary as a process. Chunks are capped so the chain can still simulate them (Initia's 3,000,000-gas contract simulation limit). The deployer confirms each chunk by the SDK's GetTx over abci_query (protobuf), read for its code, log, gas and height only (its `move` events, one per address, skipped, not decoded), where the raw run waits for the last tx only; gas per address includes the SDK's tx-size gas (10 per byte, 40 bytes per address) beside the VM's own (3,309 per new address, the official module's 3,947: see Move contract gas). Rates over 6 rounds of new addresses, the side that goes first alternating (deployer/internal/throughput)."},
	{"Journal: bytes and fsyncs per chunk, resume over a 1,000,000-address journal", []string{"./deployer/journal/..."}, "5x",
		"AppendChunk: EVM-sized chunks (455 addresses, the signed tx as hex) journaled as the push does, with 1 and with 8 txs in flight: the signed txs of a window written together and synced once before the first broadcast (group commit), each outcome riding on the next sync. Resume: opening the journal of a finished 1,000,000-address push (2,198 chunks, each signed and confirmed), line by line; heap-kept-MB is what the folded journal holds afterwards (confirmed chunks keep no signed txs)."},
	{"Score sets in memory", []string{"./deployer/scores/..."}, "1x",
		"A 1,000,000-address EVM score file (CSV, 50 MB) read into the compact canonical set that `scores update` and `verify` work from (each address's bytes, its score and its place in the file in one fixed-size record, in address order): bytes-held/addr is what the set's records hold, heap/addr the Go heap it keeps live after a collection; load-ms covers parsing, decoding, sorting and the duplicate check. The same file as one Go string per address took about 72 bytes an address, twice during validation."},
	{"Audit: a stage's merkle tree and every proof (vipctl audit)", []string{"./deployer/operation/audit/..."}, "1x",
		"A finalized stage of n EVM addresses handed over in pages of 1,000 as the contract's read-back gives them (text addresses decoded by the VM's codec), built into the VIP snapshot's tree (40 bytes a row, 32 a hash, leaves sorted by 32-byte address, sha3-256 leaves and nodes) and every address's proof line streamed to a file (proofs-file-MB); readback is the same pages decoded and dropped, the floor an audit cannot beat. build-ms covers read-back, sort and hashing, proofs-ms the file. peak-rss-MB is the test process's peak resident set during the iteration (VmHWM, reset through /proc/self/clear_refs first), the collector paced at GOGC 25 as `vipctl audit` sets it (at the default 100 the 1M peak was ~190 MB); the vipctl binary itself starts at ~78 MB resident. BenchmarkAuditChain does the same on a live stage of the embedded EVM chain (the contract's getScores pages over JSON-RPC, proofs to io.Discard) beside its read-back alone, at 10,000 and 100,000 addresses, pushed once untimed; 1,000,000 on chain is not set up here (the push alone takes minutes), so the 1M figures are the tree and proofs over in-memory pages."},
	{"Scoring policy: a stage's records scored", []string{"./deployer/policy/..."}, "1x",
		"BenchmarkCompute: n ERC-20 Transfer logs (one a block, made as they are read, as a node or an indexer hands them over: ABI-encoding them is inside the figure) among 10,000 users, scored by three rules: a capped volume sum, a count with a where, and a time-weighted balance; each record ABI-decoded once and seen by the rules' CEL programs, per-user values in exact dyadic numbers. peak-rss-MB is the test process's peak resident set (VmHWM, reset first). BenchmarkComputeChain (deployer/policy/chainbench): the same policy over a stage of 1,000,000 Transfer logs (10,000 blocks of 10 transactions of 10 logs) served by a synthetic chain over JSON-RPC (geth's rpc server, made as it is read) and by the indexer stand-in that indexed it; a child process (the benchmark's own binary) finds the window, reads it from the node (eth_getLogs, receipts and headers in batches of 100, the next batch fetched while one is scored) or from the indexer (evm-txs pages of 1,000, block times from the node, the next page fetched while one is scored), scores it and writes the outputs in memory: records/s over its whole run, records/cpu-s over its CPU time, peak-rss-MB its own VmHWM, load-avg-1m the machine's load when it started. The chain and the indexer run in the parent on the same 2 cores, so the wall rate also pays for serving the JSON; the node and the indexer must give the same score file and input digest (the benchmark fails otherwise). BenchmarkComputeCosmos (the same package): the Move and Wasm readers over a synthetic Cosmos rollup of 10,000 blocks of 10 transactions among 10,000 users (100,000 txs; each a bank send and a play that emits a Move event and a Wasm event, with the ante handler's tx events and fee transfer), served over CometBFT's JSON-RPC (status, header, block, block_results, block_search, tx_search matched by CometBFT's own query package) and a REST route of a block's txs, and by the indexer stand-in that followed it (indexer.NewCosmos); the Move policy (move_event: a capped sum, a count, distinct days; native_transfer: 200,000 records) and the Wasm policy (wasm_event, cosmos_event, native_transfer: 300,000 records) are read by a child from the node (tx_search pages of 100, one search per source) or from the indexer alone (Cosmos txs 1,000 a page), figures as BenchmarkComputeChain's; the node and the indexer must give the same digests. 100,000 txs and not 1,000,000: the indexer stand-in must first follow the chain block by block (three requests a block) and the four children read each tx once per source, which at 1,000,000 would take most of an hour of make bench on this shared machine."},
	{"Indexer stand-in", []string{"./localnet/indexer/..."}, "2s",
		"Page latency with 100,000 indexed txs (p50/p99 over every request of the run), and the indexing rate of a fresh indexer catching up behind a live embedded chain."},
	{"Embedded EVM localnet beside anvil: vipctl's push and memory per address", []string{"./e2e/besideanvil/..."}, "1x",
		"vipctl (built once) deploys, then pushes 20,000 new addresses (`scores update --no-read-back`, timed) to a fresh chain of each kind: `vipctl localnet up --vm evm` (the chain, indexer stand-in, router and L1 stand-ins and local agent in one process) and anvil 1.7.1 from e2e/foundry's pinned npm package, with and without `--prune-history`; 3 rounds, the order reversed every other round. <chain>-addr/s is the side's median round (a chain's rare slow push does not move it); embedded/anvil and embedded/anvil-prune are the embedded chain's rate over each anvil's (above 1: vipctl is faster on the embedded chain); <chain>-rss-MB is the chain process's resident memory after the push and <chain>-KB/addr its growth over the push per address, <chain>-chain-cpu-s and <chain>-vipctl-cpu-s the CPU time the chain process and vipctl used for a push (means over rounds; on two cores a side's speed follows their sum); load1-start/-end are the machine's one-minute load averages around the run (other jobs share its 2 cores). `VIPHARNESS_EVM_SCALE=1000000` also runs BenchmarkScale: that many addresses pushed, finalized (the local agent snapshots the stage) and audited on the embedded chain, with wall times, peak and final RSS of the localnet process per address and its database on disk per address."},
	{"Router stand-in", []string{"./localnet/router/..."}, "1x",
		"1,000 concurrent transfers per iteration (route, msgs, sign, track, status to a terminal state) with a 1 ms step; on an in-memory chain (the stand-in alone) and with each transfer a mined tx on the embedded EVM chain."},
	{"Signers: the Ledger stand-in beside the environment key", []string{"./e2e/signers/..."}, "1x",
		"5,000 new addresses through the deployer on each embedded VM, the operator signing with the environment's key and with the Ledger stand-in (Ethereum app over the Speculos TCP protocol on loopback, confirmations instant: a person adds seconds per chunk). sign-ms/chunk is the time inside the signer per chunk tx (EVM: SIGN TRANSACTION of the RLP; Move and Wasm: SIGN PERSONAL MESSAGE of the amino-JSON doc, SIGN_MODE_EIP_191); apdus/chunk the 255-byte APDUs the device took per chunk."},
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.*)$`)

type row struct {
	name    string
	metrics [][2]string // value, unit
}

func main() {
	out := flag.String("out", "BENCHMARKS.md", "report file")
	demoRuns := flag.Int("demo-runs", 3, "how many times to time the demo")
	only := flag.String("only", "", "rerun only the suites whose title matches this regexp, and keep the rest of the report")
	flag.Parse()
	ctx := context.Background()
	if *only != "" {
		if err := rerunOnly(ctx, *out, *only); err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(1)
		}
		fmt.Println("rewrote sections of", *out)
		return
	}

	var md bytes.Buffer
	fmt.Fprintf(&md, "# Benchmarks\n\nWritten by `make bench` on %s: %d cores, %s, %s/%s.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, s := range suites {
		if len(existing(s.pkgs)) > 0 {
			writeSuite(ctx, &md, s, "")
		}
	}
	writeEngineFigures(ctx, &md)
	fmt.Fprintf(&md, "## `make demo`\n\nWall time of `vipctl demo --vm <vm>` (embedded rollup and L1 stand-in start, stage read, deploy, 2,020 scores, finalize, read back), binary prebuilt, run outside the repository (its own state dir; `VIPHARNESS_MOVEVM` names the Move libraries), median of %d; `make demo` runs all three. Every VM's demo starts the L1 stand-in, a Move dev node (its MoveVM genesis takes a few ms).\n\n| VM | median | runs |\n|---|---|---|\n", *demoRuns)
	for _, vm := range []string{"evm", "wasm", "move"} {
		wall, err := timeDemo(ctx, vm, *demoRuns)
		if err != nil {
			fmt.Fprintf(&md, "| %s | **failed:** %v | |\n", vm, err)
			continue
		}
		fmt.Fprintf(&md, "| %s | **%s** | %s |\n", vm, median(wall).Round(time.Millisecond), durations(wall))
	}
	md.Write(handMeasured(*out))
	if err := os.WriteFile(*out, md.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	fmt.Println("wrote", *out)
}

// writeSuite runs one suite and writes its section; stamp, when given, says under the title
// when and how the section was measured apart from the rest of the report.
func writeSuite(ctx context.Context, md *bytes.Buffer, s suite, stamp string) {
	rows, raw, err := runBench(ctx, existing(s.pkgs), s.benchtime)
	fmt.Fprintf(md, "## %s\n\n", s.title)
	if stamp != "" {
		fmt.Fprintf(md, "%s\n\n", stamp)
	}
	if s.note != "" {
		fmt.Fprintf(md, "%s\n\n", s.note)
	}
	switch {
	case err != nil:
		fmt.Fprintf(md, "**failed:** %v\n\n```\n%s\n```\n\n", err, tail(raw, 30))
		fmt.Fprintf(os.Stderr, "benchreport: %s: %v\n", s.title, err)
	case len(rows) == 0:
		md.WriteString("No benchmarks ran.\n\n")
	default:
		writeRows(md, rows)
	}
}

// rerunOnly reruns the suites whose title matches pattern and puts each section in place of
// its old one in the report at path (found by the title's name, the part before its first
// ":" or "("), or after the report's generated part when it has none; the rest of the report
// is kept as it is, with the date it states.
func rerunOnly(ctx context.Context, path, pattern string) error {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return fmt.Errorf("-only %q: %w", pattern, err)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("-only keeps the rest of the report: %w", err)
	}
	sections := splitSections(string(old))
	ran := 0
	for _, s := range suites {
		if !re.MatchString(s.title) || len(existing(s.pkgs)) == 0 {
			continue
		}
		var md bytes.Buffer
		writeSuite(ctx, &md, s, fmt.Sprintf("*Measured on %s by `go run ./cmd/benchreport -only %q` (%d cores, %s), apart from the rest of this report.*",
			time.Now().UTC().Format("2006-01-02"), pattern, runtime.NumCPU(), runtime.Version()))
		i := slices.IndexFunc(sections, func(sec string) bool { return sectionName(sec) == sectionName("## "+s.title) })
		if i < 0 {
			// Before the engine figures, which follow the suites in a full report.
			i = slices.IndexFunc(sections, func(sec string) bool { return strings.HasPrefix(sec, "## Scoring suite wall time") })
			if i < 0 {
				i = len(sections)
			}
			sections = slices.Insert(sections, i, "")
		}
		sections[i] = md.String()
		ran++
	}
	if ran == 0 {
		return fmt.Errorf("-only %q matches no suite", pattern)
	}
	return os.WriteFile(path, []byte(strings.Join(sections, "")), 0o644)
}

// splitSections cuts a report before each "## " heading: the text before the first one, then
// one piece per section.
func splitSections(report string) []string {
	var out []string
	start := 0
	for i := 0; i < len(report); {
		j := strings.Index(report[i:], "\n## ")
		if j < 0 {
			break
		}
		cut := i + j + 1
		out = append(out, report[start:cut])
		start, i = cut, cut
	}
	return append(out, report[start:])
}

// sectionName is a section's heading up to its first ":" or "(", the part a suite's title
// keeps when its details are reworded.
func sectionName(section string) string {
	title, _, _ := strings.Cut(strings.TrimPrefix(section, "## "), "\n")
	if i := strings.IndexAny(title, ":("); i >= 0 {
		title = title[:i]
	}
	return strings.TrimSpace(title)
}

// handMarker starts the part of the report that is measured by hand (a procedure no Go
// benchmark runs, such as a binary's peak RSS under /usr/bin/time): a rewrite keeps it as
// it is, with the date and method it states.
const handMarker = "<!-- measured by hand: benchreport keeps this part -->"

func handMeasured(path string) []byte {
	old, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	if i := bytes.Index(old, []byte(handMarker)); i >= 0 {
		return old[i:]
	}
	return nil
}

func existing(pkgs []string) []string {
	var out []string
	for _, p := range pkgs {
		dir := strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/...")
		if _, err := os.Stat(dir); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func runBench(ctx context.Context, pkgs []string, benchtime string) ([]row, string, error) {
	return runBenchFiltered(ctx, pkgs, benchtime, ".")
}

func runBenchFiltered(ctx context.Context, pkgs []string, benchtime, filter string) ([]row, string, error) {
	args := append([]string{"test", "-run", "^$", "-bench", filter, "-benchmem", "-benchtime", benchtime, "-timeout", "30m"}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	var rows []row
	sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		r := row{name: m[1]}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			r.metrics = append(r.metrics, [2]string{f[i], f[i+1]})
		}
		rows = append(rows, r)
	}
	if err != nil {
		return rows, buf.String(), fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return rows, buf.String(), nil
}

func writeRows(md *bytes.Buffer, rows []row) {
	fmt.Fprintf(md, "| benchmark | metric | value |\n|---|---|---|\n")
	for _, r := range rows {
		for _, m := range r.metrics {
			if m[1] == "B/op" || m[1] == "allocs/op" {
				continue
			}
			fmt.Fprintf(md, "| %s | %s | %s |\n", r.name, m[1], pretty(m[0], m[1]))
		}
	}
	md.WriteString("\n")
}

func pretty(v, unit string) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return v
	}
	if unit == "ns/op" {
		return time.Duration(f).Round(10 * time.Microsecond).String()
	}
	if f >= 100 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}

func timeDemo(ctx context.Context, vm string, runs int) ([]time.Duration, error) {
	dir, err := os.MkdirTemp("", "benchreport-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "vipctl")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/vipctl").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build vipctl: %v: %s", err, out)
	}
	var wall []time.Duration
	for range runs {
		start := time.Now()
		cmd := exec.CommandContext(ctx, bin, "demo", "--vm", vm, "--json")
		// A state dir of its own; the Move libraries stay where `make setup` put them.
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "VIPHARNESS_MOVEVM="+movevm.Dir())
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("vipctl demo: %v: %s", err, tail(string(out), 10))
		}
		wall = append(wall, time.Since(start))
	}
	return wall, nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func durations(d []time.Duration) string {
	parts := make([]string, len(d))
	for i, x := range d {
		parts[i] = x.Round(time.Millisecond).String()
	}
	return strings.Join(parts, ", ")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// writeEngineFigures times the shared scoring suite on each engine, and a cold build of each
// node image (the image removed first, so Docker builds it from the binary again).
func writeEngineFigures(ctx context.Context, md *bytes.Buffer) {
	md.WriteString("## Scoring suite wall time per engine\n\nThe shared e2e scoring specs (deploy at the L1 stage, fixture and 10,000-address pushes, re-run sends nothing, negative specs, finalize and re-finalize, stage sync), compiled beforehand, one engine at a time, for every VM it runs (embedded, process, container: EVM, Wasm and Move, Move on the process and container engines being our dev node binary; the -devnode rows: Wasm on our dev node binary).\n\n| engine | wall time | result |\n|---|---|---|\n")
	bin := filepath.Join(os.TempDir(), "benchreport-scoring.test")
	if out, err := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, "./e2e/scoring").CombinedOutput(); err != nil {
		fmt.Fprintf(md, "| all | - | build failed: %s |\n\n", tail(string(out), 3))
		return
	}
	defer os.Remove(bin)
	for _, t := range []struct{ engines, label string }{
		{"embedded", "embedded"}, {"process", "process"}, {"process", "process-devnode"},
		{"container", "container"}, {"container", "container-devnode"},
	} {
		cmd := exec.CommandContext(ctx, bin, "-test.count=1", "-ginkgo.label-filter="+t.label)
		cmd.Dir = "e2e/scoring"
		cmd.Env = append(os.Environ(), "E2E_ENGINES="+t.engines)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		result := "pass"
		switch {
		case err != nil:
			result = "failed: " + strings.ReplaceAll(tail(string(out), 1), "|", "/")
		case strings.Contains(string(out), "Ran 0 of"):
			result = "skipped (no node binary or Docker)"
		}
		fmt.Fprintf(md, "| %s | %s | %s |\n", t.label, time.Since(start).Round(10*time.Millisecond), result)
	}
	md.WriteString("\n## Node image cold build\n\nThe container engine's image removed, then one container start (build from the binary and the libraries it needs, create, start, readiness, removal).\n\n| image | cold start incl. build |\n|---|---|\n")
	for _, img := range []struct{ name, bench string }{
		{"vipharness/geth:v1.17.8", "BenchmarkStartGethContainer$"},
		{"vipharness/wasmd:v0.61.14", "BenchmarkStartWasmdContainer$"},
		{"vipharness/devnode", "BenchmarkStartDevNodeContainer$"},
	} {
		removeImages(ctx, img.name)
		rows, _, err := runBenchFiltered(ctx, []string{"./localnet/container/..."}, "1x", img.bench)
		switch {
		case err != nil || len(rows) == 0:
			fmt.Fprintf(md, "| %s | not measured (%v) |\n", img.name, err)
		default:
			for _, m := range rows[0].metrics {
				if m[1] == "ns/op" {
					fmt.Fprintf(md, "| %s | %s |\n", img.name, pretty(m[0], m[1]))
				}
			}
		}
	}
	md.WriteString("\n")
}

// removeImages removes an image, or every tag of a repository named without a tag.
func removeImages(ctx context.Context, name string) {
	refs := []string{name}
	if !strings.Contains(name, ":") {
		out, _ := exec.CommandContext(ctx, "docker", "images", "-q", name).Output()
		refs = strings.Fields(string(out))
	}
	for _, r := range refs {
		_ = exec.CommandContext(ctx, "docker", "rmi", "-f", r).Run()
	}
}
