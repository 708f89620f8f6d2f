package deployer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
)

// memScorer is an in-memory scoring contract with the shared rules: one open stage,
// finalizing N opens N+1, finalized stages refuse updates.
type memScorer struct {
	open      uint64
	scores    map[uint64]map[string]uint64
	finalized map[uint64]bool
	total     map[uint64]uint64 // as the contract keeps it (tests may corrupt it)
}

func newMem(initStage uint64) *memScorer {
	return &memScorer{open: initStage, scores: map[uint64]map[string]uint64{initStage: {}},
		finalized: map[uint64]bool{}, total: map[uint64]uint64{}}
}

func (m *memScorer) VM() vip.VM                            { return vip.EVM }
func (m *memScorer) Contract() string                      { return "mem" }
func (m *memScorer) CheckAddress(a string) (string, error) { return scores.CheckEVMAddress(a) }
func (m *memScorer) Deploy(context.Context, uint64, ...DeployOption) (vip.Deployment, error) {
	return vip.Deployment{}, nil
}
func (m *memScorer) Plan(context.Context, uint64, []scores.Entry) (Plan, error) {
	return Plan{}, nil
}
func (m *memScorer) OpenStage(context.Context) (uint64, error) { return m.open, nil }
func (m *memScorer) Codec() scores.Codec                       { return scores.EVMCodec{} }
func (m *memScorer) PlanSet(context.Context, uint64, *scores.Set) (Plan, error) {
	return Plan{}, nil
}
func (m *memScorer) UpdateSet(ctx context.Context, stage uint64, set *scores.Set) (push.Result, error) {
	return m.UpdateScores(ctx, stage, set.Entries(0, set.Len()))
}

// ScorePages hands the rows in pages of 2, in map order; a row its codec refuses is handed
// as its text's bytes (a contract that holds an address of another form).
func (m *memScorer) ScorePages(ctx context.Context, stage uint64, each func([]scores.Row) error) error {
	entries, _ := m.Scores(ctx, stage)
	rows := make([]scores.Row, len(entries))
	for i, e := range entries {
		addr, err := m.Codec().Decode(e.Addr)
		if err != nil {
			addr = []byte(e.Addr)
		}
		rows[i] = scores.Row{Addr: addr, Amount: e.Amount}
	}
	for len(rows) > 0 {
		n := min(2, len(rows))
		if err := each(rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

func (m *memScorer) UpdateScores(_ context.Context, stage uint64, entries []scores.Entry) (push.Result, error) {
	st, ok := m.scores[stage]
	if !ok || m.finalized[stage] {
		return push.Result{}, fmt.Errorf("stage %d not open", stage)
	}
	for _, e := range entries {
		m.total[stage] = m.total[stage] - st[e.Addr] + e.Amount
		st[e.Addr] = e.Amount
	}
	return push.Result{Stage: stage, Chunks: 1, Confirmed: 1}, nil
}

func (m *memScorer) FinalizeStage(_ context.Context, stage uint64) (string, error) {
	if stage != m.open {
		return "", fmt.Errorf("stage %d not open", stage)
	}
	m.finalized[stage] = true
	m.open++
	m.scores[m.open] = map[string]uint64{}
	return fmt.Sprintf("0xfinal%d", stage), nil
}

func (m *memScorer) StageInfo(_ context.Context, stage uint64) (vip.StageInfo, error) {
	_, ok := m.scores[stage]
	return vip.StageInfo{Stage: stage, TotalScore: m.total[stage], Finalized: m.finalized[stage], Exists: ok}, nil
}

func (m *memScorer) Scores(_ context.Context, stage uint64) ([]scores.Entry, error) {
	var out []scores.Entry
	for a, v := range m.scores[stage] {
		out = append(out, scores.Entry{Addr: a, Amount: v})
	}
	return out, nil
}

func TestVerify(t *testing.T) {
	in := scores.Generate(5, 1)
	tests := []struct {
		name       string
		push       []scores.Entry
		corrupt    func(m *memScorer)
		ok         bool
		mismatches int
		missing    int
		extra      int
	}{
		{name: "all match", push: in, ok: true},
		{name: "one missing", push: in[:4], mismatches: 1, missing: 1},
		{name: "one differs", push: append(append([]scores.Entry{}, in[:4]...), scores.Entry{Addr: in[4].Addr, Amount: in[4].Amount + 1}), mismatches: 1},
		{name: "extra rows from an earlier push are counted, not failed", push: append(append([]scores.Entry{}, in...), scores.Generate(2, 9)...), ok: true, extra: 2},
		{name: "contract total disagrees with its rows", push: in, corrupt: func(m *memScorer) { m.total[3]++ }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMem(3)
			if _, err := m.UpdateScores(context.Background(), 3, tt.push); err != nil {
				t.Fatal(err)
			}
			if tt.corrupt != nil {
				tt.corrupt(m)
			}
			rep, err := Verify(context.Background(), m, 3, in)
			if err != nil {
				t.Fatal(err)
			}
			missing := 0
			for _, mm := range rep.Mismatches {
				if mm.Missing {
					missing++
				}
			}
			if rep.OK() != tt.ok || len(rep.Mismatches) != tt.mismatches || missing != tt.missing || rep.Extra != tt.extra {
				t.Fatalf("report %+v: want ok=%v mismatches=%d missing=%d extra=%d", rep, tt.ok, tt.mismatches, tt.missing, tt.extra)
			}
		})
	}
}

func TestVerifyReportsInInputOrder(t *testing.T) {
	in := scores.Generate(40, 3)
	m := newMem(3)
	pushed := append([]scores.Entry{}, in...)
	for _, i := range []int{31, 7, 19} { // changed on chain
		pushed[i].Amount++
	}
	pushed = append(pushed[:25], pushed[26:]...) // never landed
	pushed = append(pushed, scores.Generate(3, 8)...)
	if _, err := m.UpdateScores(context.Background(), 3, pushed); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(context.Background(), m, 3, in)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mm := range rep.Mismatches {
		got = append(got, fmt.Sprintf("%s missing=%v", mm.Addr, mm.Missing))
	}
	want := []string{in[7].Addr + " missing=false", in[19].Addr + " missing=false", in[25].Addr + " missing=true", in[31].Addr + " missing=false"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || rep.Matched != 36 || rep.Extra != 3 || rep.OnChain != 42 {
		t.Fatalf("report %+v\nmismatches %v\nwant %v, 36 matched, 3 extra, 42 on chain", rep, got, want)
	}
}

// A stage read back before its push misses every address: the report counts them all and
// lists the first MaxListed in input order; a row no input address can be is an extra row.
func TestVerifyBoundsTheList(t *testing.T) {
	in := scores.Generate(MaxListed+25, 4)
	m := newMem(3)
	m.scores[3]["not-an-address"] = 5
	m.total[3] = 5
	rep, err := Verify(context.Background(), m, 3, in)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || rep.MismatchCount != len(in) || len(rep.Mismatches) != MaxListed || rep.Extra != 1 || !rep.TotalsAgree {
		t.Fatalf("report: ok %v, %d mismatches, %d listed, %d extra, totals agree %v", rep.OK(), rep.MismatchCount, len(rep.Mismatches), rep.Extra, rep.TotalsAgree)
	}
	for i, mm := range rep.Mismatches {
		if mm.Addr != in[i].Addr || !mm.Missing || mm.Want != in[i].Amount {
			t.Fatalf("listed %d = %+v, want input entry %d %v missing", i, mm, i, in[i])
		}
	}
}

func TestSyncStage(t *testing.T) {
	tests := []struct {
		name    string
		open    uint64
		target  uint64
		confirm bool
		done    []uint64
		problem string
	}{
		{"behind by three", 2, 5, true, []uint64{2, 3, 4}, ""},
		{"in step", 5, 5, true, nil, ""},
		{"ahead", 6, 5, true, nil, "ahead of the L1"},
		{"not confirmed", 2, 5, false, nil, "not confirmed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMem(tt.open)
			asked := false
			done, err := SyncStage(context.Background(), m, tt.target, func(from, to uint64) bool {
				asked = true
				if from != tt.open || to != tt.target-1 {
					t.Errorf("asked for %d..%d", from, to)
				}
				return tt.confirm
			})
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("err = %v, want %q", err, tt.problem)
				}
				if open, _ := m.OpenStage(context.Background()); open != tt.open {
					t.Fatalf("stage moved to %d without consent", open)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(done) != fmt.Sprint(tt.done) {
				t.Fatalf("finalized %v, want %v", done, tt.done)
			}
			if open, _ := m.OpenStage(context.Background()); open != tt.target {
				t.Fatalf("open stage %d, want %d", open, tt.target)
			}
			if len(tt.done) > 0 != asked {
				t.Fatalf("asked=%v with %d stages to finalize", asked, len(tt.done))
			}
		})
	}
}
