package deployer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
)

// Knobs are the push settings every VM's Scorer takes; DefaultKnobs fills them.
type Knobs struct {
	JournalDir string
	ChunkSize  int // 0 derives it from the chain's limits
	Window     int // chunk txs in flight
	Poll       time.Duration
	Logger     *slog.Logger
	Progress   func(done, total int)
}

// DefaultKnobs are 8 txs in flight, a 25ms poll, no logs and no progress; the journal folder
// is resolved by JournalDir at Dial.
func DefaultKnobs() Knobs {
	return Knobs{Window: 8, Poll: 25 * time.Millisecond, Logger: slog.New(slog.DiscardHandler), Progress: func(int, int) {}}
}

// Update is how one VM sends an update of a stage, as its Contract measured it on the
// live chain: the chain the push drives, the most entries one tx fits under the chain's
// limits (and the binding limit, for errors), a cap when limits allow more, and the gas
// limit a chunk of n entries is sent with.
type Update struct {
	Chain push.Chain
	Fits  int
	Limit string // e.g. "block gas limit 2000000 (~23000 gas per entry)"
	Cap   int    // 0: none
	Gas   func(n int) uint64
}

// Contract is the part of a Scorer that differs per VM: how it writes addresses, how it
// names its chain in journal keys, how it measures and sends an update, how it reads a
// stage and its first stage. Core writes the flow around it once.
type Contract interface {
	// Contract is the contract's address, "" before Deploy or Attach.
	Contract() string
	// Codec is how the VM writes account addresses.
	Codec() scores.Codec
	// JournalChain names the chain in journal keys ("evm-1337", "move-<chain id>").
	JournalChain() string
	// PrepareUpdate measures an update of stage with set on the live contract, which also
	// proves the operator may write it, before anything is sent.
	PrepareUpdate(ctx context.Context, stage uint64, set *scores.Set) (Update, error)
	StageInfo(ctx context.Context, stage uint64) (StageInfo, error)
	// InitStage is the contract's first stage.
	InitStage(ctx context.Context) (uint64, error)
	// ScorePages reads a stage page by page.
	ScorePages(ctx context.Context, stage uint64, each func(page []scores.Entry) error) error
}

// Core is the flow every VM's Scorer shares: validate -> plan -> journal -> push, and the
// walk to the open stage.
type Core struct {
	Contract Contract
	Knobs    Knobs
}

// ErrNoContract is an operation that needs a contract on a Scorer that has none yet.
var ErrNoContract = errors.New("no contract address: deploy first or pass the contract")

// set validates entries into the contract's canonical set.
func (c Core) set(stage uint64, entries []scores.Entry) (*scores.Set, error) {
	set, err := scores.NewSet(entries, c.Contract.Codec())
	if err != nil {
		return nil, fmt.Errorf("update scores stage %d: %w", stage, err)
	}
	return set, nil
}

// prepare sizes the chunks of set from the contract's measure.
func (c Core) prepare(ctx context.Context, stage uint64, set *scores.Set) (Update, int, error) {
	if c.Contract.Contract() == "" {
		return Update{}, 0, ErrNoContract
	}
	if set == nil || set.Len() == 0 {
		return Update{}, 0, fmt.Errorf("update scores stage %d: empty score set: nothing to send", stage)
	}
	u, err := c.Contract.PrepareUpdate(ctx, stage, set)
	if err != nil {
		return Update{}, 0, err
	}
	size := u.Fits
	if u.Cap > 0 {
		size = min(size, u.Cap)
	}
	if n := c.Knobs.ChunkSize; n > 0 {
		if n > u.Fits {
			return Update{}, 0, fmt.Errorf("update scores stage %d: chunk size %d does not fit the %s: at most %d entries per tx", stage, n, u.Limit, u.Fits)
		}
		size = n
	}
	if size < 1 {
		return Update{}, 0, fmt.Errorf("update scores stage %d: one entry does not fit the %s", stage, u.Limit)
	}
	return u, size, nil
}

func (c Core) journalKey(stage uint64, input string) journal.Key {
	return journal.Key{ChainID: c.Contract.JournalChain(), Contract: c.Contract.Contract(), Stage: stage, Input: input}
}

// Plan validates entries and the operator's right to write stage, and returns the chunks
// an update would send; nothing is sent.
func (c Core) Plan(ctx context.Context, stage uint64, entries []scores.Entry) (Plan, error) {
	set, err := c.set(stage, entries)
	if err != nil {
		return Plan{}, err
	}
	return c.PlanSet(ctx, stage, set)
}

// PlanSet is Plan of a validated set.
func (c Core) PlanSet(ctx context.Context, stage uint64, set *scores.Set) (Plan, error) {
	u, size, err := c.prepare(ctx, stage, set)
	if err != nil {
		return Plan{}, err
	}
	if old, err := c.olderJournal(stage, set); err != nil || old != nil {
		if err != nil {
			return Plan{}, err
		}
		return Plan{Stage: stage, Entries: set.Len(), Chunks: old.res.Chunks, ChunkSize: old.begin.ChunkSize,
			AlreadyDone: old.res.Chunks, Journal: old.res.Journal}, nil
	}
	a, err := c.nextAttempt(ctx, stage, set)
	if err != nil {
		return Plan{}, err
	}
	return MakePlan(stage, a.set.Len(), size, a.path, u.Gas), nil
}

// UpdateScores validates entries, then pushes them in journaled, pipelined chunks; a re-run
// with the same input resumes its journal.
func (c Core) UpdateScores(ctx context.Context, stage uint64, entries []scores.Entry) (push.Result, error) {
	set, err := c.set(stage, entries)
	if err != nil {
		return push.Result{}, err
	}
	return c.UpdateSet(ctx, stage, set)
}

// UpdateSet pushes a validated set in journaled, pipelined chunks; a re-run with the same
// set resumes its journal. The chain is the truth and the journal only keeps a chunk from
// being sent twice: when every push of this set to stage is confirmed but the stage no
// longer holds it (a later push, or another writer, changed it since), what differs is
// pushed again as a new attempt with a journal of its own.
func (c Core) UpdateSet(ctx context.Context, stage uint64, set *scores.Set) (push.Result, error) {
	u, size, err := c.prepare(ctx, stage, set)
	if err != nil {
		return push.Result{}, err
	}
	if old, err := c.olderJournal(stage, set); err != nil || old != nil {
		if err != nil {
			return push.Result{}, err
		}
		return old.res, nil
	}
	a, err := c.nextAttempt(ctx, stage, set)
	if err != nil {
		return push.Result{}, err
	}
	k := c.Knobs
	if a.fresh {
		k.Logger.Warn("the stage no longer holds a score set pushed to it before; pushing what differs as a new push",
			"stage", stage, "entries", set.Len(), "differ", a.set.Len(), "journal", a.path)
		if err := journal.WriteFileDurably(attemptSetPath(a.path), a.set.WriteCSV); err != nil {
			return push.Result{}, fmt.Errorf("update scores stage %d: save the set of %s: %w", stage, a.path, err)
		}
	}
	return push.Run(ctx, u.Chain, a.path, stage, a.set, size,
		push.WithWindow(k.Window), push.WithPollInterval(k.Poll), push.WithLogger(k.Logger), push.WithProgress(k.Progress))
}

// attempt is the push UpdateSet runs for a set: its journal and the set it sends (the
// whole set, or what differed when a later attempt began). fresh is a later attempt not
// begun yet, whose set must be saved beside its journal first.
type attempt struct {
	path  string
	set   *scores.Set
	fresh bool
}

// nextAttempt walks the attempts of set at stage: the first one not finished is resumed;
// when all are finished, the stage is read, and either holds the set (the last finished
// attempt stands for the push: nothing to send) or what differs is the next attempt.
func (c Core) nextAttempt(ctx context.Context, stage uint64, set *scores.Set) (attempt, error) {
	key := c.journalKey(stage, set.Fingerprint())
	var done attempt // the last finished attempt
	for n := 1; ; n++ {
		key.Attempt = n
		path := key.Path(c.Knobs.JournalDir)
		exists, finished, err := journal.Finished(path)
		if err != nil {
			return attempt{}, fmt.Errorf("update scores stage %d: %w", stage, err)
		}
		if n == 1 && !finished {
			return attempt{path: path, set: set}, nil
		}
		if exists && n > 1 {
			again, err := scores.LoadSet(attemptSetPath(path), string(scores.CSV), c.Contract.Codec())
			if err != nil {
				return attempt{}, fmt.Errorf("update scores stage %d: the set of %s: %w", stage, path, err)
			}
			if !finished { // stopped half way: resume it with the exact set it planned
				return attempt{path: path, set: again}, nil
			}
			done = attempt{path: path, set: again}
			continue
		}
		if finished {
			done = attempt{path: path, set: set}
			continue
		}
		again, _, err := Differences(ctx, c.Contract, stage, set, false)
		if err != nil {
			return attempt{}, fmt.Errorf("update scores stage %d: %w", stage, err)
		}
		if again == nil {
			return done, nil // every chunk confirmed before: push.Run reports them and sends nothing
		}
		return attempt{path: path, set: again, fresh: true}, nil
	}
}

// attemptSetPath is where a later attempt keeps the set it pushes (what differed when it
// began), so that a re-run resumes that exact set.
func attemptSetPath(journalPath string) string {
	return strings.TrimSuffix(journalPath, ".jsonl") + ".set.csv"
}

// OpenStage reads the contract's first stage and walks past the finalized stages.
func (c Core) OpenStage(ctx context.Context) (uint64, error) {
	if c.Contract.Contract() == "" {
		return 0, ErrNoContract
	}
	st, err := c.Contract.InitStage(ctx)
	if err != nil {
		return 0, err
	}
	for {
		info, err := c.Contract.StageInfo(ctx, st)
		if err != nil {
			return 0, err
		}
		if !info.Exists {
			return 0, fmt.Errorf("stage %d does not exist on the contract %s", st, c.Contract.Contract())
		}
		if !info.Finalized {
			return st, nil
		}
		st++
	}
}

// Measure fits the gas model of an update from the gas of one with 1, 2 and 50 new
// addresses, as est reports it (an estimate or a simulation on the live contract, which also
// proves the sender may write). what names the call in errors. The three run at once (est
// must allow that): each is a round trip to the node, before the first chunk.
func Measure(stage uint64, what string, headroom uint64, est func(n int) (uint64, error)) (GasModel, error) {
	const n = 50
	sizes := [3]int{1, 2, n}
	var gas [3]uint64
	var errs [3]error
	var wg sync.WaitGroup
	for i, k := range sizes {
		wg.Go(func() { gas[i], errs[i] = est(k) })
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return GasModel{}, fmt.Errorf("%s stage %d: %w", what, stage, err)
	}
	return FitGas(gas[0], gas[1], gas[2], n, headroom), nil
}
