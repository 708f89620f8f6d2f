package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"

	"github.com/vipharness/vipharness/deployer/operation/operate"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/tasks"
)

// policySource is operate's score source for --policy: each stage computed from the
// rollup's activity once the stage has ended on the rollup (a stage still running has no
// policy scores: time-weighted balances and caps are over the whole stage), with its score
// file and manifest kept in the state dir. The same chain gives the same scores, so a
// retried push or finalize recomputes the same set and the journal finds its chunks.
type policySource struct {
	c      *chainOptions // the operate command's: the rollup and the L1 it reads
	o      computeOptions
	p      *policy.Policy
	dir    string       // where each stage's score file and manifest go
	codec  scores.Codec // the contract's: how its addresses are written
	logger *slog.Logger

	// last is the last stage computed: blocks below the window's end never change on an
	// Initia rollup (instant finality), so a retry within the run reuses it.
	last      uint64
	lastStage *tasks.Stage
}

func (s *policySource) String() string {
	return fmt.Sprintf("policy %s (sha256:%x)", s.p.Name, s.p.Digest[:6])
}

// PerStage is true: every stage is computed from its own blocks.
func (s *policySource) PerStage() bool { return true }

// Changed is false: the operator asks again every --every, and a stage's scores only
// appear once it has ended.
func (s *policySource) Changed(uint64) bool { return false }

// Scores computes stage by the policy; a stage the rollup has not passed the end of yet is
// operate.ErrMissing (the open stage, or a closed one whose last blocks are not made yet).
func (s *policySource) Scores(ctx context.Context, stage uint64, emit func(scores.Entry)) error {
	ps := s.lastStage
	if ps == nil || s.last != stage {
		var err error
		ps, err = s.c.computeStage(ctx, s.o, s.p, stage)
		if errors.Is(err, policy.ErrBehind) {
			return fmt.Errorf("%w: stage %d has not ended on the rollup yet (a policy scores a stage once its end is past): %w", operate.ErrMissing, stage, err)
		}
		if err != nil {
			return err
		}
		dir := filepath.Join(s.dir, "stage-"+strconv.FormatUint(stage, 10))
		if err := policy.WriteOutputs(dir, ps.ScoreFile, ps.Manifest); err != nil {
			return err
		}
		tree, err := policy.Tree(s.o.bridgeID, stage, ps.Result.Scores)
		if err != nil {
			return err
		}
		s.logger.Info("stage computed by the policy", "stage", stage, "policy", s.p.Name,
			"blocks", fmt.Sprintf("%d..%d", ps.Run.Span.FirstBlock, ps.Run.Span.LastBlock), "source", ps.Run.SourceKind,
			"addresses", len(ps.Result.Scores), "total", ps.Total(), "merkle_root", "0x"+tree.Root().String(), "out", dir)
		s.last, s.lastStage = stage, ps
	}
	for _, sc := range ps.Result.Scores {
		emit(scores.Entry{Addr: s.codec.Encode(sc.Addr[:]), Amount: sc.Score})
	}
	return nil
}
