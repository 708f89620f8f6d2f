package tasks

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/guard"
)

// JournalDir is where the store's journals and finalize records are kept.
func (s Store) JournalDir() string { return filepath.Join(s.Dir, "journal") }

// Recorded is sc with its finalizes recorded in the store (a retry finds the earlier tx).
func (s Store) Recorded(sc *deployer.Scorer) *guard.RecordedScorer {
	return guard.Recorded(sc, guard.NewRecords(s.JournalDir(), sc.Contract()))
}

// Finalizer is what finalizing needs of a contract: Store.Recorded's scorer is one.
type Finalizer interface {
	guard.Contract
	FinalizeStage(ctx context.Context, stage uint64) (string, error)
	// FinalizeTx is the tx that finalized stage, "" when it is not known.
	FinalizeTx(ctx context.Context, stage uint64) (string, error)
}

// FinalizeOptions are what a finalize reads.
type FinalizeOptions struct {
	guard.FinalizeRequest
	L1 guard.L1 // nil: none configured (the guard refuses what needs it)
	// Confirm, when set, is asked before a finalize the request consented to with risks
	// (guard.FinalizeDecision.Risks); its error stops the finalize and is returned.
	Confirm func(d guard.FinalizeDecision) error
}

// Finalized is a finalize's outcome: the decision, and the tx that finalized the stage. A
// stage finalized before (Done) has the tx found in the records or the chain: TxErr says
// why it could not be found.
type Finalized struct {
	guard.FinalizeDecision
	TxHash string
	TxErr  error
}

// FinalizeStage finalizes the stage o asks (guard.DecideFinalize: a refusal is a
// *guard.RefusedError, and nothing is sent); a stage finalized before is reported with its
// tx, nothing sent.
func FinalizeStage(ctx context.Context, c Finalizer, o FinalizeOptions) (Finalized, error) {
	d, err := guard.DecideFinalize(ctx, c, o.L1, o.FinalizeRequest)
	if err != nil {
		return Finalized{}, err
	}
	if d.Done {
		hash, err := c.FinalizeTx(ctx, d.Stage)
		return Finalized{FinalizeDecision: d, TxHash: hash, TxErr: err}, nil
	}
	if len(d.Risks) > 0 && o.Confirm != nil {
		if err := o.Confirm(d); err != nil {
			return Finalized{}, err
		}
	}
	hash, err := c.FinalizeStage(ctx, d.Stage)
	if err != nil {
		return Finalized{}, err
	}
	return Finalized{FinalizeDecision: d, TxHash: hash}, nil
}

// Syncer is what a stage sync needs of a contract: Store.Recorded's scorer is one.
type Syncer interface {
	guard.Contract
	FinalizeStage(ctx context.Context, stage uint64) (string, error)
}

// SyncOptions are what a stage sync reads.
type SyncOptions struct {
	// Target is the stage to leave open; 0 is the L1's current stage (L1 then required).
	Target uint64
	L1     guard.L1
	// AllowEmpty finalizes stages whose total score is 0 too (they stay empty for good).
	AllowEmpty bool
	// Confirm, when set, is asked once before stages from..to are finalized; its error
	// stops the sync, nothing sent, and is returned.
	Confirm func(from, to, target uint64) error
}

// Validated is o, or the first field that cannot be used.
func (o SyncOptions) Validated() (SyncOptions, error) {
	if o.Target == 0 && o.L1 == nil {
		return o, &deployer.ConfigError{Field: "Target or L1", Value: 0, Err: errors.New("no target stage and no L1 to read it from")}
	}
	return o, nil
}

// Synced is a sync's outcome: the stages finalized, and the stage now open.
type Synced struct {
	Finalized []uint64
	Open      uint64
}

// EmptyStagesError refuses a sync, before anything is sent, that would finalize stages
// whose total score is 0.
type EmptyStagesError struct {
	Stages []uint64
}

func (e *EmptyStagesError) Error() string {
	return fmt.Sprintf("stage sync: stage(s) %v hold no scores (total 0)", e.Stages)
}

// SyncStages finalizes the contract's open stages one by one, each through c (recorded,
// with Store.Recorded), until the target stage is open.
func SyncStages(ctx context.Context, c Syncer, o SyncOptions) (Synced, error) {
	o, err := o.Validated()
	if err != nil {
		return Synced{}, err
	}
	target := o.Target
	if target == 0 {
		if target, err = o.L1.Stage(ctx); err != nil {
			return Synced{}, fmt.Errorf("read L1 stage: %w", err)
		}
	}
	// As a finalize: an empty stage is closed only when told to, and then for good.
	if !o.AllowEmpty {
		if err := refuseEmpty(ctx, c, target); err != nil {
			return Synced{}, err
		}
	}
	var refused error
	confirm := func(from, to uint64) bool {
		if o.Confirm != nil {
			refused = o.Confirm(from, to, target)
		}
		return refused == nil
	}
	done, err := deployer.SyncStage(ctx, c, target, confirm)
	if refused != nil {
		return Synced{}, refused
	}
	if err != nil {
		return Synced{Finalized: done}, err
	}
	return Synced{Finalized: done, Open: target}, nil
}

// refuseEmpty refuses a sync to target that would finalize a stage whose total score is 0,
// naming every such stage.
func refuseEmpty(ctx context.Context, c guard.Contract, target uint64) error {
	open, err := c.OpenStage(ctx)
	if err != nil {
		return err
	}
	var empty []uint64
	for st := open; st < target; st++ {
		info, err := c.StageInfo(ctx, st)
		if err != nil {
			return fmt.Errorf("stage sync: read stage %d: %w", st, err)
		}
		if info.TotalScore == 0 {
			empty = append(empty, st)
		}
	}
	if len(empty) > 0 {
		return &EmptyStagesError{Stages: empty}
	}
	return nil
}
