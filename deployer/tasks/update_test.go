package tasks

import (
	"context"
	"errors"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/deployertest"
	"github.com/vipharness/vipharness/deployer/operation/guard"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
)

func testSet(t *testing.T) *scores.Set {
	t.Helper()
	set, err := scores.NewSet([]scores.Entry{
		{Addr: "0x00000000000000000000000000000000000000a1", Amount: 10},
		{Addr: "0x00000000000000000000000000000000000000a2", Amount: 20},
	}, scores.EVMCodec{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// liar confirms every push but stores one point more than it was sent.
type liar struct{ *deployertest.Scorer }

func (l liar) UpdateSet(ctx context.Context, stage uint64, set *scores.Set) (push.Result, error) {
	var more []scores.Entry
	for _, e := range set.Entries(0, set.Len()) {
		more = append(more, scores.Entry{Addr: e.Addr, Amount: e.Amount + 1})
	}
	return l.UpdateScores(ctx, stage, more)
}

func TestUpdateOptionsValidated(t *testing.T) {
	if _, err := (UpdateOptions{Stage: 1}).Validated(); !isConfigError(err, "Set") {
		t.Fatalf("no set: %v", err)
	}
	if _, err := (UpdateOptions{Set: testSet(t)}).Validated(); err != nil {
		t.Fatal(err)
	}
}

func isConfigError(err error, field string) bool {
	var ce *deployer.ConfigError
	return errors.As(err, &ce) && ce.Field == field
}

func TestUpdateScores(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		c       func() Updater
		o       UpdateOptions
		refused guard.Refusal // 0: not refused
		stage   uint64
		sent    bool
		readOK  bool
		readNil bool
	}{
		{"the stage asked", func() Updater { return deployertest.New(3) }, UpdateOptions{Stage: 3}, 0, 3, true, true, false},
		{"the L1's, the open one", func() Updater { return deployertest.New(3) }, UpdateOptions{L1: deployertest.NewL1(3)}, 0, 3, true, true, false},
		{"no stage and no L1", func() Updater { return deployertest.New(3) }, UpdateOptions{}, guard.NoStage, 0, false, false, false},
		{"the contract behind the L1", func() Updater { return deployertest.New(2) }, UpdateOptions{L1: deployertest.NewL1(3)}, guard.ContractBehind, 0, false, false, false},
		{"a dry run", func() Updater { return deployertest.New(3) }, UpdateOptions{Stage: 3, DryRun: true}, 0, 3, false, true, true},
		{"no read-back", func() Updater { return deployertest.New(3) }, UpdateOptions{Stage: 3, NoReadBack: true}, 0, 3, true, true, true},
		{"a contract that stores another score", func() Updater { return liar{deployertest.New(3)} }, UpdateOptions{Stage: 3}, 0, 3, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Set = testSet(t)
			u, err := UpdateScores(ctx, tc.c(), o)
			var r *guard.RefusedError
			if tc.refused != 0 {
				if !errors.As(err, &r) || r.Why != tc.refused {
					t.Fatalf("error %v; want refused %v", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if u.Stage != tc.stage || (u.Push != nil) != tc.sent || (u.Plan != nil) != o.DryRun || u.OK() != tc.readOK || (u.ReadBack == nil) != tc.readNil {
				t.Fatalf("got %+v (ok %v); want stage %d sent %v read ok %v", u, u.OK(), tc.stage, tc.sent, tc.readOK)
			}
		})
	}
}

// A stage read back is the one named, else (no push of the set journaled) the open one; a
// stage that differs is a report that is not OK, not an error.
func TestVerifyScores(t *testing.T) {
	ctx := context.Background()
	c := deployertest.New(1)
	if _, err := UpdateScores(ctx, c, UpdateOptions{Set: testSet(t), Stage: 1, NoReadBack: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.FinalizeStage(ctx, 1); err != nil {
		t.Fatal(err)
	}
	store := Store{Dir: t.TempDir()}
	if _, err := (VerifyOptions{Stage: 1}).Validated(); !isConfigError(err, "Set") {
		t.Fatalf("no set: %v", err)
	}
	rep, err := VerifyScores(ctx, c, VerifyOptions{Set: testSet(t), Stage: 1, Store: store})
	if err != nil || !rep.OK() || rep.Stage != 1 || rep.Matched != 2 {
		t.Fatalf("stage 1: %+v, %v", rep, err)
	}
	rep, err = VerifyScores(ctx, c, VerifyOptions{Set: testSet(t), Store: store})
	if err != nil || rep.OK() || rep.Stage != 2 {
		t.Fatalf("the open stage 2, empty: %+v, %v; want a report that is not OK", rep, err)
	}
}
