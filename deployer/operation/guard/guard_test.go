package guard

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/deployertest"
	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/scores"
)

// contractAt is a contract whose open stage is open, with stages before it finalized, and
// the open stage holding total points.
func contractAt(t *testing.T, open uint64, total uint64) *deployertest.Scorer {
	t.Helper()
	ctx := context.Background()
	s := deployertest.New(open - 1)
	if _, err := s.UpdateScores(ctx, open-1, scores.Generate(1, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinalizeStage(ctx, open-1); err != nil {
		t.Fatal(err)
	}
	if total > 0 {
		e := scores.Generate(1, 2)
		e[0].Amount = total
		if _, err := s.UpdateScores(ctx, open, e); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestDecideFinalize(t *testing.T) {
	tests := []struct {
		name  string
		open  uint64
		total uint64
		l1    uint64 // 0: no L1 configured
		req   FinalizeRequest
		stage uint64 // the decided stage
		done  bool
		risks int
		// why is the refusal (0: none) and refusal fragments of its text.
		why     Refusal
		refusal []string
	}{
		{name: "open stage once the L1 moved past it", open: 5, total: 10, l1: 6, stage: 5},
		{name: "open stage when the L1 skipped ahead", open: 5, total: 10, l1: 9, stage: 5},
		{name: "no stage while the L1 is at the open stage", open: 5, total: 10, l1: 5,
			why: L1NotPast, refusal: []string{"open stage is 5", "L1 is at stage 5"}},
		{name: "no stage while the contract is ahead of the L1 (the issue's retry)", open: 6, total: 0, l1: 5,
			why: L1NotPast, refusal: []string{"open stage is 6", "L1 is at stage 5"}},
		{name: "no stage and no L1", open: 5, total: 10, why: NoStage, refusal: []string{"which stage", "open stage is 5"}},
		{name: "forced with no stage while the L1 is at the open stage", open: 5, total: 10, l1: 5, req: FinalizeRequest{Force: true},
			why: ForceWithoutStage, refusal: []string{"must name its stage", "open stage is 5", "stage 6 too"}},
		{name: "forced with no stage and no L1", open: 5, total: 10, req: FinalizeRequest{Force: true},
			why: ForceWithoutStage, refusal: []string{"must name its stage", "open stage is 5"}},
		{name: "forced with no stage once the L1 moved past: nothing to force", open: 5, total: 10, l1: 6, req: FinalizeRequest{Force: true}, stage: 5},
		{name: "explicit stage already finalized", open: 6, total: 0, l1: 5, req: FinalizeRequest{Stage: 5}, stage: 5, done: true},
		{name: "explicit stage already finalized, no L1", open: 6, req: FinalizeRequest{Stage: 5}, stage: 5, done: true},
		{name: "explicit open stage the L1 moved past", open: 5, total: 10, l1: 6, req: FinalizeRequest{Stage: 5}, stage: 5},
		{name: "explicit open stage the L1 has not moved past", open: 5, total: 10, l1: 5, req: FinalizeRequest{Stage: 5},
			why: L1NotPast, refusal: []string{"L1 is at stage 5", "has not moved past stage 5"}},
		{name: "explicit open stage the L1 has not moved past, forced", open: 5, total: 10, l1: 5,
			req: FinalizeRequest{Stage: 5, Force: true}, stage: 5, risks: 1},
		{name: "explicit stage with no L1", open: 5, total: 10, req: FinalizeRequest{Stage: 5}, why: NoL1, refusal: []string{"no L1", "stage 5"}},
		{name: "explicit stage with no L1, forced", open: 5, total: 10, req: FinalizeRequest{Stage: 5, Force: true}, stage: 5, risks: 1},
		{name: "future stage", open: 5, total: 10, l1: 9, req: FinalizeRequest{Stage: 7}, why: NotOpen, refusal: []string{"stage 7 is not open", "open stage is 5"}},
		{name: "empty stage", open: 5, l1: 6, why: EmptyStage, refusal: []string{"stage 5 is empty"}},
		{name: "empty stage allowed", open: 5, l1: 6, req: FinalizeRequest{AllowEmpty: true}, stage: 5, risks: 1},
		{name: "empty stage not passed, both consents", open: 5, l1: 5, req: FinalizeRequest{Stage: 5, AllowEmpty: true, Force: true}, stage: 5, risks: 2},
		{name: "empty stage not passed, only allow-empty", open: 5, l1: 5, req: FinalizeRequest{Stage: 5, AllowEmpty: true}, why: L1NotPast, refusal: []string{"has not moved past stage 5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := contractAt(t, tc.open, tc.total)
			var l1 L1
			if tc.l1 != 0 {
				l1 = deployertest.NewL1(tc.l1)
			}
			before := s.Finalizes
			d, err := DecideFinalize(context.Background(), s, l1, tc.req)
			if s.Finalizes != before {
				t.Fatal("a decision sent a finalize")
			}
			if tc.why != 0 {
				var r *RefusedError
				if !errors.As(err, &r) || r.Why != tc.why {
					t.Fatalf("err = %v, want refusal %d", err, tc.why)
				}
				if strings.Contains(err.Error(), "--") {
					t.Errorf("refusal %q names a flag: the front end words its own", err)
				}
				for _, frag := range tc.refusal {
					if !strings.Contains(err.Error(), frag) {
						t.Errorf("refusal %q does not name %q", err, frag)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Stage != tc.stage || d.Done != tc.done || len(d.Risks) != tc.risks {
				t.Fatalf("decision = %+v, want stage %d done %v %d risks", d, tc.stage, tc.done, tc.risks)
			}
		})
	}
}

func TestDecideFinalizeReportsL1Errors(t *testing.T) {
	s := contractAt(t, 5, 10)
	l1 := deployertest.NewL1(6)
	l1.Err = errors.New("connection refused")
	_, err := DecideFinalize(context.Background(), s, l1, FinalizeRequest{})
	var r *RefusedError
	if err == nil || errors.As(err, &r) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err = %v, want the L1's error, not a refusal", err)
	}
}

func TestUpdateStage(t *testing.T) {
	tests := []struct {
		name    string
		open    uint64
		l1      uint64
		want    uint64
		why     Refusal
		refusal []string
	}{
		{name: "L1 and contract agree", open: 5, l1: 5, want: 5},
		{name: "L1 moved on", open: 5, l1: 6, why: ContractBehind, refusal: []string{"L1 is at stage 6", "open stage is 5"}},
		{name: "contract ahead of the L1", open: 6, l1: 5, why: ContractAhead, refusal: []string{"open stage is 6", "L1 at stage 5"}},
		{name: "no L1", open: 5, why: NoStage, refusal: []string{"which stage"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := contractAt(t, tc.open, 1)
			var l1 L1
			if tc.l1 != 0 {
				l1 = deployertest.NewL1(tc.l1)
			}
			got, err := UpdateStage(context.Background(), s, l1)
			if tc.why != 0 {
				var r *RefusedError
				if !errors.As(err, &r) || r.Why != tc.why {
					t.Fatalf("err = %v, want refusal %d", err, tc.why)
				}
				if strings.Contains(err.Error(), "--") {
					t.Errorf("refusal %q names a flag: the front end words its own", err)
				}
				for _, frag := range tc.refusal {
					if !strings.Contains(err.Error(), frag) {
						t.Errorf("refusal %q does not name %q", err, frag)
					}
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("UpdateStage = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

func TestFinalizeRecordsTheTx(t *testing.T) {
	ctx := context.Background()
	s := contractAt(t, 5, 10)
	recs := NewRecords(t.TempDir(), s.Contract())
	if hash, err := recs.FinalizeTx(ctx, nil, 5); err != nil || hash != "" {
		t.Fatalf("before finalize: %q, %v", hash, err)
	}
	hash, err := recs.Finalize(ctx, s, 5)
	if err != nil {
		t.Fatal(err)
	}
	got, err := recs.FinalizeTx(ctx, nil, 5)
	if err != nil || got != hash {
		t.Fatalf("recorded tx = %q, %v; want %q", got, err, hash)
	}
	// A record lost (a crash after the broadcast): the chain's events still name the tx.
	other := NewRecords(t.TempDir(), s.Contract())
	if got, err := other.FinalizeTx(ctx, s, 5); err != nil || got != hash {
		t.Fatalf("tx from events = %q, %v; want %q", got, err, hash)
	}
	// A second finalize is refused by the contract and records the failure, not a tx.
	if _, err := recs.Finalize(ctx, s, 5); !errors.Is(err, deployertest.ErrFinalized) {
		t.Fatalf("second finalize: %v", err)
	}
	if got, _ := recs.FinalizeTx(ctx, nil, 5); got != hash {
		t.Fatalf("after a refused retry the record names %q, want %q", got, hash)
	}
}

func TestAnInterruptedFinalizeIsGivenTimeToLand(t *testing.T) {
	ctx := context.Background()
	interrupted := func(t *testing.T, dir string) {
		// What a run killed between its record and the tx's result leaves.
		j, err := journal.Open(NewRecords(dir, deployertest.New(5).Contract()).path(5))
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		for _, r := range []journal.Record{{Op: journal.OpBegin, Stage: 5, Chunks: 1}, {Op: journal.OpSigned, Stage: 5}} {
			if err := j.Append(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Run("its tx lands: nothing is sent again", func(t *testing.T) {
		dir := t.TempDir()
		interrupted(t, dir)
		s := contractAt(t, 5, 10)
		landed := make(chan string, 1)
		go func() {
			time.Sleep(30 * time.Millisecond)
			hash, _ := s.FinalizeStage(ctx, 5) // the earlier run's tx
			landed <- hash
		}()
		recs := NewRecords(dir, s.Contract(), WithSettle(5*time.Second))
		hash, err := recs.Finalize(ctx, s, 5)
		if err != nil {
			t.Fatal(err)
		}
		if want := <-landed; hash != want || s.Finalizes != 2 { // stage 4's and the earlier run's
			t.Fatalf("hash %q (want %q), %d finalizes", hash, want, s.Finalizes)
		}
		if got, _ := recs.Lookup(5); got != hash {
			t.Fatalf("record names %q", got)
		}
	})
	t.Run("it never lands: one finalize after the settle time", func(t *testing.T) {
		dir := t.TempDir()
		interrupted(t, dir)
		s := contractAt(t, 5, 10)
		start := time.Now()
		hash, err := NewRecords(dir, s.Contract(), WithSettle(100*time.Millisecond)).Finalize(ctx, s, 5)
		if err != nil || hash == "" || s.Finalizes != 2 { // stage 4's and this one
			t.Fatalf("hash %q, err %v, %d finalizes", hash, err, s.Finalizes)
		}
		if waited := time.Since(start); waited < 50*time.Millisecond {
			t.Fatalf("sent after %s, before the settle time", waited)
		}
	})
}
