package guard

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/journal"
)

// Records keeps one write-ahead journal per finalized stage of a contract below a
// journal directory, beside the push journals.
type Records struct {
	dir      string
	contract string
}

// NewRecords keeps the finalize records of contract below dir.
func NewRecords(dir, contract string) *Records { return &Records{dir: dir, contract: contract} }

func (r *Records) path(stage uint64) string {
	return journal.Key{ChainID: "finalize", Contract: r.contract, Stage: stage, Input: "finalize"}.Path(r.dir)
}

// Lookup returns the tx a finalize recorded for stage, if one did.
func (r *Records) Lookup(stage uint64) (string, error) {
	path := r.path(stage)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	j, err := journal.Open(path)
	if err != nil {
		return "", err
	}
	defer j.Close()
	return j.Chunk(0).Hash, nil
}

// Finalizer finalizes a stage (a deployer.Scorer does).
type Finalizer interface {
	FinalizeStage(ctx context.Context, stage uint64) (string, error)
}

// Finalize records the intent, finalizes stage, and records the tx.
func (r *Records) Finalize(ctx context.Context, f Finalizer, stage uint64) (string, error) {
	j, err := journal.Open(r.path(stage))
	if err != nil {
		return "", err
	}
	defer j.Close()
	if err := j.Append(journal.Record{Op: journal.OpBegin, Stage: stage, Input: "finalize", Chunks: 1}); err != nil {
		return "", err
	}
	hash, err := f.FinalizeStage(ctx, stage)
	if err != nil {
		if jerr := j.Append(journal.Record{Op: journal.OpFailed, Stage: stage, Error: err.Error()}); jerr != nil {
			return "", fmt.Errorf("%w (and recording the failure failed: %w)", err, jerr)
		}
		return "", err
	}
	if err := j.Append(journal.Record{Op: journal.OpConfirmed, Stage: stage, Hash: hash}); err != nil {
		return hash, fmt.Errorf("finalized stage %d (tx %s) but could not record it: %w", stage, hash, err)
	}
	return hash, nil
}

// FinalizeTx finds the tx that finalized stage: from the record, else from the chain's
// events when the Scorer can search them; "" when neither knows.
func (r *Records) FinalizeTx(ctx context.Context, s any, stage uint64) (string, error) {
	if hash, err := r.Lookup(stage); err != nil || hash != "" {
		return hash, err
	}
	if ff, ok := s.(deployer.FinalizeFinder); ok {
		hash, err := ff.FinalizeTx(ctx, stage)
		if err != nil {
			return "", fmt.Errorf("find the tx that finalized stage %d: %w", stage, err)
		}
		return hash, nil
	}
	return "", nil
}

// Recorded returns s with every FinalizeStage going through recs, so that code written
// over deployer.Scorer (deployer.SyncStage, an operator loop) leaves a record too.
func Recorded(s deployer.Scorer, recs *Records) deployer.Scorer {
	return &recorded{Scorer: s, recs: recs}
}

type recorded struct {
	deployer.Scorer
	recs *Records
}

func (r *recorded) FinalizeStage(ctx context.Context, stage uint64) (string, error) {
	return r.recs.Finalize(ctx, r.Scorer, stage)
}

// FinalizeTx is the recorded tx, else the chain's.
func (r *recorded) FinalizeTx(ctx context.Context, stage uint64) (string, error) {
	return r.recs.FinalizeTx(ctx, r.Scorer, stage)
}
