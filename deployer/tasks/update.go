package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/operation/guard"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
)

// Updater is what a score update needs of a contract: *deployer.Scorer is one.
type Updater interface {
	scores.StageReader
	OpenStage(ctx context.Context) (uint64, error)
	PlanSet(ctx context.Context, stage uint64, set *scores.Set) (deployer.Plan, error)
	UpdateSet(ctx context.Context, stage uint64, set *scores.Set) (push.Result, error)
}

// UpdateOptions are what a score update reads.
type UpdateOptions struct {
	Set *scores.Set // the scores, validated for the contract's VM
	// Stage is the stage written; 0 is the L1's, when it is the contract's open stage
	// (guard.UpdateStage: a refusal is a *guard.RefusedError). L1 may be nil then: the
	// guard refuses what needs it.
	Stage uint64
	L1    guard.L1
	// DryRun only plans: nothing is sent.
	DryRun bool
	// NoReadBack skips reading the stage back after the push.
	NoReadBack bool
}

// Validated is o, or the first field that cannot be used.
func (o UpdateOptions) Validated() (UpdateOptions, error) {
	if o.Set == nil {
		return o, &deployer.ConfigError{Field: "Set", Value: nil, Err: errors.New("no scores")}
	}
	return o, nil
}

// Updated is a score update's outcome: the plan (a dry run), or the push and the stage read
// back after it (nil with NoReadBack).
type Updated struct {
	Stage    uint64
	Plan     *deployer.Plan
	Push     *push.Result
	ReadBack *deployer.Report
}

// OK is false when the stage read back after the push differs from the scores.
func (u Updated) OK() bool { return u.ReadBack == nil || u.ReadBack.OK() }

// UpdateScores pushes o.Set to the stage in journaled chunks (a re-run resumes) and reads
// the stage back, or only plans it. A read-back that differs is not an error: Updated.OK
// says it.
func UpdateScores(ctx context.Context, c Updater, o UpdateOptions) (Updated, error) {
	o, err := o.Validated()
	if err != nil {
		return Updated{}, err
	}
	st := o.Stage
	if st == 0 {
		if st, err = guard.UpdateStage(ctx, c, o.L1); err != nil {
			return Updated{}, err
		}
	}
	u := Updated{Stage: st}
	if o.DryRun {
		plan, err := c.PlanSet(ctx, st, o.Set)
		if err != nil {
			return u, err
		}
		u.Plan = &plan
		return u, nil
	}
	res, err := c.UpdateSet(ctx, st, o.Set)
	if err != nil {
		return u, err
	}
	u.Push = &res
	if o.NoReadBack {
		return u, nil
	}
	// Each chunk was confirmed by its result code alone: one read-back of the whole stage
	// proves what the contract now holds.
	rep, err := deployer.VerifySet(ctx, c, st, o.Set)
	if err != nil {
		return u, fmt.Errorf("read back stage %d after the push: %w", st, err)
	}
	u.ReadBack = &rep
	return u, nil
}

// Verifier is what verifying a stage needs of a contract: *deployer.Scorer is one.
type Verifier interface {
	scores.StageReader
	OpenStage(ctx context.Context) (uint64, error)
	Contract() string
}

// VerifyOptions are what a verify reads.
type VerifyOptions struct {
	Set *scores.Set // the scores, validated for the contract's VM
	// Stage is the stage read back; 0 is the stage the store's journal last pushed Set to,
	// else the contract's open stage.
	Stage  uint64
	Store  Store
	Logger *slog.Logger // nil: none
}

// Validated is o with its defaults, or the first field that cannot be used.
func (o VerifyOptions) Validated() (VerifyOptions, error) {
	if o.Set == nil {
		return o, &deployer.ConfigError{Field: "Set", Value: nil, Err: errors.New("no scores")}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// VerifyScores reads the stage back and compares it with o.Set; a stage that differs is not
// an error: the report's OK says it.
func VerifyScores(ctx context.Context, c Verifier, o VerifyOptions) (deployer.Report, error) {
	o, err := o.Validated()
	if err != nil {
		return deployer.Report{}, err
	}
	st := o.Stage
	if st == 0 {
		if st, err = lastPushedStage(ctx, c, o); err != nil {
			return deployer.Report{}, err
		}
	}
	return deployer.VerifySet(ctx, c, st, o.Set)
}

// lastPushedStage is the stage the store's journal last pushed o.Set to, else the
// contract's open stage.
func lastPushedStage(ctx context.Context, c Verifier, o VerifyOptions) (uint64, error) {
	pushes, err := journal.FindPushes(o.Store.JournalDir(), c.Contract(), o.Set.Fingerprint())
	if err != nil {
		return 0, err
	}
	if len(pushes) > 0 {
		o.Logger.Debug("verify: stage from the journal", "stage", pushes[0].Begin.Stage, "journal", pushes[0].Path)
		return pushes[0].Begin.Stage, nil
	}
	return c.OpenStage(ctx)
}
