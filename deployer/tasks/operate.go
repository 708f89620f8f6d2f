package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/guard"
	"github.com/vipharness/vipharness/deployer/operation/operate"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/scores"
)

// OperateOptions are what an operator reads.
type OperateOptions struct {
	Source operate.Source
	// Every is how often the source is read, Poll how often the L1; MaxBackoff the longest
	// wait after failures (at least Poll). 0 is operate's default.
	Every, Poll, MaxBackoff time.Duration
	// AllowEmpty finalizes a stage the source gives no scores for.
	AllowEmpty bool
	// Store keeps the operator's lock, journals, records and a policy's outputs.
	Store   Store
	Logger  *slog.Logger
	Metrics *operate.Metrics
	// Reconnect, when set, is asked before every pass for another contract and L1.
	Reconnect operate.Reconnect
}

// Validated is o with its defaults, or the first field that cannot be used.
func (o OperateOptions) Validated() (OperateOptions, error) {
	bad := func(field string, v any, why string) (OperateOptions, error) {
		return o, &deployer.ConfigError{Field: field, Value: v, Err: errors.New(why)}
	}
	switch {
	case o.Source == nil:
		return bad("Source", nil, "no score source")
	case o.Store.Dir == "":
		return bad("Store.Dir", `""`, "no state dir for the operator's lock and records")
	case o.Every < 0:
		return bad("Every", o.Every, "want a positive interval")
	case o.Poll < 0:
		return bad("Poll", o.Poll, "want a positive interval")
	}
	if o.Every == 0 {
		o.Every = operate.DefaultEvery
	}
	if o.Poll == 0 {
		o.Poll = operate.DefaultPoll
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = max(operate.DefaultMaxBackoff, o.Poll)
	}
	if o.MaxBackoff < o.Poll {
		return bad("MaxBackoff", o.MaxBackoff, fmt.Sprintf("want at least the poll interval %s", o.Poll))
	}
	return o, nil
}

// Operator is an operator of one contract that holds the contract's lock in the store
// (one operator per contract) until Close.
type Operator struct {
	*operate.Operator
	lock *operate.Lock
}

// Close releases the contract's lock.
func (op *Operator) Close() error { return op.lock.Release() }

// NewOperator makes the operator of c following l1 and takes the contract's lock: another
// operator of it is operate.ErrLocked. A PolicySource's outputs go to the store's policy
// folder of the contract.
func NewOperator(c operate.Contract, l1 guard.L1, o OperateOptions) (*Operator, error) {
	o, err := o.Validated()
	if err != nil {
		return nil, err
	}
	lock, err := operate.Acquire(operate.LockPath(o.Store.Dir, c.Contract()))
	if err != nil {
		return nil, err
	}
	if ps, ok := o.Source.(*PolicySource); ok {
		ps.dir, ps.codec, ps.logger = o.Store.PolicyDir(c.Contract()), c.Codec(), o.Logger
	}
	opts := []operate.Option{operate.WithEvery(o.Every), operate.WithPoll(o.Poll),
		operate.WithMaxBackoff(o.MaxBackoff), operate.WithAllowEmpty(o.AllowEmpty)}
	if o.Logger != nil {
		opts = append(opts, operate.WithLogger(o.Logger))
	}
	if o.Metrics != nil {
		opts = append(opts, operate.WithMetrics(o.Metrics))
	}
	if o.Reconnect != nil {
		opts = append(opts, operate.WithReconnect(o.Reconnect))
	}
	return &Operator{Operator: operate.New(c, l1, o.Source, o.Store.Dir, opts...), lock: lock}, nil
}

// PolicyDir is where an operator of contract keeps each stage's policy score file and
// manifest (stage-N below it).
func (s Store) PolicyDir(contract string) string {
	return filepath.Join(s.Dir, "policy", operate.SafeName(contract))
}

// PolicySource is an operator's score source that computes each stage by a policy once the
// stage has ended on the rollup (a stage still running has no policy scores: time-weighted
// balances and caps are over the whole stage), keeping its score file and manifest. The
// same chain gives the same scores, so a retried push or finalize recomputes the same set
// and the journal finds its chunks.
type PolicySource struct {
	o      ComputeOptions // each stage's, but for the stage
	dir    string         // where each stage's score file and manifest go
	codec  scores.Codec   // the contract's: how its addresses are written
	logger *slog.Logger

	// last is the last stage computed: blocks below the window's end never change on an
	// Initia rollup (instant finality), so a retry within the run reuses it.
	last      uint64
	lastStage *Stage
}

// NewPolicySource is the source of the stages o computes (o.Stage is each stage's);
// options that cannot be used are refused now, not at each stage.
func NewPolicySource(o ComputeOptions) (*PolicySource, error) {
	o.Stage = 1
	o, err := o.Validated()
	if err != nil {
		return nil, err
	}
	return &PolicySource{o: o, logger: slog.New(slog.DiscardHandler)}, nil
}

// Use makes the stages computed from now on read where o says (endpoints that changed).
func (s *PolicySource) Use(o ComputeOptions) { s.o = o }

func (s *PolicySource) String() string {
	return fmt.Sprintf("policy %s (sha256:%x)", s.o.Policy.Name, s.o.Policy.Digest[:6])
}

// PerStage is true: every stage is computed from its own blocks.
func (s *PolicySource) PerStage() bool { return true }

// Changed is false: the operator asks again every interval, and a stage's scores only
// appear once it has ended.
func (s *PolicySource) Changed(uint64) bool { return false }

// Scores computes stage by the policy; a stage the rollup has not passed the end of yet is
// operate.ErrMissing (the open stage, or a closed one whose last blocks are not made yet).
func (s *PolicySource) Scores(ctx context.Context, stage uint64, emit func(scores.Entry)) error {
	ps := s.lastStage
	if ps == nil || s.last != stage {
		o := s.o
		o.Stage = stage
		var err error
		ps, err = ComputeStage(ctx, o)
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
		tree, err := policy.Tree(o.BridgeID, stage, ps.Result.Scores)
		if err != nil {
			return err
		}
		s.logger.Info("stage computed by the policy", "stage", stage, "policy", o.Policy.Name,
			"blocks", fmt.Sprintf("%d..%d", ps.Run.Span.FirstBlock, ps.Run.Span.LastBlock), "source", ps.Run.SourceKind,
			"addresses", len(ps.Result.Scores), "total", ps.Total(), "merkle_root", "0x"+tree.Root().String(), "out", dir)
		s.last, s.lastStage = stage, ps
	}
	for _, sc := range ps.Result.Scores {
		emit(scores.Entry{Addr: s.codec.Encode(sc.Addr[:]), Amount: sc.Score})
	}
	return nil
}

// Policy is the policy the source computes by.
func (s *PolicySource) Policy() *policy.Policy { return s.o.Policy }
