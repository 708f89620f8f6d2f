package deployer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	return MakePlan(stage, set.Len(), size, c.journalKey(stage, set.Fingerprint()).Path(c.Knobs.JournalDir), u.Gas), nil
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
// set resumes its journal.
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
	k := c.Knobs
	return push.Run(ctx, u.Chain, c.journalKey(stage, set.Fingerprint()).Path(k.JournalDir), stage, set, size,
		push.WithWindow(k.Window), push.WithPollInterval(k.Poll), push.WithLogger(k.Logger), push.WithProgress(k.Progress))
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

// Measure fits the gas model of an update from the gas of one with 1 and one with 50 new
// addresses, as est reports it (an estimate or a simulation on the live contract, which
// also proves the sender may write). what names the call in errors. The two run at once
// (est must allow that): each is a round trip to the node, before the first chunk.
func Measure(stage uint64, what string, headroom uint64, est func(n int) (uint64, error)) (GasModel, error) {
	const n = 50
	var many uint64
	var manyErr error
	var wg sync.WaitGroup
	wg.Go(func() { many, manyErr = est(n) })
	one, err := est(1)
	wg.Wait()
	if err == nil {
		err = manyErr
	}
	if err != nil {
		return GasModel{}, fmt.Errorf("%s stage %d: %w", what, stage, err)
	}
	return FitGas(one, many, n, headroom), nil
}
