package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/evm"
)

// fakeContract is an in-memory scoring contract with the official rules, plus switches for
// the faults the checks must catch. Refusals are *evm.RevertError values, as the EVM
// deployer reports them.
type fakeContract struct {
	deployed   bool
	open       uint64
	stages     map[uint64]map[string]uint64
	finalized  map[uint64]bool
	allowed    bool // the sender is on the allow list
	chunk      int
	txs        int
	refinalize string // "", "reset" (wipes the next stage), "reopen" (opens stage+2)
	panics     bool   // refusals come back as Panic instead of a named error
	noTotal    bool   // StageInfo reports a total that ignores overwrites
}

func newFake() *fakeContract {
	return &fakeContract{stages: map[uint64]map[string]uint64{}, finalized: map[uint64]bool{}, allowed: true, chunk: 50}
}

// fakeScorer is one sender's view of a fakeContract.
type fakeScorer struct {
	c       *fakeContract
	allowed bool
}

func (f *fakeScorer) refuse(name string) error {
	if f.c.panics {
		return &evm.RevertError{Name: "Panic"}
	}
	return &evm.RevertError{Name: name}
}

func (f *fakeScorer) VM() vip.VM                                { return vip.EVM }
func (f *fakeScorer) Contract() string                          { return "0xc0ffee" }
func (f *fakeScorer) CheckAddress(a string) (string, error)     { return a, nil }
func (f *fakeScorer) OpenStage(context.Context) (uint64, error) { return f.c.open, nil }
func (f *fakeScorer) Codec() scores.Codec                       { return scores.EVMCodec{} }

func (f *fakeScorer) CheckInterface(context.Context) (string, error) {
	if !f.allowed {
		return "", &vip.CheckError{Contract: f.Contract(), Kind: vip.ErrCannotWrite, Stage: f.c.open, Err: f.refuse("PermissionDenied")}
	}
	return "the official interface", nil
}

func (f *fakeScorer) PlanSet(ctx context.Context, stage uint64, set *scores.Set) (deployer.Plan, error) {
	return f.Plan(ctx, stage, set.Entries(0, set.Len()))
}

func (f *fakeScorer) UpdateSet(ctx context.Context, stage uint64, set *scores.Set) (push.Result, error) {
	return f.UpdateScores(ctx, stage, set.Entries(0, set.Len()))
}

func (f *fakeScorer) ScorePages(ctx context.Context, stage uint64, each func([]scores.Row) error) error {
	entries, err := f.Scores(ctx, stage)
	if err != nil {
		return err
	}
	return scores.PageEntries(entries, f.Codec(), max(len(entries), 1), each)
}

func (f *fakeScorer) Deploy(_ context.Context, stage uint64, _ ...deployer.DeployOption) (vip.Deployment, error) {
	f.c.deployed, f.c.open = true, stage
	f.c.stages[stage] = map[string]uint64{}
	return vip.Deployment{Contract: f.Contract(), InitStage: stage}, nil
}

func (f *fakeScorer) Plan(_ context.Context, stage uint64, e []scores.Entry) (deployer.Plan, error) {
	return deployer.Plan{Stage: stage, Entries: len(e), ChunkSize: f.c.chunk, Chunks: (len(e) + f.c.chunk - 1) / f.c.chunk}, nil
}

func (f *fakeScorer) UpdateScores(_ context.Context, stage uint64, e []scores.Entry) (push.Result, error) {
	switch {
	case !f.allowed:
		return push.Result{}, f.refuse("PermissionDenied")
	case f.c.stages[stage] == nil:
		return push.Result{}, f.refuse("StageNotFound")
	case f.c.finalized[stage]:
		return push.Result{}, f.refuse("StageFinalized")
	}
	for _, x := range e {
		f.c.stages[stage][x.Addr] = x.Amount
	}
	n := (len(e) + f.c.chunk - 1) / f.c.chunk
	f.c.txs += n
	hashes := make([]string, n)
	for i := range hashes {
		hashes[i] = fmt.Sprintf("0x%x", f.c.txs-n+i)
	}
	return push.Result{Stage: stage, Chunks: n, Confirmed: n, Hashes: hashes}, nil
}

func (f *fakeScorer) FinalizeStage(_ context.Context, stage uint64) (string, error) {
	switch {
	case !f.allowed:
		return "", f.refuse("PermissionDenied")
	case f.c.stages[stage] == nil:
		return "", f.refuse("StageNotFound")
	case f.c.finalized[stage]:
		switch f.c.refinalize {
		case "reset":
			f.c.stages[stage+1] = map[string]uint64{}
			return "0xre", nil
		case "reopen":
			f.c.open = stage + 2
			f.c.stages[stage+2] = map[string]uint64{}
			return "0xre", nil
		}
		return "", f.refuse("StageFinalized")
	}
	f.c.finalized[stage] = true
	f.c.open = stage + 1
	f.c.stages[stage+1] = map[string]uint64{}
	return "0xfin", nil
}

func (f *fakeScorer) StageInfo(_ context.Context, stage uint64) (vip.StageInfo, error) {
	rows, ok := f.c.stages[stage]
	info := vip.StageInfo{Stage: stage, Exists: ok, Finalized: f.c.finalized[stage]}
	for _, a := range rows {
		info.TotalScore += a
	}
	if f.c.noTotal && info.TotalScore > 0 {
		info.TotalScore += 1_000 // a total that counted an overwrite twice
	}
	return info, nil
}

func (f *fakeScorer) Scores(_ context.Context, stage uint64) ([]scores.Entry, error) {
	var out []scores.Entry
	for a, v := range f.c.stages[stage] {
		out = append(out, scores.Entry{Addr: a, Amount: v})
	}
	slices.SortFunc(out, func(a, b scores.Entry) int { return strings.Compare(a.Addr, b.Addr) })
	return out, nil
}

func subjectOf(c *fakeContract) Subject {
	return Subject{
		Scorer: &fakeScorer{c: c, allowed: true},
		Stranger: func(context.Context, string) (Target, error) {
			return &fakeScorer{c: c, allowed: false}, nil
		},
		Generate: scores.Generate,
		Events: func(_ context.Context, tx string) ([]string, error) {
			if tx == "0xfin" {
				return []string{"FinalizeStage", "CreateStage"}, nil
			}
			return []string{"UpdateScore"}, nil
		},
	}
}

func statusOf(r Report) map[string]Status {
	m := map[string]Status{}
	for _, c := range r.Checks {
		m[c.Name] = c.Status
	}
	return m
}

func TestRunNamesTheFailingChecks(t *testing.T) {
	tests := []struct {
		name  string
		fault func(*fakeContract)
		fail  []string // exactly these checks fail
	}{
		{name: "conforming contract", fault: func(*fakeContract) {}},
		{name: "re-finalize wipes the next stage", fault: func(c *fakeContract) { c.refinalize = "reset" }, fail: []string{"re-finalize changes nothing"}},
		{name: "re-finalize reopens a stage", fault: func(c *fakeContract) { c.refinalize = "reopen" }, fail: []string{"re-finalize changes nothing"}},
		{
			name:  "panics instead of refusing",
			fault: func(c *fakeContract) { c.panics = true },
			fail: []string{"refuse an unauthorized sender", "refuse a missing stage", "refuse stage zero",
				"refuse updates to a finalized stage", "re-finalize changes nothing"},
		},
		{name: "total off after overwrites", fault: func(c *fakeContract) { c.noTotal = true }, fail: []string{"stage total", "finalize the stage"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFake()
			tt.fault(c)
			rep := Run(context.Background(), subjectOf(c), 5)
			var failed []string
			for _, ch := range rep.Checks {
				if ch.Status == Fail {
					failed = append(failed, ch.Name)
				}
			}
			if !slices.Equal(failed, tt.fail) {
				t.Fatalf("failed checks %q, want %q\n%+v", failed, tt.fail, rep.Checks)
			}
			if rep.OK() != (len(tt.fail) == 0) {
				t.Fatalf("OK() = %t with %d failures", rep.OK(), len(failed))
			}
			// Without a Mismatch probe the length check is skipped with its reason, never passed.
			if st := statusOf(rep)["refuse mismatched lengths"]; st != Skip {
				t.Fatalf("mismatched lengths: %s, want skip", st)
			}
		})
	}
}

func TestRefinalizeNotes(t *testing.T) {
	c := newFake()
	rep := Run(context.Background(), subjectOf(c), 3)
	for _, ch := range rep.Checks {
		if ch.Name == "re-finalize changes nothing" && ch.Detail != "refused: StageFinalized" {
			t.Fatalf("re-finalize detail %q", ch.Detail)
		}
	}
}

func TestFailedDeploySkipsTheRest(t *testing.T) {
	sub := subjectOf(newFake())
	sub.Scorer = failingDeploy{sub.Scorer}
	rep := Run(context.Background(), sub, 1)
	p, f, s := rep.Counts()
	if p != 0 || f != 1 || s != len(rep.Checks)-1 || rep.OK() {
		t.Fatalf("pass %d fail %d skip %d of %d", p, f, s, len(rep.Checks))
	}
}

type failingDeploy struct{ Target }

func (failingDeploy) Deploy(context.Context, uint64, ...deployer.DeployOption) (vip.Deployment, error) {
	return vip.Deployment{}, errors.New("out of gas")
}

func TestInspectPlacesTheOpenStageBesideTheL1(t *testing.T) {
	tests := []struct {
		name    string
		l1      uint64
		status  Status
		details string
		then    Then
	}{
		{"in step", 5, Pass, "both at stage 5", ""},
		{"behind the L1", 7, Fail, "finalizing stages 5..6", SyncStages},
		{"ahead of the L1", 4, Fail, "ahead", ""},
		{"no L1", 0, Skip, "no L1", GiveL1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFake()
			s := &fakeScorer{c: c, allowed: true}
			if _, err := s.Deploy(context.Background(), 5); err != nil {
				t.Fatal(err)
			}
			rep := Inspect(context.Background(), s, tt.l1)
			for _, ch := range rep.Checks {
				if ch.Name == "open stage beside the L1 stage" {
					if ch.Status != tt.status || !strings.Contains(ch.Detail, tt.details) || ch.Then != tt.then {
						t.Fatalf("%s: %q then %q, want %s containing %q then %q", ch.Status, ch.Detail, ch.Then, tt.status, tt.details, tt.then)
					}
					return
				}
			}
			t.Fatal("no open-stage check")
		})
	}
}

func TestInspectFailsAnOperatorThatMayNotWrite(t *testing.T) {
	c := newFake()
	if _, err := (&fakeScorer{c: c, allowed: true}).Deploy(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
	rep := Inspect(context.Background(), &fakeScorer{c: c, allowed: false}, 5)
	if rep.OK() {
		t.Fatalf("a contract its operator may not write passed: %+v", rep.Checks)
	}
	if ch := rep.Checks[0]; ch.Name != "interface" || ch.Status != Fail || !strings.Contains(ch.Detail, "PermissionDenied") {
		t.Fatalf("interface check %+v, want a failure naming the refusal", ch)
	}
}
