package tasks

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/vipharness/vipharness/deployer/deployertest"
	"github.com/vipharness/vipharness/deployer/operation/guard"
	"github.com/vipharness/vipharness/deployer/scores"
)

// withScores is a contract at stage open whose open stage holds a score (total > 0).
func withScores(t *testing.T, open uint64) *deployertest.Scorer {
	t.Helper()
	c := deployertest.New(open)
	if _, err := c.UpdateScores(context.Background(), open, []scores.Entry{{Addr: "0x00000000000000000000000000000000000000a1", Amount: 5}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFinalizeStage(t *testing.T) {
	ctx := context.Background()
	stop := errors.New("not confirmed")
	for _, tc := range []struct {
		name      string
		c         func() *deployertest.Scorer
		o         FinalizeOptions
		refused   guard.Refusal
		err       error
		stage     uint64
		done      bool
		finalizes int
	}{
		{"the open stage once the L1 is past it", func() *deployertest.Scorer { return withScores(t, 2) }, FinalizeOptions{L1: deployertest.NewL1(3)}, 0, nil, 2, false, 1},
		{"the L1 not past it", func() *deployertest.Scorer { return withScores(t, 2) }, FinalizeOptions{L1: deployertest.NewL1(2)}, guard.L1NotPast, nil, 0, false, 0},
		{"no stage, no L1", func() *deployertest.Scorer { return withScores(t, 2) }, FinalizeOptions{}, guard.NoStage, nil, 0, false, 0},
		{"an empty stage", func() *deployertest.Scorer { return deployertest.New(2) }, FinalizeOptions{L1: deployertest.NewL1(3)}, guard.EmptyStage, nil, 0, false, 0},
		{"forced, confirmed", func() *deployertest.Scorer { return withScores(t, 2) },
			FinalizeOptions{FinalizeRequest: guard.FinalizeRequest{Stage: 2, Force: true}, Confirm: func(guard.FinalizeDecision) error { return nil }}, 0, nil, 2, false, 1},
		{"forced, not confirmed", func() *deployertest.Scorer { return withScores(t, 2) },
			FinalizeOptions{FinalizeRequest: guard.FinalizeRequest{Stage: 2, Force: true}, Confirm: func(guard.FinalizeDecision) error { return stop }}, 0, stop, 0, false, 0},
		{"finalized before", func() *deployertest.Scorer {
			c := withScores(t, 2)
			_, _ = c.FinalizeStage(ctx, 2)
			return c
		}, FinalizeOptions{FinalizeRequest: guard.FinalizeRequest{Stage: 2}}, 0, nil, 2, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c()
			f, err := FinalizeStage(ctx, c, tc.o)
			var r *guard.RefusedError
			switch {
			case tc.refused != 0 && (!errors.As(err, &r) || r.Why != tc.refused):
				t.Fatalf("error %v; want refused %v", err, tc.refused)
			case tc.err != nil && !errors.Is(err, tc.err):
				t.Fatalf("error %v; want %v", err, tc.err)
			case tc.refused == 0 && tc.err == nil && err != nil:
				t.Fatal(err)
			}
			if c.Finalizes != tc.finalizes {
				t.Fatalf("%d finalizes, want %d", c.Finalizes, tc.finalizes)
			}
			if err == nil && (f.Stage != tc.stage || f.Done != tc.done || f.TxHash == "") {
				t.Fatalf("got %+v; want stage %d done %v with its tx", f, tc.stage, tc.done)
			}
		})
	}
}

func TestSyncOptionsValidated(t *testing.T) {
	if _, err := (SyncOptions{}).Validated(); !isConfigError(err, "Target or L1") {
		t.Fatalf("no target, no L1: %v", err)
	}
	for _, o := range []SyncOptions{{Target: 3}, {L1: deployertest.NewL1(3)}} {
		if _, err := o.Validated(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSyncStages(t *testing.T) {
	ctx := context.Background()
	stop := errors.New("not confirmed")
	for _, tc := range []struct {
		name  string
		c     func() *deployertest.Scorer
		o     SyncOptions
		err   error
		empty []uint64
		done  []uint64
	}{
		{"to the L1's stage, empty allowed", func() *deployertest.Scorer { return withScores(t, 2) }, SyncOptions{L1: deployertest.NewL1(4), AllowEmpty: true}, nil, nil, []uint64{2, 3}},
		{"empty stages refused", func() *deployertest.Scorer { return withScores(t, 2) }, SyncOptions{Target: 4}, nil, []uint64{3}, nil},
		{"already there", func() *deployertest.Scorer { return withScores(t, 2) }, SyncOptions{Target: 2}, nil, nil, nil},
		{"not confirmed", func() *deployertest.Scorer { return withScores(t, 2) },
			SyncOptions{Target: 3, Confirm: func(_, _, _ uint64) error { return stop }}, stop, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c()
			res, err := SyncStages(ctx, c, tc.o)
			var empty *EmptyStagesError
			switch {
			case tc.empty != nil:
				if !errors.As(err, &empty) || !reflect.DeepEqual(empty.Stages, tc.empty) {
					t.Fatalf("error %v; want the empty stages %v", err, tc.empty)
				}
			case tc.err != nil:
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v; want %v", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if !reflect.DeepEqual(res.Finalized, tc.done) {
					t.Fatalf("finalized %v, want %v", res.Finalized, tc.done)
				}
			}
			if len(tc.done) != c.Finalizes {
				t.Fatalf("%d finalizes, want %d", c.Finalizes, len(tc.done))
			}
		})
	}
}
