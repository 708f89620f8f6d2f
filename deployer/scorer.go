package deployer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
)

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

// Contract is the part of a Scorer that differs per VM: how it dials and names its chain,
// writes addresses, deploys, measures and sends an update, finalizes, and reads a stage and
// its first stage. Each VM package has one (evm.Contract, move.Contract, wasm.Contract);
// Scorer writes the flow around it once.
type Contract interface {
	VM() vip.VM
	// ChainID is the chain id the node reported (decimal on EVM).
	ChainID() string
	// Bech32Prefix is the chain's account prefix, "" where accounts are 0x addresses.
	Bech32Prefix() string
	// Contract is the contract's address, "" before Deploy or Attach.
	Contract() string
	// Attach makes addr the contract later calls go to; a malformed address is ErrBadAddress.
	Attach(addr string) error
	// Codec is how the VM writes account addresses.
	Codec() scores.Codec
	// JournalChain names the chain in journal keys ("evm-1337", "move-<chain id>").
	JournalChain() string
	// DeployChain is the deployer's side of a deploy, which the Scorer runs (RunDeploy): its
	// address, and the chain that signs, sends and probes the deploy tx.
	DeployChain(ctx context.Context) (Deploying, error)
	// PrepareUpdate measures an update of stage with set on the live contract, which also
	// proves the operator may write it, before anything is sent.
	PrepareUpdate(ctx context.Context, stage uint64, set *scores.Set) (Update, error)
	// FinalizeStage finalizes stage, opening stage+1, and returns the tx hash.
	FinalizeStage(ctx context.Context, stage uint64) (string, error)
	StageInfo(ctx context.Context, stage uint64) (vip.StageInfo, error)
	// InitStage is the contract's first stage.
	InitStage(ctx context.Context) (uint64, error)
	// ScorePages reads a stage page by page, in the contract's order.
	ScorePages(ctx context.Context, stage uint64, each func(page []scores.Row) error) error
	// CheckInterface checks, read only, that the contract speaks the official interface
	// (the EVM selectors, the Move module's ABI, the Wasm query shapes) and says what it
	// checked.
	CheckInterface(ctx context.Context) (string, error)
	// SimulateWrite simulates, from the operator, an update of stage with no entries: nothing
	// is sent, and were it sent nothing would change. It returns the contract's refusal
	// when the operator may not write stage (not on its allow list), ErrNoSigner without an
	// operator.
	SimulateWrite(ctx context.Context, stage uint64) error
	// FinalizeTx is the hash of the tx that finalized stage, found in the chain's events, or
	// "" when none is found.
	FinalizeTx(ctx context.Context, stage uint64) (string, error)
	// Close releases the connection to the chain.
	Close()
}

// Scorer is a scoring contract on one chain, the same type on every VM: the VM's Contract
// and the flow every VM shares (validate -> plan -> journal -> push, read back, the walk to
// the open stage). Each VM's Dial returns one (Open of its Contract).
type Scorer struct {
	c Contract
	k PushConfig
}

// VMContract is the VM's own half, for what only some VMs offer (the conformance probes,
// a Cosmos client); As finds such a capability.
func (s *Scorer) VMContract() Contract { return s.c }

// wrapsContract is a Scorer, or a wrapper of one that passes its Contract on.
type wrapsContract interface{ VMContract() Contract }

// As finds the capability T (an interface) in v: v itself, or the VM's Contract of a
// Scorer, or of anything that wraps one and says so with VMContract.
func As[T any](v any) (T, bool) {
	if t, ok := v.(T); ok {
		return t, true
	}
	if w, ok := v.(wrapsContract); ok {
		t, ok := w.VMContract().(T)
		return t, ok
	}
	var zero T
	return zero, false
}

// VM is the contract's VM.
func (s *Scorer) VM() vip.VM { return s.c.VM() }

// ChainID is the chain id the node reported (decimal on EVM).
func (s *Scorer) ChainID() string { return s.c.ChainID() }

// Bech32Prefix is the chain's account prefix, or "" where accounts are 0x addresses (EVM).
func (s *Scorer) Bech32Prefix() string { return s.c.Bech32Prefix() }

// Contract is the contract's address ("" before Deploy or Attach).
func (s *Scorer) Contract() string { return s.c.Contract() }

// Attach makes addr the contract later calls go to; a malformed address is ErrBadAddress.
func (s *Scorer) Attach(addr string) error { return s.c.Attach(addr) }

// Codec is how the VM writes account addresses: CheckAddress is its Decode then Encode.
func (s *Scorer) Codec() scores.Codec { return s.c.Codec() }

// CheckAddress validates an address for this VM and returns its canonical form.
func (s *Scorer) CheckAddress(addr string) (string, error) {
	return scores.Check(s.c.Codec())(addr)
}

// Deploy creates the contract with initStage as its first open stage, journaled and
// retry-safe (RunDeploy): a re-run finishes a deploy an earlier run sent, and a deployer
// with a healthy deployment gets it back (StatusAlready) unless AnotherDeployment. The
// Scorer is attached to the deployment it ends with.
func (s *Scorer) Deploy(ctx context.Context, initStage uint64, opts ...DeployOption) (vip.Deployment, error) {
	if initStage == 0 {
		return vip.Deployment{}, errors.New("deploy: initial stage must be at least 1")
	}
	d, err := s.c.DeployChain(ctx)
	if err != nil {
		return vip.Deployment{}, fmt.Errorf("deploy: %w", err)
	}
	res, err := RunDeploy(ctx, d.Chain, DeployRun{
		Journal: journal.DeployPath(s.k.JournalDir, s.c.JournalChain(), d.Deployer), Poll: s.k.Poll, Logger: s.k.Logger,
	}, initStage, DeployConfigOf(opts...))
	if err != nil {
		return vip.Deployment{}, err
	}
	if err := s.c.Attach(res.Contract); err != nil {
		return vip.Deployment{}, fmt.Errorf("deploy: the deployment at %s: %w", res.Contract, err)
	}
	dep := vip.Deployment{VM: s.c.VM(), ChainID: s.c.ChainID(), Contract: s.c.Contract(), InitStage: res.InitStage,
		TxHash: res.TxHash, Deployer: d.Deployer, GasUsed: res.GasUsed, Status: res.Status}
	if n, ok := d.Chain.(DeployNoter); ok {
		if err := n.NoteDeployment(ctx, &dep); err != nil {
			return vip.Deployment{}, fmt.Errorf("deploy: %s: %w", res.Status, err)
		}
	}
	s.k.Logger.Info("contract "+res.Status, "address", dep.Contract, "stage", dep.InitStage, "tx", dep.TxHash, "gas", dep.GasUsed)
	return dep, nil
}

// FinalizeStage finalizes stage and so opens stage+1; it returns the tx hash.
func (s *Scorer) FinalizeStage(ctx context.Context, stage uint64) (string, error) {
	if s.c.Contract() == "" {
		return "", vip.ErrNoContract
	}
	return s.c.FinalizeStage(ctx, stage)
}

// StageInfo is stage as the contract holds it.
func (s *Scorer) StageInfo(ctx context.Context, stage uint64) (vip.StageInfo, error) {
	if s.c.Contract() == "" {
		return vip.StageInfo{}, vip.ErrNoContract
	}
	return s.c.StageInfo(ctx, stage)
}

// ScorePages reads a stage page by page, in the contract's order, handing each page to
// each (which must not keep it) and stopping at its first error.
func (s *Scorer) ScorePages(ctx context.Context, stage uint64, each func(page []scores.Row) error) error {
	if s.c.Contract() == "" {
		return vip.ErrNoContract
	}
	return s.c.ScorePages(ctx, stage, each)
}

// Scores reads every (address, score) of a stage, paging through the contract, in the VM's
// text form.
func (s *Scorer) Scores(ctx context.Context, stage uint64) ([]scores.Entry, error) {
	var all []scores.Entry
	codec := s.c.Codec()
	err := s.ScorePages(ctx, stage, func(page []scores.Row) error {
		for _, r := range page {
			all = append(all, r.Entry(codec))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// Close releases the connection to the chain.
func (s *Scorer) Close() { s.c.Close() }

// CheckInterface proves, before anything is sent, that the contract is one this Scorer may
// write to: it speaks the official interface (ErrNotScoring when it does not), and an update
// of its open stage with no entries, simulated from the operator, is accepted
// (ErrCannotWrite, with the contract's refusal, when it is not). It says what it checked.
func (s *Scorer) CheckInterface(ctx context.Context) (string, error) {
	what, err := s.CheckReadable(ctx)
	if err != nil {
		return "", err
	}
	open, err := OpenStage(ctx, s.c)
	if err != nil {
		return "", &vip.CheckError{Contract: s.c.Contract(), Kind: vip.ErrNotScoring, Err: err}
	}
	if err := s.c.SimulateWrite(ctx, open); err != nil {
		if errors.Is(err, vip.ErrNoSigner) {
			return "", fmt.Errorf("prove the operator may write stage %d: %w", open, err)
		}
		return "", &vip.CheckError{Contract: s.c.Contract(), Kind: vip.ErrCannotWrite, Stage: open, Err: err}
	}
	return fmt.Sprintf("%s; the operator may write stage %d", what, open), nil
}

// FirstBlocker is a Contract that names its chain's first block (every VM's does): a chain
// started again under the same chain id has another, so what a state dir remembers of a
// chain is told from a new chain.
type FirstBlocker interface {
	FirstBlock(ctx context.Context) (string, error)
}

// FirstBlock is the hash of the chain's first block, "" where the Contract cannot name it.
func (s *Scorer) FirstBlock(ctx context.Context) (string, error) {
	if f, ok := s.c.(FirstBlocker); ok {
		return f.FirstBlock(ctx)
	}
	return "", nil
}

// CheckReadable is the read-only half of CheckInterface, for commands that only read: the
// contract speaks the official interface (a *CheckError of ErrNotScoring when it does not).
func (s *Scorer) CheckReadable(ctx context.Context) (string, error) {
	if s.c.Contract() == "" {
		return "", vip.ErrNoContract
	}
	what, err := s.c.CheckInterface(ctx)
	if err != nil {
		return "", &vip.CheckError{Contract: s.c.Contract(), Kind: vip.ErrNotScoring, Err: err}
	}
	return what, nil
}

// FinalizeTx is the hash of the tx that finalized stage, found in the chain's events, or ""
// when none is found.
func (s *Scorer) FinalizeTx(ctx context.Context, stage uint64) (string, error) {
	if s.c.Contract() == "" {
		return "", vip.ErrNoContract
	}
	return s.c.FinalizeTx(ctx, stage)
}

// set validates entries into the contract's canonical set.
func (s *Scorer) set(stage uint64, entries []scores.Entry) (*scores.Set, error) {
	set, err := scores.NewSet(entries, s.c.Codec())
	if err != nil {
		return nil, fmt.Errorf("update scores stage %d: %w", stage, err)
	}
	return set, nil
}

// prepare sizes the chunks of set from the contract's measure.
func (s *Scorer) prepare(ctx context.Context, stage uint64, set *scores.Set) (Update, int, error) {
	if s.c.Contract() == "" {
		return Update{}, 0, vip.ErrNoContract
	}
	if set == nil || set.Len() == 0 {
		return Update{}, 0, fmt.Errorf("update scores stage %d: empty score set: nothing to send", stage)
	}
	// The total first: the contract's own measure of an update (a simulation of made-up new
	// addresses) fails without naming it on a stage at its limit.
	if err := CheckTotal(ctx, s.c, stage, set); err != nil {
		return Update{}, 0, err
	}
	u, err := s.c.PrepareUpdate(ctx, stage, set)
	if err != nil {
		return Update{}, 0, err
	}
	size := u.Fits
	if u.Cap > 0 {
		size = min(size, u.Cap)
	}
	if n := s.k.ChunkSize; n > 0 {
		if n > u.Fits {
			return Update{}, 0, &ConfigError{Field: "Push.ChunkSize", Value: n,
				Err: fmt.Errorf("update scores stage %d: chunk size %d does not fit the %s: at most %d entries per tx", stage, n, u.Limit, u.Fits)}
		}
		size = n
	}
	if size < 1 {
		return Update{}, 0, fmt.Errorf("update scores stage %d: one entry does not fit the %s", stage, u.Limit)
	}
	return u, size, nil
}

func (s *Scorer) journalKey(stage uint64, input string) journal.Key {
	return journal.Key{ChainID: s.c.JournalChain(), Contract: s.c.Contract(), Stage: stage, Input: input}
}

// Plan validates entries and the operator's right to write stage, and returns the chunks
// an update would send; nothing is sent.
func (s *Scorer) Plan(ctx context.Context, stage uint64, entries []scores.Entry) (Plan, error) {
	set, err := s.set(stage, entries)
	if err != nil {
		return Plan{}, err
	}
	return s.PlanSet(ctx, stage, set)
}

// PlanSet is Plan of a validated set.
func (s *Scorer) PlanSet(ctx context.Context, stage uint64, set *scores.Set) (Plan, error) {
	u, size, err := s.prepare(ctx, stage, set)
	if err != nil {
		return Plan{}, err
	}
	if old, err := s.olderJournal(stage, set); err != nil || old != nil {
		if err != nil {
			return Plan{}, err
		}
		return Plan{Stage: stage, Entries: set.Len(), Chunks: old.res.Chunks, ChunkSize: old.begin.ChunkSize,
			AlreadyDone: old.res.Chunks, Journal: old.res.Journal}, nil
	}
	a, err := s.nextAttempt(ctx, stage, set)
	if err != nil {
		return Plan{}, err
	}
	return MakePlan(stage, a.set.Len(), size, a.path, u.Gas), nil
}

// UpdateScores validates entries, then pushes them in journaled, pipelined chunks; a re-run
// with the same input resumes its journal.
func (s *Scorer) UpdateScores(ctx context.Context, stage uint64, entries []scores.Entry) (push.Result, error) {
	set, err := s.set(stage, entries)
	if err != nil {
		return push.Result{}, err
	}
	return s.UpdateSet(ctx, stage, set)
}

// UpdateSet pushes a validated set in journaled, pipelined chunks; a re-run with the same
// set resumes its journal. The chain is the truth and the journal only keeps a chunk from
// being sent twice: when every push of this set to stage is confirmed but the stage no
// longer holds it (a later push, or another writer, changed it since), what differs is
// pushed again as a new attempt with a journal of its own.
func (s *Scorer) UpdateSet(ctx context.Context, stage uint64, set *scores.Set) (push.Result, error) {
	u, size, err := s.prepare(ctx, stage, set)
	if err != nil {
		return push.Result{}, err
	}
	if old, err := s.olderJournal(stage, set); err != nil || old != nil {
		if err != nil {
			return push.Result{}, err
		}
		return old.res, nil
	}
	a, err := s.nextAttempt(ctx, stage, set)
	if err != nil {
		return push.Result{}, err
	}
	k := s.k
	if a.fresh {
		k.Logger.Warn("the stage no longer holds a score set pushed to it before; pushing what differs as a new push",
			"stage", stage, "entries", set.Len(), "differ", a.set.Len(), "journal", a.path)
		if err := journal.WriteFileDurably(attemptSetPath(a.path), 0o666, a.set.WriteCSV); err != nil {
			return push.Result{}, fmt.Errorf("update scores stage %d: save the set of %s: %w", stage, a.path, err)
		}
	}
	res, err := push.Run(ctx, u.Chain, a.path, stage, a.set, size,
		push.Settings{Window: k.Window, Poll: k.Poll, Logger: k.Logger, Progress: k.Progress})
	if err != nil || a.set.Len() == 0 {
		return res, err
	}
	if st, ok := s.c.(Settler); ok {
		// A state that never shows what the receipts promised is the read-back's to report
		// (a mismatch, exit 4): here it is named, and the push stands as confirmed.
		addr, score := a.set.At(a.set.Len() - 1)
		if err := st.Settle(ctx, stage, addr, score); err != nil && ctx.Err() == nil {
			k.Logger.Warn("the chain's state does not show the confirmed push yet", "stage", stage, "err", err)
		}
	}
	return res, nil
}

// Settler is a Contract on a node whose state can trail its receipts (Initia's minievm
// feeds receipts from an indexer before the block's state commits): Settle waits, bounded,
// until the state shows addr at score in stage, and says what it last read if it does not.
type Settler interface {
	Settle(ctx context.Context, stage uint64, addr []byte, score uint64) error
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
func (s *Scorer) nextAttempt(ctx context.Context, stage uint64, set *scores.Set) (attempt, error) {
	key := s.journalKey(stage, set.Fingerprint())
	var done attempt // the last finished attempt
	for n := 1; ; n++ {
		key.Attempt = n
		path := key.Path(s.k.JournalDir)
		exists, finished, err := journal.Finished(path)
		if err != nil {
			return attempt{}, fmt.Errorf("update scores stage %d: %w", stage, err)
		}
		if n == 1 && !finished {
			return attempt{path: path, set: set}, nil
		}
		if exists && n > 1 {
			again, err := scores.LoadSet(attemptSetPath(path), string(scores.CSV), s.c.Codec())
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
		again, _, err := Differences(ctx, s.c, stage, set, false)
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

// OpenStage is the stage that accepts updates now (OpenStage of the contract).
func (s *Scorer) OpenStage(ctx context.Context) (uint64, error) { return OpenStage(ctx, s.c) }

// OpenStage reads c's first stage and walks past its finalized stages to the one that
// accepts updates now.
func OpenStage(ctx context.Context, c Contract) (uint64, error) {
	if c.Contract() == "" {
		return 0, vip.ErrNoContract
	}
	st, err := c.InitStage(ctx)
	if err != nil {
		return 0, err
	}
	for {
		info, err := c.StageInfo(ctx, st)
		if err != nil {
			return 0, err
		}
		if !info.Exists {
			return 0, fmt.Errorf("stage %d does not exist on the contract %s", st, c.Contract())
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
