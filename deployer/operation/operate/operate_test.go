package operate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/vipharness/vipharness/deployer/deployertest"
	"github.com/vipharness/vipharness/deployer/operation/guard"
	"github.com/vipharness/vipharness/deployer/scores"
)

// memSource answers per stage; a stage with an error set fails.
type memSource struct {
	mu    sync.Mutex
	sets  map[uint64][]scores.Entry
	fail  map[uint64]error
	reads int
}

func newSource() *memSource {
	return &memSource{sets: map[uint64][]scores.Entry{}, fail: map[uint64]error{}}
}

func (m *memSource) set(stage uint64, e []scores.Entry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sets[stage] = e
}

func (m *memSource) Scores(_ context.Context, stage uint64, emit func(scores.Entry)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	if err := m.fail[stage]; err != nil {
		return err
	}
	for _, e := range m.sets[stage] {
		emit(e)
	}
	return nil
}

// collect reads a source's answer for stage as entries.
func collect(src Source, stage uint64) ([]scores.Entry, error) {
	var out []scores.Entry
	err := src.Scores(context.Background(), stage, func(e scores.Entry) { out = append(out, e) })
	return out, err
}
func (m *memSource) Changed(uint64) bool { return false }
func (m *memSource) PerStage() bool      { return true }
func (m *memSource) String() string      { return "memory" }

func onChain(t *testing.T, s *deployertest.Scorer, stage uint64) map[string]uint64 {
	t.Helper()
	rows, err := s.Scores(context.Background(), stage)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, r := range rows {
		out[r.Addr] = r.Amount
	}
	return out
}

func asMap(e []scores.Entry) map[string]uint64 {
	out := map[string]uint64{}
	for _, x := range e {
		out[x.Addr] = x.Amount
	}
	return out
}

func equal(a, b map[string]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func setup(t *testing.T, stage uint64, opts ...Option) (*Operator, *deployertest.Scorer, *deployertest.L1, *memSource) {
	s := deployertest.New(stage)
	l1 := deployertest.NewL1(stage)
	src := newSource()
	return New(s, l1, src, t.TempDir(), opts...), s, l1, src
}

func TestOncePushesOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	op, s, _, src := setup(t, 5)
	first := scores.Generate(50, 1)
	src.set(5, first)
	if err := op.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if !equal(onChain(t, s, 5), asMap(first)) || s.Written != 50 {
		t.Fatalf("after the first pass: %d written", s.Written)
	}
	// Nothing changed: nothing is sent.
	if err := op.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Updates != 1 {
		t.Fatalf("an unchanged source sent %d updates", s.Updates-1)
	}
	// Three scores change, one address is dropped (zeroed), two are new.
	next := append([]scores.Entry(nil), first[1:]...)
	for i := range 3 {
		next[i].Amount += 7
	}
	next = append(next, scores.Generate(52, 1)[50:]...)
	src.set(5, next)
	if err := op.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.Written - 50; got != 6 {
		t.Fatalf("the diff wrote %d entries, want 6 (3 changed, 1 dropped, 2 new)", got)
	}
	want := asMap(next)
	want[first[0].Addr] = 0
	if !equal(onChain(t, s, 5), want) {
		t.Fatal("stage 5 does not hold the source's scores")
	}
	if s.Finalizes != 0 {
		t.Fatal("finalized a stage the L1 has not moved past")
	}
	if got := value(op.metrics.entriesPushed); got != 56 {
		t.Fatalf("entries_pushed_total = %v", got)
	}
}

func TestFinalizesEveryStageTheL1MovedPastInOrder(t *testing.T) {
	ctx := context.Background()
	op, s, l1, src := setup(t, 5)
	sets := map[uint64][]scores.Entry{}
	for st := uint64(5); st <= 8; st++ {
		sets[st] = scores.Generate(10+int(st), int64(st))
		src.set(st, sets[st])
	}
	if err := op.Once(ctx); err != nil {
		t.Fatal(err)
	}
	// The source changes before the L1 moves: stage 5 closes with its final scores.
	sets[5] = scores.Generate(9, 55)
	src.set(5, sets[5])
	l1.Set(8) // stages 6 and 7 skipped by the L1
	if err := op.Once(ctx); err != nil {
		t.Fatal(err)
	}
	for st := uint64(5); st <= 7; st++ {
		if !s.Finalized(st) {
			t.Fatalf("stage %d not finalized", st)
		}
		want := asMap(sets[st])
		if st == 5 { // the addresses of the first set that the final one dropped are zero
			for _, e := range scores.Generate(15, 5) {
				if _, ok := want[e.Addr]; !ok {
					want[e.Addr] = 0
				}
			}
		}
		if !equal(onChain(t, s, st), want) {
			t.Fatalf("stage %d does not hold its final scores", st)
		}
	}
	if s.Finalized(8) || !equal(onChain(t, s, 8), asMap(sets[8])) {
		t.Fatal("stage 8 must be open, holding the source's scores")
	}
	if s.Finalizes != 3 {
		t.Fatalf("%d finalizes, want 3", s.Finalizes)
	}
	// A retried pass changes nothing.
	before := s.Updates
	if err := op.Once(ctx); err != nil || s.Finalizes != 3 || s.Updates != before {
		t.Fatalf("retry: err %v, finalizes %d, updates %d -> %d", err, s.Finalizes, before, s.Updates)
	}
	if got := value(op.metrics.finalizedStage); got != 7 {
		t.Fatalf("finalized_stage = %v", got)
	}
}

func TestNeverFinalizesOnAFailingOrEmptySource(t *testing.T) {
	tests := []struct {
		name       string
		answer     []scores.Entry
		fail       error
		allowEmpty bool
		finalized  bool
		sourceErrs float64
	}{
		{name: "command failed", answer: scores.Generate(3, 9), fail: errors.New("exit status 1"), sourceErrs: 1},
		{name: "malformed output", answer: []scores.Entry{{Addr: "0xnot-an-address", Amount: 1}}, sourceErrs: 1},
		{name: "empty answer", sourceErrs: 1},
		{name: "empty answer, allowed", allowEmpty: true, finalized: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			op, s, l1, src := setup(t, 5, WithAllowEmpty(tc.allowEmpty))
			good := scores.Generate(4, 3)
			src.set(5, good)
			if err := op.Once(ctx); err != nil {
				t.Fatal(err)
			}
			updates := s.Updates
			src.set(5, tc.answer)
			src.fail[5] = tc.fail
			l1.Set(6)
			err := op.Once(ctx)
			if tc.finalized {
				if err != nil || !s.Finalized(5) {
					t.Fatalf("err %v, finalized %v", err, s.Finalized(5))
				}
				if got := onChain(t, s, 5); got[good[0].Addr] != 0 {
					t.Fatal("a stage the source says is empty is finalized with its earlier scores")
				}
				return
			}
			var se *SourceError
			if !errors.As(err, &se) || se.Stage != 5 {
				t.Fatalf("err = %v, want the source's", err)
			}
			if s.Finalized(5) || s.Updates != updates {
				t.Fatalf("a failing source led to a write: finalized %v, updates %d -> %d", s.Finalized(5), updates, s.Updates)
			}
			if got := value(op.metrics.sourceErrors); got != tc.sourceErrs {
				t.Fatalf("source_errors_total = %v", got)
			}
		})
	}
}

func TestAFailedPushIsResumedWithTheSameEntries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := deployertest.New(5)
	l1 := deployertest.NewL1(5)
	src := newSource()
	first := scores.Generate(8, 4)
	src.set(5, first)
	op := New(s, l1, src, dir)
	s.FailNext = errors.New("node unreachable")
	if err := op.Once(ctx); err == nil {
		t.Fatal("want the push error")
	}
	p, err := op.pending.load(s.Codec())
	if err != nil || p == nil || p.set.Len() != 8 || p.stage != 5 {
		t.Fatalf("pending push = %+v, %v", p, err)
	}
	// A new process (a restart) resumes the pending push before reading the source again.
	src.set(5, scores.Generate(3, 4))
	again := New(s, l1, src, dir)
	if err := again.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if p, _ := again.pending.load(s.Codec()); p != nil {
		t.Fatal("pending push not cleared")
	}
	want := asMap(scores.Generate(3, 4))
	for _, e := range first[3:] {
		want[e.Addr] = 0
	}
	if !equal(onChain(t, s, 5), want) {
		t.Fatal("the stage does not hold the source's latest scores")
	}
	if got := value(again.metrics.chainErrors.WithLabelValues("push")); got != 0 {
		t.Fatalf("chain errors on the new operator: %v", got)
	}
}

func TestContractAheadOfTheL1SendsNothing(t *testing.T) {
	ctx := context.Background()
	op, s, l1, src := setup(t, 5)
	src.set(5, scores.Generate(2, 1))
	src.set(6, scores.Generate(2, 2))
	if err := op.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinalizeStage(ctx, 5); err != nil { // by hand, ahead of the L1
		t.Fatal(err)
	}
	updates := s.Updates
	l1.Set(5)
	err := op.Once(ctx)
	if err == nil || !strings.Contains(err.Error(), "ahead of the L1") {
		t.Fatalf("err = %v", err)
	}
	if s.Updates != updates || s.Finalizes != 1 {
		t.Fatal("sent something while the contract was ahead of the L1")
	}
}

func TestRunStopsBetweenWrites(t *testing.T) {
	op, s, _, src := setup(t, 5, WithPoll(5*time.Millisecond), WithEvery(5*time.Millisecond))
	src.set(5, scores.Generate(3, 1))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- op.Run(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for s.UpdateCount() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop")
	}
	if n := s.UpdateCount(); n != 1 {
		t.Fatalf("%d updates", n)
	}
}

func TestACommandIsRunEveryIntervalNotEveryPoll(t *testing.T) {
	op, _, _, src := setup(t, 5, WithPoll(2*time.Millisecond), WithEvery(time.Hour))
	src.set(5, scores.Generate(3, 1))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := op.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if src.reads != 1 {
		t.Fatalf("the source was read %d times within one interval", src.reads)
	}
}

func TestLockIsExclusive(t *testing.T) {
	path := LockPath(t.TempDir(), "0xABC")
	l, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(path); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	l2.Release()
}

func TestCommandSource(t *testing.T) {
	good := "0x" + strings.Repeat("ab", 20)
	tests := []struct {
		name   string
		script string
		want   int
		err    string
	}{
		{name: "csv with the stage from the environment", script: `echo "address,score"; echo "` + good + `,$VIP_STAGE"`, want: 1},
		{name: "json told from the output", script: `echo '[{"address":"` + good + `","score":"{stage}"}]'`, want: 1},
		{name: "empty output is an empty set", script: `true`, want: 0},
		{name: "exit 1", script: `echo boom >&2; exit 1`, err: "boom"},
		{name: "malformed", script: `echo "` + good + `,notanumber"`, err: "malformed"},
		{name: "truncated json", script: `echo '[{"address":"` + good + `"'`, err: "malformed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := &CommandSource{Argv: []string{"sh", "-c", tc.script}, Timeout: 10 * time.Second}
			got, err := collect(src, 7)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || len(got) != tc.want {
				t.Fatalf("got %v, %v", got, err)
			}
			if tc.want > 0 && got[0].Amount != 7 {
				t.Fatalf("stage not passed: %+v", got[0])
			}
		})
	}
}

func TestFileSourceRereadsOnChange(t *testing.T) {
	dir := t.TempDir()
	src := &FileSource{Path: filepath.Join(dir, "stage-{stage}.csv")}
	path := filepath.Join(dir, "stage-3.csv")
	write := func(body string, mod time.Time) {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	a := "0x" + strings.Repeat("cd", 20)
	t0 := time.Now().Add(-time.Hour)
	write(a+",1\n", t0)
	if src.Changed(4) {
		t.Fatal("a missing file is read at the interval, not at every poll")
	}
	if !src.Changed(3) {
		t.Fatal("an unread file must count as changed")
	}
	got, err := collect(src, 3)
	if err != nil || len(got) != 1 || got[0].Amount != 1 {
		t.Fatalf("got %v, %v", got, err)
	}
	if src.Changed(3) {
		t.Fatal("unchanged file reported as changed")
	}
	write(a+",22\n", t0.Add(time.Second))
	if !src.Changed(3) {
		t.Fatal("a rewritten file is not reported")
	}
	if _, err := collect(src, 4); err == nil {
		t.Fatal("a missing stage file must be an error")
	}
}

// The file source refuses what scores update and verify refuse: the shared reader's checks.
func TestFileSourceRefusesAFileStillBeingWritten(t *testing.T) {
	dir := t.TempDir()
	src := &FileSource{Path: filepath.Join(dir, "stage-{stage}.csv")}
	a := "0x" + strings.Repeat("cd", 20)
	if err := os.WriteFile(filepath.Join(dir, "stage-3.csv"), []byte(a+",12"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(src, 3); !errors.Is(err, scores.ErrUnterminated) {
		t.Fatalf("got %v; want scores.ErrUnterminated", err)
	}
	if !src.Changed(3) {
		t.Fatal("a refused file must be read again at the next pass")
	}
}

// value reads a single-sample gauge or counter.
func value(c prometheus.Collector) float64 {
	ch := make(chan prometheus.Metric, 1)
	c.Collect(ch)
	var d dto.Metric
	if err := (<-ch).Write(&d); err != nil {
		panic(err)
	}
	if d.Counter != nil {
		return d.Counter.GetValue()
	}
	return d.Gauge.GetValue()
}

func TestAStageFileNotWrittenYet(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := deployertest.New(5)
	l1 := deployertest.NewL1(5)
	src := &FileSource{Path: filepath.Join(dir, "stage-{stage}.csv")}
	op := New(s, l1, src, t.TempDir())
	// The open stage's file is not there yet: nothing to do, and not a failure.
	if err := op.Once(ctx); err != nil {
		t.Fatalf("open stage without a file: %v", err)
	}
	if got := value(op.metrics.sourceErrors); got != 0 {
		t.Fatalf("source_errors_total = %v", got)
	}
	// The L1 moved past it and the file is still missing: the stage is not finalized.
	l1.Set(6)
	err := op.Once(ctx)
	if !errors.Is(err, ErrMissing) || s.Finalizes != 0 || s.Updates != 0 {
		t.Fatalf("err %v, finalizes %d, updates %d", err, s.Finalizes, s.Updates)
	}
	var b strings.Builder
	if err := scores.Write(&b, scores.Generate(4, 1), scores.CSV); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stage-5.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := op.Once(ctx); err != nil || !s.Finalized(5) {
		t.Fatalf("err %v, finalized %v", err, s.Finalized(5))
	}
}

func TestAnUnreachableL1IsCountedAndSendsNothing(t *testing.T) {
	ctx := context.Background()
	op, s, l1, src := setup(t, 5)
	src.set(5, scores.Generate(3, 1))
	l1.Err = errors.New("dial tcp: connection refused")
	err := op.Once(ctx)
	var ce *ChainError
	if !errors.As(err, &ce) || ce.Op != "l1" || s.Updates != 0 || src.reads != 0 {
		t.Fatalf("err %v, updates %d, source reads %d", err, s.Updates, src.reads)
	}
	if got := value(op.metrics.chainErrors.WithLabelValues("l1")); got != 1 {
		t.Fatalf("chain_errors_total{op=l1} = %v", got)
	}
}

func TestHealthAndMetricsEndpoints(t *testing.T) {
	op, _, l1, src := setup(t, 5)
	src.set(5, scores.Generate(3, 1))
	h := op.metrics.Handler(time.Minute)
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("/healthz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "starting") {
		t.Fatalf("before the first pass: %d %s", code, body)
	}
	if err := op.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if code, body := get("/healthz"); code != http.StatusOK || !strings.Contains(body, `"open_stage":5`) {
		t.Fatalf("after a pass: %d %s", code, body)
	}
	// A source that fails keeps the last success's grace...
	src.fail[5] = errors.New("source down")
	_ = op.Once(context.Background())
	if code, body := get("/healthz"); code != http.StatusOK || !strings.Contains(body, "source down") {
		t.Fatalf("a recent success with a failing source after it: %d %s", code, body)
	}
	delete(src.fail, 5)
	// ...a chain that cannot be reached is unhealthy at once.
	l1.Err = errors.New("connection refused")
	_ = op.Once(context.Background())
	if code, body := get("/healthz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "connection refused") {
		t.Fatalf("an unreachable L1 after a recent success: %d %s", code, body)
	}
	code, body := get("/metrics")
	for _, want := range []string{"vipctl_operate_l1_stage 5", "vipctl_operate_entries_pushed_total 3", `vipctl_operate_chain_errors_total{op="l1"} 1`} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Fatalf("/metrics lacks %q", want)
		}
	}
	// Past the staleness window the last success no longer counts.
	rec := httptest.NewRecorder()
	op.metrics.Handler(time.Nanosecond).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("stale: %d", rec.Code)
	}
}

func TestASourceWithoutStagesClosesOneStageOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "scores.csv")
	var b strings.Builder
	if err := scores.Write(&b, scores.Generate(4, 1), scores.CSV); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := deployertest.New(5)
	l1 := deployertest.NewL1(5)
	op := New(s, l1, &FileSource{Path: path}, t.TempDir())
	if err := op.Once(ctx); err != nil {
		t.Fatal(err)
	}
	l1.Set(6) // one stage to close: the file holds its final scores
	if err := op.Once(ctx); err != nil || !s.Finalized(5) {
		t.Fatalf("err %v, finalized %v", err, s.Finalized(5))
	}
	l1.Set(8) // two stages would get the same set: refused
	err := op.Once(ctx)
	var se *SourceError
	var same *SameScoresError
	if !errors.As(err, &se) || !errors.As(err, &same) || same.First != 6 || same.Last != 7 || same.L1Stage != 8 ||
		!strings.Contains(err.Error(), "{stage}") || s.Finalized(6) {
		t.Fatalf("err %v, finalized 6: %v", err, s.Finalized(6))
	}
}

// A pending push an older vipctl saved (its entries inside the record) is still resumed.
func TestAnOlderPendingRecordIsRead(t *testing.T) {
	dir := t.TempDir()
	p := pendingFile{path: PendingPath(dir, "0xC0FFEE")}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		t.Fatal(err)
	}
	old := scores.Generate(4, 2)
	b, err := json.Marshal(map[string]any{"stage": 6, "entries": old})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := p.load(scores.EVMCodec{})
	if err != nil || got == nil || got.stage != 6 {
		t.Fatalf("loaded %+v, %v", got, err)
	}
	want, err := scores.NewSet(old, scores.EVMCodec{})
	if err != nil {
		t.Fatal(err)
	}
	if got.set.Fingerprint() != want.Fingerprint() {
		t.Fatal("the older record's entries are not the set it names")
	}
	if err := p.clear(); err != nil {
		t.Fatal(err)
	}
	if got, err := p.load(scores.EVMCodec{}); got != nil || err != nil {
		t.Fatalf("after clear: %+v, %v", got, err)
	}
}

// otherContract is a contract at another address than the operator's.
type otherContract struct{ *deployertest.Scorer }

func (otherContract) Contract() string { return "0x00000000000000000000000000000000000000c1" }

// Before every pass the operator takes the clients Reconnect gives: new ones are used from
// that pass on; a failure fails the pass (counted, retried) and keeps the old ones; a stop,
// or a contract at another address, ends Run.
func TestReconnectBeforeEveryPass(t *testing.T) {
	moved := deployertest.New(5)
	for _, tc := range []struct {
		name      string
		give      func(old *deployertest.Scorer) (Contract, error)
		wantOp    string // the ChainError's op, "" for none
		stop      bool
		writesNew bool // the pass wrote to the new contract
	}{
		{"nothing changed", func(*deployertest.Scorer) (Contract, error) { return nil, nil }, "", false, false},
		{"new endpoints", func(*deployertest.Scorer) (Contract, error) { return moved, nil }, "", false, true},
		{"the new endpoints do not answer", func(*deployertest.Scorer) (Contract, error) {
			return nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
		}, "connect", false, false},
		{"another chain", func(*deployertest.Scorer) (Contract, error) {
			return nil, &StopError{Err: errors.New("made on another chain of that id")}
		}, "", true, false},
		{"another contract", func(old *deployertest.Scorer) (Contract, error) { return otherContract{old}, nil }, "", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			moved.Updates = 0
			l1 := deployertest.NewL1(5)
			var s *deployertest.Scorer
			reconnect := func(context.Context) (Contract, guard.L1, error) {
				c, err := tc.give(s)
				if c == nil || err != nil {
					return nil, nil, err
				}
				return c, l1, nil
			}
			op, old, _, src := setup(t, 5, WithReconnect(reconnect), WithPoll(time.Millisecond), WithMaxBackoff(time.Millisecond))
			s = old
			src.set(5, scores.Generate(3, 1))
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			err := op.Once(ctx)
			var ce *ChainError
			var se *StopError
			switch {
			case tc.wantOp != "" && (!errors.As(err, &ce) || ce.Op != tc.wantOp):
				t.Fatalf("err %v, want a ChainError of op %s", err, tc.wantOp)
			case tc.stop && !errors.As(err, &se):
				t.Fatalf("err %v, want a StopError", err)
			case tc.wantOp == "" && !tc.stop && err != nil:
				t.Fatal(err)
			}
			if tc.stop {
				if err := op.Run(ctx); !errors.As(err, &se) {
					t.Fatalf("Run returned %v, want the StopError", err)
				}
			}
			if wrote := moved.Updates > 0; wrote != tc.writesNew {
				t.Fatalf("wrote to the new contract: %v, want %v", wrote, tc.writesNew)
			}
			if wroteOld := old.Updates > 0; wroteOld != (tc.wantOp == "" && !tc.stop && !tc.writesNew) {
				t.Fatalf("wrote to the old contract: %v", wroteOld)
			}
			if tc.wantOp != "" {
				if got := value(op.metrics.chainErrors.WithLabelValues(tc.wantOp)); got != 1 {
					t.Fatalf("chain_errors_total{op=%s} = %v", tc.wantOp, got)
				}
			}
		})
	}
}
