package wasm_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	wasmvm "github.com/CosmWasm/wasmvm/v3"

	wasmcontract "github.com/vipharness/vipharness/contracts/wasm"
)

var update = flag.Bool("update", false, "rewrite the golden files in fixtures/wasm")

const goldenDir = "../../fixtures/wasm"

func TestArtifactMatchesRecordedChecksum(t *testing.T) {
	sum := sha256.Sum256(wasmcontract.Code())
	if got, want := hex.EncodeToString(sum[:]), wasmcontract.Checksum(); got != want {
		t.Fatalf("artifacts/vip_score.wasm has sha256 %s, vip_score.wasm.sha256 records %q", got, want)
	}
}

func TestStoreCodePassesStaticAnalysis(t *testing.T) {
	vm := newVM(t)
	checksum, _, err := vm.StoreCode(wasmcontract.Code(), callGasLimit)
	if err != nil {
		t.Fatalf("StoreCode: %v", err)
	}
	if got := hex.EncodeToString(checksum); got != wasmcontract.Checksum() {
		t.Errorf("StoreCode checksum %s, want %s", got, wasmcontract.Checksum())
	}
	report, err := vm.AnalyzeCode(checksum)
	if err != nil {
		t.Fatalf("AnalyzeCode: %v", err)
	}
	if report.HasIBCEntryPoints {
		t.Error("AnalyzeCode reports IBC entry points; the contract has none")
	}
	if report.RequiredCapabilities != "iterator" {
		t.Errorf("required capabilities %q, want %q", report.RequiredCapabilities, "iterator")
	}
	entry := slices.Clone(report.Entrypoints)
	sort.Strings(entry)
	if want := []string{"execute", "instantiate", "migrate", "query"}; !slices.Equal(entry, want) {
		t.Errorf("entry points %v, want %v", entry, want)
	}
	if report.ContractMigrateVersion != nil {
		t.Errorf("migrate version %d, want none", *report.ContractMigrateVersion)
	}
	t.Logf("vip_score.wasm: %d bytes, sha256 %s", len(wasmcontract.Code()), wasmcontract.Checksum())
}

// The static checks must be live: a chain without the iterator capability,
// or with another interface version, refuses the code.
func TestStaticAnalysisRejectsIncompatibleCode(t *testing.T) {
	vm, err := wasmvm.NewVM(t.TempDir(), []string{"staking", "stargate"}, 32, false, 16)
	if err != nil {
		t.Fatalf("create wasmvm: %v", err)
	}
	t.Cleanup(vm.Cleanup)
	if _, _, err := vm.StoreCode(wasmcontract.Code(), callGasLimit); err == nil || !strings.Contains(err.Error(), "iterator") {
		t.Errorf("StoreCode without the iterator capability: err %v, want an unavailable-capability error", err)
	}

	tampered := bytes.Replace(wasmcontract.Code(), []byte("interface_version_8"), []byte("interface_version_9"), 1)
	if bytes.Equal(tampered, wasmcontract.Code()) {
		t.Fatal("artifact has no interface_version_8 export name")
	}
	if _, _, err := newVM(t).StoreCode(tampered, callGasLimit); err == nil || !strings.Contains(err.Error(), "interface_version") {
		t.Errorf("StoreCode with interface_version_9: err %v, want an interface version error", err)
	}
}

func TestScoringLifecycle(t *testing.T) {
	c := newChain(t)
	admin, operator, outsider := testAddr(1), testAddr(2), testAddr(99)
	users := []string{testAddr(10), testAddr(11), testAddr(12), testAddr(13), testAddr(14)}

	inst := c.instantiate(admin, obj{"allow_list": []string{admin, operator}, "init_stage": 5})
	if inst.err != "" {
		t.Fatalf("instantiate: %s", inst.err)
	}
	checkGolden(t, "instantiate_events.json", events(inst.res))
	var st stageInfo
	checkGolden(t, "get_stage_info_open.json", c.mustQuery(obj{"get_stage_info": obj{"stage": 5}}, &st))
	if st != (stageInfo{Stage: 5}) {
		t.Fatalf("stage 5 after instantiate: %+v", st)
	}

	res := c.mustExecute(operator, scoresMsg(5, users[0], 100, users[1], 250, users[2], 0, users[3], 7, users[4], 1_000_000))
	checkGolden(t, "update_scores_events.json", events(res))
	want := map[string]uint64{users[0]: 100, users[1]: 250, users[2]: 0, users[3]: 7, users[4]: 1_000_000}
	wantTotal := uint64(1_000_357)

	var us userScore
	checkGolden(t, "get_score.json", c.mustQuery(obj{"get_score": obj{"addr": users[1], "stage": 5}}, &us))
	if us != (userScore{Stage: 5, Addr: users[1], Score: 250}) {
		t.Fatalf("get_score: %+v", us)
	}

	// Page through with several page sizes; every page is ordered by address.
	var page userScores
	checkGolden(t, "get_scores_page.json", c.mustQuery(obj{"get_scores": obj{"stage": 5, "limit": 2}}, &page))
	for _, limit := range []int{1, 2, 3, 10} {
		if got := allScores(t, c, 5, limit); !maps.Equal(got, want) {
			t.Fatalf("get_scores with limit %d: %v, want %v", limit, got, want)
		}
	}
	if c.mustQuery(obj{"get_scores": obj{"stage": 5, "limit": 0}}, &page); len(page.Scores) != 0 {
		t.Errorf("limit 0 returned %d scores", len(page.Scores))
	}
	checkStage(t, c, 5, wantTotal, false)

	// Single-address updates keep the stage total.
	c.mustExecute(operator, obj{"update_score": obj{"addr": users[0], "stage": 5, "amount": 40}})
	c.mustExecute(admin, obj{"increase_score": obj{"addr": users[2], "stage": 5, "amount": 5}})
	c.mustExecute(admin, obj{"decrease_score": obj{"addr": users[4], "stage": 5, "amount": 999_000}})
	want[users[0]], want[users[2]], want[users[4]] = 40, 5, 1_000
	wantTotal = 40 + 250 + 5 + 7 + 1_000
	checkStage(t, c, 5, wantTotal, false)
	if got := allScores(t, c, 5, 2); !maps.Equal(got, want) {
		t.Fatalf("scores after single updates: %v, want %v", got, want)
	}

	// Finalizing 5 opens 6.
	res = c.mustExecute(admin, obj{"finalize_stage": obj{"stage": 5}})
	if got, wantEv := events(res), []string{"finalize-stage{stage=5}", "create-stage{stage=6}"}; !slices.Equal(got, wantEv) {
		t.Fatalf("finalize events %v, want %v", got, wantEv)
	}
	checkStage(t, c, 5, wantTotal, true)
	checkStage(t, c, 6, 0, false)

	// A finalized stage is frozen.
	r := c.execute(operator, scoresMsg(5, users[0], 1))
	expectErr(t, "update finalized stage", r.err, "Stage finalized: stage 5")
	r = c.execute(operator, obj{"increase_score": obj{"addr": users[0], "stage": 5, "amount": 1}})
	expectErr(t, "increase finalized stage", r.err, "Stage finalized: stage 5")
	if got := allScores(t, c, 5, 10); !maps.Equal(got, want) {
		t.Fatalf("finalized stage changed: %v, want %v", got, want)
	}

	c.mustExecute(operator, scoresMsg(6, users[3], 70, users[0], 30))
	checkStage(t, c, 6, 100, false)

	// Only allow-listed senders may write.
	r = c.execute(outsider, scoresMsg(6, users[1], 1))
	expectErr(t, "non-allowed sender", r.err, "Address is not allowed: \""+outsider+"\"")

	// Re-finalizing 5 is refused and leaves stage 6 as it was.
	r = c.execute(admin, obj{"finalize_stage": obj{"stage": 5}})
	expectErr(t, "re-finalize", r.err, "Stage already finalized: stage 5")
	checkStage(t, c, 6, 100, false)
	if got := allScores(t, c, 6, 10); !maps.Equal(got, map[string]uint64{users[3]: 70, users[0]: 30}) {
		t.Fatalf("stage 6 scores after re-finalize attempt: %v", got)
	}

	// Allow-list management.
	res = c.mustExecute(admin, obj{"add_allow_list": obj{"addr": outsider}})
	if got := events(res); !slices.Equal(got, []string{"add-allow-list{addr=" + outsider + "}"}) {
		t.Errorf("add_allow_list events %v", got)
	}
	c.mustExecute(outsider, obj{"update_score": obj{"addr": users[1], "stage": 6, "amount": 9}})
	res = c.mustExecute(admin, obj{"remove_allow_list": obj{"addr": outsider}})
	if got := events(res); !slices.Equal(got, []string{"remove-allow-list{addr=" + outsider + "}"}) {
		t.Errorf("remove_allow_list events %v", got)
	}
	r = c.execute(outsider, obj{"update_score": obj{"addr": users[1], "stage": 6, "amount": 10}})
	expectErr(t, "removed sender", r.err, "Address is not allowed")
	checkStage(t, c, 6, 109, false)

	// The official contract's migrate entry point accepts {} over this state.
	mig, _, err := c.vm.Migrate(c.checksum, c.env(), []byte(`{}`), c.store, chainAPI(), noQuerier{}, sdkGasMeter{c.store}, callGasLimit, deserCost)
	if err != nil || mig.Err != "" {
		t.Fatalf("migrate: vm error %v, contract error %q", err, mig.Err)
	}
}

func TestGetScoresPagesLargeStage(t *testing.T) {
	c := newChain(t)
	admin := testAddr(1)
	if r := c.instantiate(admin, obj{"allow_list": []string{admin}, "init_stage": 1}); r.err != "" {
		t.Fatalf("instantiate: %s", r.err)
	}
	want := map[string]uint64{}
	var pairs []any
	for i := range 57 {
		a := testAddr(1000 + i*37)
		want[a] = uint64(i * i)
		pairs = append(pairs, a, i*i)
	}
	c.mustExecute(admin, scoresMsg(1, pairs...))
	// A neighbouring stage must not leak into the pages.
	c.mustExecute(admin, obj{"finalize_stage": obj{"stage": 1}})
	c.mustExecute(admin, scoresMsg(2, testAddr(5), 5))
	for _, limit := range []int{1, 7, 56, 57, 100} {
		if got := allScores(t, c, 1, limit); !maps.Equal(got, want) {
			t.Fatalf("limit %d: got %d scores, want %d", limit, len(got), len(want))
		}
	}
	var page userScores
	c.mustQuery(obj{"get_scores": obj{"stage": 3, "limit": 10}}, &page)
	if len(page.Scores) != 0 {
		t.Errorf("stage 3 (absent) listed %d scores", len(page.Scores))
	}
}

func TestFailuresAreErrorsNotTraps(t *testing.T) {
	admin, user := testAddr(1), testAddr(20)
	upper := strings.ToUpper(user)
	wrongPrefix := bech32Encode("cosmos", bytes.Repeat([]byte{1}, 20))
	setup := func(t *testing.T) *chain {
		c := newChain(t)
		if r := c.instantiate(admin, obj{"allow_list": []string{admin}, "init_stage": 3}); r.err != "" {
			t.Fatalf("instantiate: %s", r.err)
		}
		c.mustExecute(admin, scoresMsg(3, user, 10))
		return c
	}
	cases := []struct {
		name string
		msg  any
		want string
	}{
		{"not JSON", `{"update_score":`, "execute message: invalid JSON at byte 16: unexpected end of input"},
		{"unknown message", obj{"set_score": obj{}}, `unknown message "set_score", expected one of update_scores, update_score`},
		{"two messages", obj{"finalize_stage": obj{"stage": 3}, "update_score": obj{}}, "expected an object with exactly one key"},
		{"missing field", obj{"finalize_stage": obj{}}, "finalize_stage: missing field `stage`"},
		{"unknown field", obj{"finalize_stage": obj{"stage": 3, "force": true}}, `finalize_stage: unknown field "force", expected stage`},
		{"stage as string", `{"finalize_stage":{"stage":"3"}}`, "finalize_stage.stage: expected an unsigned integer, got a string"},
		{"negative amount", `{"update_score":{"addr":"` + user + `","stage":3,"amount":-1}}`, "update_score.amount must not be negative"},
		{"fractional amount", `{"update_score":{"addr":"` + user + `","stage":3,"amount":1.5}}`, "update_score.amount must be a whole number"},
		{"amount above u64", `{"update_score":{"addr":"` + user + `","stage":3,"amount":18446744073709551616}}`, "update_score.amount is larger than the u64 maximum"},
		{"bad pair", `{"update_scores":{"stage":3,"scores":[["` + user + `"]]}}`, "scores[0]: expected a two-element array [address, score], got an array of 1"},
		{"bad checksum", scoresMsg(3, user, 1, user[:len(user)-1]+"q", 2), `scores[1][0]: invalid address "` + user[:len(user)-1] + `q": decoding bech32 failed: invalid checksum`},
		{"upper case", scoresMsg(3, upper, 1), "scores[0][0]: invalid address"},
		{"wrong prefix", obj{"update_score": obj{"addr": wrongPrefix, "stage": 3, "amount": 1}}, "update_score.addr: invalid address \"" + wrongPrefix + "\": invalid Bech32 prefix; expected init, got cosmos"},
		{"empty address", obj{"update_score": obj{"addr": "", "stage": 3, "amount": 1}}, "update_score.addr: invalid address \"\": address is empty"},
		{"long address", obj{"add_allow_list": obj{"addr": strings.Repeat("a", 300)}}, "address is longer than 256 bytes"},
		{"missing stage", scoresMsg(4, user, 1), "Stage not found: stage 4 does not exist"},
		{"finalize missing stage", obj{"finalize_stage": obj{"stage": 9}}, "Stage not found: stage 9"},
		{"decrease below zero", obj{"decrease_score": obj{"addr": user, "stage": 3, "amount": 11}}, "Insufficient score: \"" + user + "\" has 10 at stage 3, cannot decrease by 11"},
		{"decrease unknown user", obj{"decrease_score": obj{"addr": admin, "stage": 3, "amount": 1}}, "User score not found"},
		{"increase overflow", `{"increase_score":{"addr":"` + user + `","stage":3,"amount":18446744073709551615}}`, "Score overflow"},
		{"total overflow", `{"update_scores":{"stage":3,"scores":[["` + admin + `",18446744073709551615]]}}`, "Score overflow: total score of stage 3"},
		{"remove non-member", obj{"remove_allow_list": obj{"addr": user}}, "Address is not on the allow list"},
		{"remove last member", obj{"remove_allow_list": obj{"addr": admin}}, "it is the last address on the allow list"},
	}
	c := setup(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.execute(admin, tc.msg)
			expectErr(t, tc.name, r.err, tc.want)
		})
	}
	// Nothing above may have changed state.
	checkStage(t, c, 3, 10, false)
	if got := allScores(t, c, 3, 10); !maps.Equal(got, map[string]uint64{user: 10}) {
		t.Fatalf("scores changed by failed calls: %v", got)
	}

	queries := []struct {
		name string
		msg  any
		want string
	}{
		{"score of unknown user", obj{"get_score": obj{"addr": admin, "stage": 3}}, "Score not found: \"" + admin + "\" has no score at stage 3"},
		{"score in unknown stage", obj{"get_score": obj{"addr": user, "stage": 8}}, "Stage not found: stage 8"},
		{"unknown stage info", obj{"get_stage_info": obj{"stage": 8}}, "Stage not found: stage 8"},
		{"bad start_after", obj{"get_scores": obj{"stage": 3, "limit": 5, "start_after": "init1"}}, "get_scores.start_after: invalid address"},
		{"limit missing", obj{"get_scores": obj{"stage": 3}}, "get_scores: missing field `limit`"},
		{"unknown query", obj{"get_total": obj{}}, `query message: unknown message "get_total"`},
	}
	for _, tc := range queries {
		t.Run("query "+tc.name, func(t *testing.T) {
			_, cerr := c.query(tc.msg)
			expectErr(t, tc.name, cerr, tc.want)
		})
	}

	inst := []struct {
		name string
		msg  any
		want string
	}{
		{"stage zero", obj{"allow_list": []string{admin}, "init_stage": 0}, "Stage can not be zero"},
		{"empty allow list", obj{"allow_list": []string{}, "init_stage": 1}, "allow_list is empty"},
		{"bad allow-list address", obj{"allow_list": []string{admin, "init1xyz"}, "init_stage": 1}, "allow_list[1]: invalid address \"init1xyz\""},
		{"missing init_stage", obj{"allow_list": []string{admin}}, "instantiate: missing field `init_stage`"},
	}
	for _, tc := range inst {
		t.Run("instantiate "+tc.name, func(t *testing.T) {
			fresh := newChain(t)
			r := fresh.instantiate(admin, tc.msg)
			expectErr(t, tc.name, r.err, tc.want)
		})
	}
}

// TestUpdateScoresGas measures what one more address costs in update_scores,
// for chunk sizing. wasmvm's figure is CosmWasm gas (wasmd divides by
// gasMultiplier); storage gas is the SDK's KV gas that wasmd charges besides.
func TestUpdateScoresGas(t *testing.T) {
	const n = 200
	c := newChain(t)
	admin := testAddr(1)
	if r := c.instantiate(admin, obj{"allow_list": []string{admin}, "init_stage": 1}); r.err != "" {
		t.Fatalf("instantiate: %s", r.err)
	}
	batch := func(from, count, score int) []any {
		var pairs []any
		for i := range count {
			pairs = append(pairs, testAddr(from+i), score)
		}
		return pairs
	}
	run := func(pairs []any) callResult {
		r := c.execute(admin, scoresMsg(1, pairs...))
		if r.err != "" {
			t.Fatalf("update_scores: %s", r.err)
		}
		return r
	}
	one := run(batch(5000, 1, 1))
	many := run(batch(6000, n, 1))
	oneAgain := run(batch(5000, 1, 2))
	manyAgain := run(batch(6000, n, 2))
	unchanged := run(batch(6000, n, 2))

	perNew := (many.gas - one.gas) / (n - 1)
	perOverwrite := (manyAgain.gas - oneAgain.gas) / (n - 1)
	perUnchanged := (unchanged.gas - oneAgain.gas) / (n - 1)
	kvNew := (many.sdkGas - one.sdkGas) / (n - 1)
	kvOverwrite := (manyAgain.sdkGas - oneAgain.sdkGas) / (n - 1)
	t.Logf("update_scores, one address: %d CosmWasm gas (%d SDK gas) + %d SDK storage gas", one.gas, one.gas/gasMultiplier, one.sdkGas)
	t.Logf("per new address:       %d CosmWasm gas (%.1f SDK gas) + %d SDK storage gas", perNew, float64(perNew)/gasMultiplier, kvNew)
	t.Logf("per overwritten score: %d CosmWasm gas (%.1f SDK gas) + %d SDK storage gas", perOverwrite, float64(perOverwrite)/gasMultiplier, kvOverwrite)
	t.Logf("per unchanged score:   %d CosmWasm gas (%.1f SDK gas) + %d SDK storage gas", perUnchanged, float64(perUnchanged)/gasMultiplier, (unchanged.sdkGas-oneAgain.sdkGas)/(n-1))
	if perNew == 0 || perOverwrite == 0 || kvNew == 0 {
		t.Fatal("gas did not grow with the number of addresses")
	}
	// Chunk sizing assumes 1,000 new addresses fit in 10M SDK gas.
	if sdk := perNew/gasMultiplier + kvNew; sdk > 10_000 {
		t.Errorf("a new address costs %d SDK gas, over the 10,000 budget", sdk)
	}
	if unchanged.sdkGas >= manyAgain.sdkGas {
		t.Errorf("resending unchanged scores cost %d storage gas, not less than writing them (%d)", unchanged.sdkGas, manyAgain.sdkGas)
	}
}

// A message larger than a chain accepts in one tx (~1 MB) still runs within
// wasmd's default 32 MiB instance memory and comes back as a result.
func TestBatchBeyondTxSizeRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("large batch skipped in -short mode")
	}
	const n = 25_000
	c := newChain(t)
	admin := testAddr(1)
	if r := c.instantiate(admin, obj{"allow_list": []string{admin}, "init_stage": 1}); r.err != "" {
		t.Fatalf("instantiate: %s", r.err)
	}
	pairs := make([]any, 0, 2*n)
	for i := range n {
		pairs = append(pairs, testAddr(100_000+i), i%7)
	}
	msg := mustJSON(t, scoresMsg(1, pairs...))
	res := c.mustExecute(admin, msg)
	if len(res.Events) != n {
		t.Fatalf("%d events for %d scores", len(res.Events), n)
	}
	var total uint64
	for i := range n {
		total += uint64(i % 7)
	}
	checkStage(t, c, 1, total, false)
	t.Logf("%d scores in a %d-byte message", n, len(msg))
}

func TestRebuildReproducesArtifact(t *testing.T) {
	if os.Getenv("VIPHARNESS_CHECK_REBUILD") != "1" {
		t.Skip("set VIPHARNESS_CHECK_REBUILD=1 to rebuild with build.sh and compare with artifacts/vip_score.wasm " +
			"(needs: apt-get install -y rustc cargo libstd-rust-dev-wasm32 lld binaryen wabt)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out := t.TempDir()
	cmd := exec.CommandContext(ctx, "bash", "build.sh", "--test", out)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 && !toolchainRequired() {
		// build.sh's exit 3: a tool is missing (`make setup` installs it as root).
		t.Skipf("%s(set REQUIRE_TOOLCHAIN=1 or CI=true to fail instead)", log.String())
	}
	if err != nil {
		t.Fatalf("build.sh: %v\n%s", err, log.String())
	}
	for _, name := range []string{"vip_score.wasm", "vip_score.wasm.sha256"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatalf("read rebuilt %s: %v", name, err)
		}
		want, err := os.ReadFile(filepath.Join("artifacts", name))
		if err != nil {
			t.Fatalf("read committed %s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("rebuilt %s differs from the committed one (%d vs %d bytes); rerun build.sh and commit, or find the nondeterminism", name, len(got), len(want))
		}
	}
}

// toolchainRequired: in CI a missing compiler is a failure, on a laptop a skip.
func toolchainRequired() bool {
	return os.Getenv("REQUIRE_TOOLCHAIN") == "1" || os.Getenv("CI") == "true"
}

func expectErr(t *testing.T, what, got, want string) {
	t.Helper()
	if got == "" {
		t.Errorf("%s: succeeded, want error containing %q", what, want)
	} else if !strings.Contains(got, want) {
		t.Errorf("%s: error %q, want it to contain %q", what, got, want)
	}
}

func checkStage(t *testing.T, c *chain, stage, total uint64, finalized bool) {
	t.Helper()
	var got stageInfo
	c.mustQuery(obj{"get_stage_info": obj{"stage": stage}}, &got)
	if want := (stageInfo{Stage: stage, TotalScore: total, IsFinalized: finalized}); got != want {
		t.Fatalf("stage %d: %+v, want %+v", stage, got, want)
	}
}

// allScores pages through get_scores and checks ordering on the way.
func allScores(t *testing.T, c *chain, stage uint64, limit int) map[string]uint64 {
	t.Helper()
	got := map[string]uint64{}
	last := ""
	for pages := 0; ; pages++ {
		if pages > 10_000 {
			t.Fatal("get_scores never ends")
		}
		q := obj{"stage": stage, "limit": limit}
		if last != "" {
			q["start_after"] = last
		}
		var page userScores
		c.mustQuery(obj{"get_scores": q}, &page)
		if len(page.Scores) > limit {
			t.Fatalf("page of %d scores for limit %d", len(page.Scores), limit)
		}
		for _, s := range page.Scores {
			if s.Stage != stage || s.Addr <= last {
				t.Fatalf("get_scores out of order or wrong stage: %+v after %q", s, last)
			}
			got[s.Addr] = s.Score
			last = s.Addr
		}
		if len(page.Scores) < limit {
			return got
		}
	}
}

// checkGolden compares v (raw JSON bytes or a value to encode) with the
// golden file, rewriting it under -update.
func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	var got []byte
	if b, ok := v.([]byte); ok {
		got = append(bytes.Clone(b), '\n')
	} else {
		got = append(mustJSONIndent(t, v), '\n')
	}
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("write golden %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s (run go test -update to create it): %v", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\ngot:  %s\nwant: %s", name, got, want)
	}
}

func mustJSONIndent(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	b := mustJSON(t, v)
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		t.Fatalf("indent %s: %v", b, err)
	}
	return buf.Bytes()
}
