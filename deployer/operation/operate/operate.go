// Package operate is the recurring job of a VIP stage, as one long-running loop (or one pass
// for cron): it follows the L1's stage, pushes only the scores that changed against the
// contract's current ones, and when the L1 moves past stage N it pushes N's final scores,
// reads them back, finalizes N, and goes on with N+1; stages the L1 skipped are finalized in
// order, each with its own scores. A stage is never finalized empty unless allowed, never
// from a failed or malformed source, and never twice (the contract refuses it, and the
// operator reads the open stage from the chain before every finalize).
//
// State lives on the chain and in the state directory (push journals, finalize records, the
// pending push), so a restart at any point resumes without a second effect. It works over
// a deployer.Scorer, the same way for every VM.
package operate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/guard"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Contract is what the loop uses of a contract's Scorer (a *deployer.Scorer is one).
type Contract interface {
	scores.StageReader   // Codec, StageInfo, ScorePages
	deployer.StageCloser // OpenStage, FinalizeStage
	VM() vip.VM
	Contract() string
	UpdateSet(ctx context.Context, stage uint64, set *scores.Set) (push.Result, error)
}

// Operator runs the loop for one contract.
type Operator struct {
	s       Contract
	recs    *guard.Records // every finalize goes through them
	l1      guard.L1
	src     Source
	pending pendingFile

	every      time.Duration
	poll       time.Duration
	maxBackoff time.Duration
	allowEmpty bool
	logger     *slog.Logger
	metrics    *Metrics

	nextRead  time.Time // when the open stage's source is read again
	lastRead  uint64    // the stage the source was last read for
	reconnect Reconnect // nil: the contract and L1 of New for good
}

// Option configures an Operator.
type Option func(*Operator)

// The operator's intervals unless its options say.
const (
	DefaultEvery      = time.Minute
	DefaultPoll       = 15 * time.Second
	DefaultMaxBackoff = 5 * time.Minute
)

// WithEvery sets how often the source is read for the open stage (default 1m); a file
// source that changed is read at the next L1 poll.
func WithEvery(d time.Duration) Option { return func(o *Operator) { o.every = d } }

// WithPoll sets how often the L1 is polled (default 15s).
func WithPoll(d time.Duration) Option { return func(o *Operator) { o.poll = d } }

// WithMaxBackoff caps the wait after consecutive failures (default 5m).
func WithMaxBackoff(d time.Duration) Option { return func(o *Operator) { o.maxBackoff = d } }

// WithAllowEmpty lets a stage whose source yields no scores be finalized empty.
func WithAllowEmpty(b bool) Option { return func(o *Operator) { o.allowEmpty = b } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(o *Operator) { o.logger = l } }

// Reconnect is asked before every pass for the contract and the L1 to use from that pass
// on (endpoints that changed): nil for one keeps the one in use. Any error fails the pass
// (a ChainError of op "connect" unless it is typed already), which is retried as a failed
// pass is; a *StopError ends Run and Once with it. A contract at another address than the
// operator's is a StopError: its lock, journals and pending push are another operator's.
type Reconnect func(ctx context.Context) (Contract, guard.L1, error)

// WithReconnect sets what is asked before every pass for new clients.
func WithReconnect(f Reconnect) Option { return func(o *Operator) { o.reconnect = f } }

// StopError is a failure the operator must not retry: going on would act on another chain
// or contract than the one it runs for. Run returns it.
type StopError struct{ Err error }

func (e *StopError) Error() string { return e.Err.Error() }
func (e *StopError) Unwrap() error { return e.Err }

// WithMetrics sets where metrics and health are recorded.
func WithMetrics(m *Metrics) Option { return func(o *Operator) { o.metrics = m } }

// New returns an Operator of the contract s, following l1, reading src, keeping its state
// below stateDir (finalize records and the pending push sit beside the push journals in
// stateDir/journal, keyed by contract).
func New(s Contract, l1 guard.L1, src Source, stateDir string, opts ...Option) *Operator {
	journalDir := filepath.Join(stateDir, "journal")
	o := &Operator{
		s:       s,
		recs:    guard.NewRecords(journalDir, s.Contract()),
		l1:      l1,
		src:     src,
		pending: pendingFile{path: PendingPath(stateDir, s.Contract())},
		every:   DefaultEvery, poll: DefaultPoll, maxBackoff: DefaultMaxBackoff,
		logger: slog.New(slog.DiscardHandler),
	}
	for _, op := range opts {
		op(o)
	}
	if o.metrics == nil {
		o.metrics = NewMetrics()
	}
	return o
}

// LockPath is the lock file of the operator of contract below stateDir.
func LockPath(stateDir, contract string) string {
	return filepath.Join(stateDir, "operate", SafeName(contract)+".lock")
}

// PendingPath is the pending-push file of contract below stateDir.
func PendingPath(stateDir, contract string) string {
	return filepath.Join(stateDir, "operate", SafeName(contract)+".pending.json")
}

// SafeName is contract as a file name: lower-case letters and digits, '_' for the rest.
func SafeName(contract string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '_'
	}, contract)
}

// SourceError is a failure of the score source; nothing was pushed or finalized for it.
type SourceError struct {
	Stage uint64
	Err   error
}

func (e *SourceError) Error() string {
	return fmt.Sprintf("score source for stage %d: %v", e.Stage, e.Err)
}
func (e *SourceError) Unwrap() error { return e.Err }

// SameScoresError refuses to close stages First..Last (the L1 is at L1Stage) from a source
// that gives every stage the same scores: which scores were each stage's cannot be told.
// Nothing was pushed or finalized; a front end says how to close them one by one.
type SameScoresError struct {
	First, Last, L1Stage uint64
	Source               string // the source as its String names it
}

func (e *SameScoresError) Error() string {
	return fmt.Sprintf("the L1 is at stage %d, so stages %d..%d are to be closed, but %s gives every stage the same scores: put %s in the path (one file per stage), or close them by hand",
		e.L1Stage, e.First, e.Last, e.Source, StagePlaceholder)
}

// ChainError is a failure reading or writing the L1 or the rollup.
type ChainError struct {
	Op  string // l1, read, push, finalize
	Err error
}

func (e *ChainError) Error() string { return e.Err.Error() }
func (e *ChainError) Unwrap() error { return e.Err }

// Run loops until ctx ends: a pass at every poll, waiting longer after failures. A stop
// (ctx cancelled) lets the pass in progress finish its current push or finalize, so no
// chunk is left half-sent; then Run returns nil.
func (o *Operator) Run(ctx context.Context) error {
	o.logger.Info("operator started", "contract", o.s.Contract(), "vm", o.s.VM(), "source", o.src.String(),
		"every", o.every, "poll", o.poll)
	failures := 0
	for {
		err := o.pass(ctx, false)
		if se := (*StopError)(nil); errors.As(err, &se) {
			o.logger.Error("operator stopped", "err", err)
			return err
		}
		wait := o.poll
		if err != nil && ctx.Err() == nil {
			failures++
			wait = min(o.poll<<min(failures, 16), o.maxBackoff)
			o.logger.Error("pass failed", "err", err, "retry_in", wait, "failures", failures)
		} else {
			failures = 0
		}
		if untilRead := time.Until(o.nextRead); err == nil && untilRead > 0 && untilRead < wait {
			wait = untilRead
		}
		select {
		case <-ctx.Done():
			o.logger.Info("operator stopped", "reason", context.Cause(ctx))
			return nil
		case <-time.After(wait):
		}
	}
}

// Once runs one pass: every stage the L1 has moved past is finalized with its final scores,
// and the open stage gets the source's current scores.
func (o *Operator) Once(ctx context.Context) error { return o.pass(ctx, true) }

// pass brings the contract up to the L1. Writes run on a context that a stop does not
// cancel; the stop is honoured between them.
func (o *Operator) pass(stopCtx context.Context, force bool) error {
	ctx := context.WithoutCancel(stopCtx)
	stopped := func() bool { return stopCtx.Err() != nil }
	if err := o.reconnected(ctx); err != nil {
		return o.fail(err)
	}
	l1Stage, err := o.l1.Stage(ctx)
	if err != nil {
		return o.fail(&ChainError{Op: "l1", Err: fmt.Errorf("read the L1 stage: %w", err)})
	}
	o.metrics.l1Stage.Set(float64(l1Stage))
	open, err := o.s.OpenStage(ctx)
	if err != nil {
		return o.fail(&ChainError{Op: "read", Err: fmt.Errorf("read the open stage: %w", err)})
	}
	o.metrics.openStage.Set(float64(open))
	o.metrics.setHealth(func(h *health) { h.L1Stage, h.OpenStage = l1Stage, open })
	if err := o.resume(ctx, open); err != nil {
		return o.fail(err)
	}
	if open+1 < l1Stage && !o.src.PerStage() {
		return o.fail(&SourceError{Stage: open, Err: &SameScoresError{First: open, Last: l1Stage - 1, L1Stage: l1Stage, Source: o.src.String()}})
	}
	for open < l1Stage {
		if stopped() {
			return nil
		}
		if err := o.close(ctx, open); err != nil {
			return o.fail(err)
		}
		open++
		o.metrics.openStage.Set(float64(open))
		o.metrics.setHealth(func(h *health) { h.OpenStage = open })
	}
	switch {
	case open > l1Stage:
		return o.fail(&ChainError{Op: "read", Err: fmt.Errorf("the contract's open stage %d is ahead of the L1 stage %d (finalized early by hand?): waiting for the L1", open, l1Stage)})
	case stopped():
		return nil
	case force || o.lastRead != open || !time.Now().Before(o.nextRead) || o.src.Changed(open):
		o.nextRead, o.lastRead = time.Now().Add(o.every), open
		set, err := o.read(ctx, open)
		if errors.Is(err, ErrMissing) {
			o.logger.Info("the source has nothing for the open stage yet", "stage", open, "reason", err)
			break
		}
		if err != nil {
			return o.fail(err)
		}
		// An empty answer for the open stage writes nothing: the stage may simply have no
		// scores yet. Only closing a stage acts on an empty source (and only when allowed).
		if set.Len() == 0 {
			o.logger.Info("the source has no scores for the open stage yet", "stage", open)
		} else if _, err := o.sync(ctx, open, set); err != nil {
			return o.fail(err)
		}
	}
	now := time.Now()
	o.metrics.lastSuccess.Set(float64(now.Unix()))
	o.metrics.setHealth(func(h *health) { h.Status, h.LastSuccess, h.LastError, h.ChainDown = "ok", now, "", false })
	return nil
}

// reconnected takes the clients Reconnect gives, if any.
func (o *Operator) reconnected(ctx context.Context) error {
	if o.reconnect == nil {
		return nil
	}
	s, l1, err := o.reconnect(ctx)
	var se *StopError
	var ce *ChainError
	switch {
	case err != nil && !errors.As(err, &se) && !errors.As(err, &ce):
		return &ChainError{Op: "connect", Err: err}
	case err != nil:
		return err
	case s != nil && s.Contract() != o.s.Contract():
		return &StopError{Err: fmt.Errorf("the new endpoints reach contract %s, not %s that this operator runs for: start an operator for it", s.Contract(), o.s.Contract())}
	}
	if s != nil {
		o.s = s
	}
	if l1 != nil {
		o.l1 = l1
	}
	return nil
}

func (o *Operator) fail(err error) error {
	var se *SourceError
	var ce *ChainError
	switch {
	case errors.As(err, &se):
		o.metrics.sourceErrors.Inc()
	case errors.As(err, &ce):
		o.metrics.chainErrors.WithLabelValues(ce.Op).Inc()
	}
	// A chain that cannot be read or written is unhealthy at once; a source that failed
	// keeps the last success's grace (the next pass may find it).
	unreachable := ce != nil
	o.metrics.setHealth(func(h *health) { h.Status, h.LastError, h.ChainDown = "failing", err.Error(), unreachable })
	return err
}

// read asks the source for stage and validates the answer for the VM as it comes (a large
// answer is never held as text); any problem is the source's, and nothing of a failed answer
// is used. An empty answer is a nil set.
func (o *Operator) read(ctx context.Context, stage uint64) (*scores.Set, error) {
	b := scores.NewBuilder(o.s.Codec())
	if err := o.src.Scores(ctx, stage, b.Add); err != nil {
		return nil, &SourceError{Stage: stage, Err: err}
	}
	if b.Len() == 0 {
		return nil, nil
	}
	set, err := b.Finish()
	if err != nil {
		return nil, &SourceError{Stage: stage, Err: err}
	}
	return set, nil
}

// resume finishes a push a stopped or killed run left, with the exact set it started, so
// its journal resumes it.
func (o *Operator) resume(ctx context.Context, open uint64) error {
	p, err := o.pending.load(o.s.Codec())
	if err != nil || p == nil {
		return err
	}
	if p.stage != open {
		o.logger.Warn("dropping a pending push for a stage that is no longer open", "stage", p.stage, "open_stage", open)
		return o.pending.clear()
	}
	o.logger.Info("resuming an interrupted push", "stage", p.stage, "entries", p.set.Len())
	return o.push(ctx, p.stage, p.set)
}

// changes reads stage page by page against want and returns what must be written for the
// stage to hold exactly want (changed and new addresses, and a zero for every address want
// no longer lists; nil when nothing), with the sum of the stage's rows. Beside want it holds
// one bit per entry and the changes, never the rows read.
func (o *Operator) changes(ctx context.Context, stage uint64, want *scores.Set) (*scores.Set, scores.Total, error) {
	d, sum, err := deployer.Differences(ctx, o.s, stage, want, true)
	if err != nil {
		return nil, scores.Total{}, &ChainError{Op: "read", Err: err}
	}
	return d, sum, nil
}

// sync writes what differs between the contract's stage and want; it returns the number of
// entries written.
func (o *Operator) sync(ctx context.Context, stage uint64, want *scores.Set) (int, error) {
	d, _, err := o.changes(ctx, stage, want)
	if err != nil {
		return 0, err
	}
	if d.Len() == 0 {
		o.logger.Debug("stage up to date", "stage", stage, "entries", want.Len())
		return 0, nil
	}
	return d.Len(), o.push(ctx, stage, d)
}

func (o *Operator) push(ctx context.Context, stage uint64, set *scores.Set) error {
	if err := o.pending.save(stage, set); err != nil {
		return err
	}
	res, err := o.s.UpdateSet(ctx, stage, set)
	if err != nil {
		return &ChainError{Op: "push", Err: fmt.Errorf("push %d entries to stage %d: %w", set.Len(), stage, err)}
	}
	if err := o.pending.clear(); err != nil {
		return err
	}
	o.metrics.entriesPushed.Add(float64(set.Len()))
	o.metrics.pushes.Inc()
	o.logger.Info("scores pushed", "stage", stage, "entries", set.Len(), "chunks", res.Chunks,
		"resumed_chunks", res.Resumed, "gas", res.GasUsed, "journal", res.Journal)
	return nil
}

// close pushes stage's final scores, reads them back, and finalizes it.
func (o *Operator) close(ctx context.Context, stage uint64) error {
	want, err := o.read(ctx, stage)
	if err != nil {
		return err
	}
	if want.Len() == 0 && !o.allowEmpty {
		return &SourceError{Stage: stage, Err: fmt.Errorf("no scores for stage %d, which the L1 has moved past; not finalizing it empty (allow that explicitly to do so)", stage)}
	}
	if _, err := o.sync(ctx, stage, want); err != nil {
		return err
	}
	if err := o.verify(ctx, stage, want); err != nil {
		return err
	}
	hash, err := o.recs.Finalize(ctx, o.s, stage)
	if err != nil {
		return &ChainError{Op: "finalize", Err: fmt.Errorf("finalize stage %d: %w", stage, err)}
	}
	now := time.Now()
	o.metrics.finalizes.Inc()
	o.metrics.finalizedStage.Set(float64(stage))
	o.metrics.lastFinalize.Set(float64(now.Unix()))
	o.logger.Info("stage finalized", "stage", stage, "entries", want.Len(), "tx", hash)
	return nil
}

// verify reads stage back: every wanted score on chain, every other address at zero, and
// the contract's total the sum of its rows.
func (o *Operator) verify(ctx context.Context, stage uint64, want *scores.Set) error {
	info, err := o.s.StageInfo(ctx, stage)
	if err != nil {
		return &ChainError{Op: "read", Err: fmt.Errorf("verify stage %d: %w", stage, err)}
	}
	d, sum, err := o.changes(ctx, stage, want)
	if err != nil {
		return err
	}
	if d.Len() > 0 {
		o.metrics.verifyFailures.Inc()
		first, _ := d.At(0)
		return fmt.Errorf("verify stage %d: %d addresses differ from the source after the push (first %s); not finalizing", stage, d.Len(), o.s.Codec().Encode(first))
	}
	if !sum.Equal(info.TotalScore) {
		o.metrics.verifyFailures.Inc()
		return fmt.Errorf("verify stage %d: the contract's total %d is not the sum of its rows %s; not finalizing", stage, info.TotalScore, sum)
	}
	return nil
}

// JournalDir is where an operator with this state dir keeps journals (for callers that
// report them).
func JournalDir(stateDir string) string { return filepath.Join(stateDir, "journal") }
