package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Records keeps one write-ahead journal per finalized stage of a contract below a
// journal directory, beside the push journals.
type Records struct {
	dir      string
	contract string
	settle   time.Duration
	poll     time.Duration
}

// RecordsOption configures Records.
type RecordsOption func(*Records)

// WithSettle sets how long a finalize that an earlier, interrupted run may have sent is given
// to land before another is sent (default 10s).
func WithSettle(d time.Duration) RecordsOption { return func(r *Records) { r.settle = d } }

// NewRecords keeps the finalize records of contract below dir.
func NewRecords(dir, contract string, opts ...RecordsOption) *Records {
	r := &Records{dir: dir, contract: contract, settle: 10 * time.Second, poll: 250 * time.Millisecond}
	for _, o := range opts {
		o(r)
	}
	return r
}

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

// Finalizer finalizes a stage and reads it (a deployer.Scorer does).
type Finalizer interface {
	FinalizeStage(ctx context.Context, stage uint64) (string, error)
	StageInfo(ctx context.Context, stage uint64) (vip.StageInfo, error)
}

// Finalize records the attempt, finalizes stage, and records the tx. When an earlier run
// recorded an attempt but not its outcome (it was killed in between), that attempt's tx may
// still be on its way: it is given until the settle time to land before another is sent.
func (r *Records) Finalize(ctx context.Context, f Finalizer, stage uint64) (string, error) {
	j, err := journal.Open(r.path(stage))
	if err != nil {
		return "", err
	}
	defer j.Close()
	if c := j.Chunk(0); !c.Confirmed && len(c.Attempts) > 0 {
		landed, err := r.await(ctx, f, stage, c.Attempts[len(c.Attempts)-1].Time.Add(r.settle))
		if err != nil {
			return "", err
		}
		if landed {
			hash, err := r.FinalizeTx(ctx, f, stage)
			if err != nil {
				return "", err
			}
			if err := j.Append(journal.Record{Op: journal.OpConfirmed, Stage: stage, Hash: hash}); err != nil {
				return "", err
			}
			return hash, nil
		}
		if err := j.Append(journal.Record{Op: journal.OpDropped, Stage: stage}); err != nil {
			return "", err
		}
	}
	if _, ok := j.Begin(); !ok {
		if err := j.Append(journal.Record{Op: journal.OpBegin, Stage: stage, Input: "finalize", Chunks: 1}); err != nil {
			return "", err
		}
	}
	if err := j.Append(journal.Record{Op: journal.OpSigned, Stage: stage}); err != nil {
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

// await polls stage until it is finalized (true) or until deadline (false).
func (r *Records) await(ctx context.Context, f Finalizer, stage uint64, deadline time.Time) (bool, error) {
	for {
		info, err := f.StageInfo(ctx, stage)
		if err != nil {
			return false, fmt.Errorf("finalize stage %d: read it: %w", stage, err)
		}
		if info.Finalized {
			return true, nil
		}
		if !time.Now().Before(deadline) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(min(r.poll, time.Until(deadline))):
		}
	}
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

// Recorded is s with every FinalizeStage going through recs, so that code over s
// (deployer.SyncStage, a guarded finalize) leaves a record too.
func Recorded(s *deployer.Scorer, recs *Records) *RecordedScorer {
	return &RecordedScorer{Scorer: s, recs: recs}
}

// RecordedScorer is a Scorer whose finalizes are recorded (Recorded).
type RecordedScorer struct {
	*deployer.Scorer
	recs *Records
}

// FinalizeStage finalizes stage through the records (Records.Finalize).
func (r *RecordedScorer) FinalizeStage(ctx context.Context, stage uint64) (string, error) {
	return r.recs.Finalize(ctx, r.Scorer, stage)
}

// FinalizeTx is the recorded tx, else the chain's.
func (r *RecordedScorer) FinalizeTx(ctx context.Context, stage uint64) (string, error) {
	return r.recs.FinalizeTx(ctx, r.Scorer, stage)
}
