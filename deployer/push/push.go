// Package push sends a validated score set to a scoring contract as a sequence of chunk
// transactions, the same way for every VM: each chunk's transaction is signed, journaled,
// then broadcast with pipelined sequences, and its on-chain result checked. A re-run of the
// same input reconciles the journal with the chain by tx hash and sends only what is missing.
package push

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/scores"
)

// SignedTx is a transaction ready to broadcast.
type SignedTx struct {
	Hash     string
	Raw      []byte
	Sequence uint64
}

// Outcome is what the chain knows of a transaction.
type Outcome struct {
	Found   bool   // included in a block
	Pending bool   // known to the node but not yet included
	Success bool   // included and succeeded
	GasUsed uint64 // gas used, when included
	Height  uint64 // block height, when included
	Err     error  // the chain's reason, when included and failed (decoded where possible)
}

// Chain is what a VM offers the push loop. Implementations live in deployer/vm/evm,
// deployer/vm/move and deployer/vm/wasm.
type Chain interface {
	// Sequence is the next sequence (nonce) the chain will accept from the sender, counting
	// transactions it already holds in its pool where it can tell.
	Sequence(ctx context.Context) (uint64, error)
	// Committed is the sender's sequence in the latest block: every lower sequence is spent.
	Committed(ctx context.Context) (uint64, error)
	// Sign builds and signs the chunk's transaction with the given sequence; it sends nothing.
	Sign(ctx context.Context, stage uint64, chunk scores.Chunk, seq uint64) (SignedTx, error)
	// Broadcast hands a signed transaction to the node. Re-broadcasting a transaction the node
	// already has is not an error. A node's refusal is wrapped with Rejected; any other error
	// (node unreachable, connection reset) leaves open whether the node got the tx.
	Broadcast(ctx context.Context, tx SignedTx) error
	// Lookup reports what the chain knows of a transaction hash.
	Lookup(ctx context.Context, hash string) (Outcome, error)
}

// PoolChecker is a Chain that can tell whether its node holds a tx not yet in a block,
// where a Lookup leaves that out because it costs (on EVM, downloading the whole tx): the
// push asks only before it would send a tx again or give it up.
type PoolChecker interface {
	InPool(ctx context.Context, hash string) (bool, error)
}

// BlockScanner is a Chain that can find an included tx without its tx index, in the blocks
// committed since a time: a node stopped between committing a block and indexing its txs
// never indexes them, and the chain holds a tx its lookup by hash does not find.
type BlockScanner interface {
	FindInBlocks(ctx context.Context, hash string, since time.Time) (Outcome, error)
}

// Result summarises a push.
type Result struct {
	Stage       uint64
	Chunks      int      // chunks in the plan
	Confirmed   int      // chunks confirmed in this run
	Resumed     int      // chunks already confirmed by an earlier run
	Rebroadcast int      // journaled txs sent again because the chain had not seen them
	Dropped     int      // journaled txs that could never land and were re-signed
	GasUsed     uint64   // gas of the chunks confirmed in this run
	Hashes      []string // tx hash of every chunk, in chunk order
	Journal     string   // journal file
}

// ChunkError is a chunk whose transaction failed on chain.
type ChunkError struct {
	Stage uint64
	Chunk int
	Hash  string
	Err   error
}

func (e *ChunkError) Error() string {
	return fmt.Sprintf("update scores stage %d chunk %d (tx %s): %v", e.Stage, e.Chunk, e.Hash, e.Err)
}

func (e *ChunkError) Unwrap() error { return e.Err }

// RejectedError is a node's refusal of a transaction: it never entered the pool.
type RejectedError struct{ Err error }

func (e *RejectedError) Error() string { return "rejected by the node: " + e.Err.Error() }
func (e *RejectedError) Unwrap() error { return e.Err }

// Rejected wraps a node's refusal of a transaction.
func Rejected(err error) error { return &RejectedError{Err: err} }

// IsRejected reports whether err is a node's refusal of a transaction.
func IsRejected(err error) bool {
	var r *RejectedError
	return errors.As(err, &r)
}

// The defaults of Run's window and poll. A window of 16 keeps a 5,000-address Move stage (9
// chunks of 556) in one block of a Cosmos rollup: with 8 the ninth chunk waited a block
// (deployer against the raw ceiling 0.73 -> 1.08, BENCHMARKS.md); geth's txpool keeps 16
// executable txs per account.
const (
	DefaultWindow = 16
	DefaultPoll   = 25 * time.Millisecond
)

// Settings tune Run. A zero field takes its default, written here once.
type Settings struct {
	// Window is how many chunk transactions may be in flight at once (DefaultWindow).
	Window int
	// Poll is how often outcomes are polled (DefaultPoll).
	Poll time.Duration
	// Outage is how long the push rides out an unreachable node (retrying with backoff)
	// before it gives up; the journal keeps everything for a re-run either way (2m).
	Outage time.Duration
	// ResendAfter is how long a sent tx may be unknown to the node (neither pending nor
	// included) before the same bytes are sent again (3s).
	ResendAfter time.Duration
	// IndexLag is how long a tx whose sequence the chain has spent is looked up by hash
	// before the blocks are searched for it (30s).
	IndexLag time.Duration
	// Logger gets the push's progress and warnings (none when nil).
	Logger *slog.Logger
	// Progress is called after every confirmed chunk with the entries confirmed so far.
	Progress func(done, total int)
}

// withDefaults is s with its zero fields set to their defaults, or why it cannot be used.
func (s Settings) withDefaults() (Settings, error) {
	if s.Window < 0 {
		// deployer.Config refuses it first; a caller of push alone is told, not clamped.
		return s, fmt.Errorf("update scores: window %d must be at least 1", s.Window)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if s.Window == 0 {
		s.Window = DefaultWindow
	}
	def(&s.Poll, DefaultPoll)
	def(&s.Outage, 2*time.Minute)
	def(&s.ResendAfter, 3*time.Second)
	def(&s.IndexLag, 30*time.Second)
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.Progress == nil {
		s.Progress = func(int, int) {}
	}
	return s, nil
}

// Run pushes a validated set to stage in chunks of chunkSize consecutive entries (canonical
// order), journaled at path. If the journal already has a plan, its chunk size wins, so a
// resumed push cuts the set exactly as the first run did. A chunk's tx is built from the
// set's address bytes while it is signed.
func Run(ctx context.Context, chain Chain, path string, stage uint64, set *scores.Set, chunkSize int, settings Settings) (Result, error) {
	cfg, err := settings.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if set == nil || set.Len() == 0 {
		return Result{}, errors.New("update scores: empty score set")
	}
	if chunkSize <= 0 {
		return Result{}, fmt.Errorf("update scores: chunk size %d must be positive", chunkSize)
	}
	j, err := journal.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer j.Close()
	input := set.Fingerprint()
	b, begun := j.Begin()
	if begun {
		if b.Input != input || b.Stage != stage {
			return Result{}, fmt.Errorf("journal %s belongs to stage %d input %s, not stage %d input %s", path, b.Stage, b.Input, stage, input)
		}
		chunkSize = b.ChunkSize // a resumed push keeps the chunks it planned
	}
	chunks := (set.Len() + chunkSize - 1) / chunkSize
	if !begun {
		if err := j.Append(journal.Record{Op: journal.OpBegin, Stage: stage, Input: input, Order: journal.OrderCanonical, Chunks: chunks, ChunkSize: chunkSize}); err != nil {
			return Result{}, err
		}
	}
	p := &pusher{cfg: cfg, chain: chain, j: j, stage: stage, set: set, size: chunkSize, chunks: chunks, total: set.Len(),
		res: Result{Stage: stage, Chunks: chunks, Hashes: make([]string, chunks), Journal: path}}
	if err := p.reconcile(ctx); err != nil {
		return p.res, err
	}
	err = p.send(ctx)
	return p.res, err
}

// chunk is chunk i's entries, for signing.
func (p *pusher) chunk(i int) scores.Chunk {
	lo := i * p.size
	return p.set.Chunk(lo, lo+p.chunkLen(i))
}

func (p *pusher) chunkLen(i int) int { return min(p.size, p.set.Len()-i*p.size) }

type pusher struct {
	cfg    Settings
	chain  Chain
	j      *journal.Journal
	stage  uint64
	set    *scores.Set
	size   int // entries per chunk
	chunks int
	res    Result
	done   int // entries confirmed
	total  int
	// live maps chunk index to its broadcast-but-unconfirmed tx
	live map[int]journal.Record
	// sentAt is when each live tx was last handed to the node
	sentAt map[int]time.Time
	// maxSeq is one past the highest sequence of a live attempt
	maxSeq uint64
	// failed is the first chunk found failed on chain: the push stops once the chunks in
	// flight have settled
	failed error
}

// reconcile settles every journaled attempt against the chain: confirmed and failed txs
// are recorded, txs whose sequence went to another tx are dropped, and txs the chain has
// not seen but can still accept are broadcast again, byte for byte.
func (p *pusher) reconcile(ctx context.Context) error {
	p.live = map[int]journal.Record{}
	p.sentAt = map[int]time.Time{}
	var committed uint64
	haveCommitted := false
	for i := range p.chunks {
		st := p.j.Chunk(i)
		if st.Confirmed {
			p.res.Resumed++
			p.res.Hashes[i] = st.Hash
			p.done += p.chunkLen(i)
			continue
		}
		for k := len(st.Attempts) - 1; k >= 0; k-- {
			a := st.Attempts[k]
			out, err := p.lookup(ctx, a.Hash)
			if err != nil {
				return fmt.Errorf("reconcile stage %d chunk %d tx %s: %w", p.stage, i, a.Hash, err)
			}
			if out.Found {
				if err := p.resumed(i, a.Hash, out); err != nil {
					return err
				}
				break
			}
			if !haveCommitted {
				if err := p.retry(ctx, "read sender sequence", func() (err error) {
					committed, err = p.chain.Committed(ctx)
					return err
				}); err != nil {
					return fmt.Errorf("reconcile stage %d: read sender sequence: %w", p.stage, err)
				}
				haveCommitted = true
			}
			spent := a.Sequence < committed && !out.Pending
			if spent {
				held, err := p.inPool(ctx, a.Hash)
				if err != nil {
					return fmt.Errorf("reconcile stage %d chunk %d tx %s: %w", p.stage, i, a.Hash, err)
				}
				spent = !held
			}
			if spent {
				// The sequence may have been read after the lookup (the first time): a tx that
				// landed in between is found by a second look, and must not be dropped (its
				// chunk would be signed and sent again).
				if out, err = p.lookup(ctx, a.Hash); err != nil {
					return fmt.Errorf("reconcile stage %d chunk %d tx %s: %w", p.stage, i, a.Hash, err)
				}
				if !out.Found {
					if out, err = p.findUnindexed(ctx, a); err != nil {
						return fmt.Errorf("reconcile stage %d chunk %d tx %s: %w", p.stage, i, a.Hash, err)
					}
				}
				if out.Found {
					if err := p.resumed(i, a.Hash, out); err != nil {
						return err
					}
					break
				}
				p.res.Dropped++
				if err := p.j.Append(journal.Record{Op: journal.OpDropped, Chunk: i, Hash: a.Hash, Sequence: a.Sequence}); err != nil {
					return err
				}
				continue
			}
			raw, err := hex.DecodeString(a.Raw)
			if err != nil {
				return fmt.Errorf("reconcile stage %d chunk %d: journaled tx is not hex: %w", p.stage, i, err)
			}
			err = p.retry(ctx, "re-broadcast", func() error {
				return p.chain.Broadcast(ctx, SignedTx{Hash: a.Hash, Raw: raw, Sequence: a.Sequence})
			})
			if err != nil {
				// Refused, it may have landed since the lookup (its sequence now spent).
				if IsRejected(err) {
					if out, lerr := p.awaitIndexed(ctx, a); lerr == nil && out.Found {
						if err := p.resumed(i, a.Hash, out); err != nil {
							return err
						}
						break
					}
				}
				return fmt.Errorf("re-broadcast stage %d chunk %d tx %s: %w", p.stage, i, a.Hash, err)
			}
			p.res.Rebroadcast++
			p.live[i] = a
			p.sentAt[i] = time.Now()
			p.maxSeq = max(p.maxSeq, a.Sequence+1)
			break
		}
	}
	p.cfg.Progress(p.done, p.total)
	return p.wait(ctx, 0)
}

// resumed settles chunk i, found on chain by a re-run with outcome out.
func (p *pusher) resumed(i int, hash string, out Outcome) error {
	if err := p.settle(i, hash, out); err != nil {
		return err
	}
	p.res.Resumed++
	return nil
}

// settle records a found tx's outcome.
func (p *pusher) settle(i int, hash string, out Outcome) error {
	if out.Success {
		if err := p.j.Append(journal.Record{Op: journal.OpConfirmed, Chunk: i, Hash: hash, GasUsed: out.GasUsed, Height: out.Height}); err != nil {
			return err
		}
		p.res.Hashes[i] = hash
		p.done += p.chunkLen(i)
		p.cfg.Progress(p.done, p.total)
		return nil
	}
	reason := "failed"
	if out.Err != nil {
		reason = out.Err.Error()
	}
	if err := p.j.Append(journal.Record{Op: journal.OpFailed, Chunk: i, Hash: hash, Error: reason, Height: out.Height}); err != nil {
		return err
	}
	return &ChunkError{Stage: p.stage, Chunk: i, Hash: hash, Err: out.Err}
}

// send signs, journals and broadcasts every chunk not yet confirmed or live, keeping at
// most window transactions in flight. The chunks that fit in the window go out together:
// signed at consecutive sequences, journaled with one sync (group commit), then broadcast
// in order.
func (p *pusher) send(ctx context.Context) error {
	var seq uint64
	if err := p.retry(ctx, "read sender sequence", func() (err error) {
		seq, err = p.chain.Sequence(ctx)
		return err
	}); err != nil {
		return fmt.Errorf("update scores stage %d: read sender sequence: %w", p.stage, err)
	}
	seq = max(seq, p.maxSeq)
	var todo []int
	for i := range p.chunks {
		if _, live := p.live[i]; !live && !p.j.Chunk(i).Confirmed {
			todo = append(todo, i)
		}
	}
	for len(todo) > 0 {
		if err := p.wait(ctx, p.cfg.Window-1); err != nil {
			return err
		}
		n := min(p.cfg.Window-len(p.live), len(todo))
		if err := p.sendBatch(ctx, todo[:n], &seq); err != nil {
			return err
		}
		todo = todo[n:]
	}
	return p.wait(ctx, 0)
}

// sendBatch signs, journals and broadcasts the chunks of batch at *seq on, advancing it. A
// node that refuses a tx while earlier ones are in flight may only be missing those (a
// restarted node lost its pool, and a Cosmos node refuses a sequence gap): the refused tx
// and the batch's txs after it, never sent, are dropped, the txs in flight are settled,
// and the rest of the batch is signed again at the sequence the chain expects, once per
// refused chunk.
func (p *pusher) sendBatch(ctx context.Context, batch []int, seq *uint64) error {
	resigned := -1 // the chunk signed again after a refusal
	for {
		now := time.Now().UTC()
		txs := make([]SignedTx, len(batch))
		recs := make([]journal.Record, len(batch))
		var signErr error
		for k, i := range batch {
			tx, err := p.chain.Sign(ctx, p.stage, p.chunk(i), *seq+uint64(k))
			if err != nil {
				// What is signed still goes out: a signer that asks a person (a Ledger) is
				// not asked for it again by the re-run.
				signErr = fmt.Errorf("sign stage %d chunk %d: %w", p.stage, i, err)
				batch, txs, recs = batch[:k], txs[:k], recs[:k]
				break
			}
			txs[k] = tx
			recs[k] = journal.Record{Op: journal.OpSigned, Time: now, Chunk: i, Sequence: *seq + uint64(k), Hash: tx.Hash, Raw: hex.EncodeToString(tx.Raw)}
		}
		if len(batch) == 0 {
			return signErr
		}
		if err := p.j.Append(recs...); err != nil {
			return err
		}
		refused := -1
		for k, i := range batch {
			err := p.broadcast(ctx, txs[k])
			if err != nil && IsRejected(err) {
				// The node refused it: its sequence is not spent, and the txs after it
				// were never sent.
				drops := make([]journal.Record, 0, len(batch)-k)
				for m := k; m < len(batch); m++ {
					drops = append(drops, journal.Record{Op: journal.OpDropped, Chunk: batch[m], Hash: txs[m].Hash, Sequence: recs[m].Sequence})
				}
				drops[0].Error = err.Error()
				if jerr := p.j.Append(drops...); jerr != nil {
					return fmt.Errorf("broadcast stage %d chunk %d: %w (and journaling the refusal failed: %w)", p.stage, i, err, jerr)
				}
				if i == resigned || len(p.live) == 0 {
					_ = p.wait(ctx, 0)
					return fmt.Errorf("broadcast stage %d chunk %d: %w", p.stage, i, err)
				}
				p.cfg.Logger.Info("node refused a chunk while earlier ones are in flight; settling them, then signing it again", "stage", p.stage, "chunk", i, "err", err)
				refused = k
				break
			}
			if err != nil {
				// Unknown whether the node got it: treat it as sent; wait() looks it up and
				// hands the same bytes over again if the node never saw it.
				p.cfg.Logger.Warn("broadcast failed; will look the tx up and resend it", "stage", p.stage, "chunk", i, "tx", txs[k].Hash, "err", err)
			}
			p.cfg.Logger.Debug("chunk broadcast", "stage", p.stage, "chunk", i, "entries", p.chunkLen(i), "tx", txs[k].Hash, "sequence", recs[k].Sequence)
			p.live[i] = recs[k]
			p.sentAt[i] = time.Now()
			*seq++
		}
		if refused < 0 || signErr != nil {
			// A chunk that could not be signed ends the push: the re-run resumes there.
			return signErr
		}
		if err := p.wait(ctx, 0); err != nil {
			return err
		}
		if err := p.retry(ctx, "read sender sequence", func() (err error) {
			*seq, err = p.chain.Sequence(ctx)
			return err
		}); err != nil {
			return fmt.Errorf("update scores stage %d: read sender sequence: %w", p.stage, err)
		}
		batch, resigned = batch[refused:], batch[refused]
	}
}

// broadcast hands tx to the node and, while the node checks it (a Move or Wasm node runs
// the call at CheckTx: tens of milliseconds a chunk), settles the live txs the chain has
// included since: confirmation overlaps sending, where waiting for each in turn after the
// last broadcast cost the push a lookup per chunk. The lookups stop at the first tx not in
// a block (a sender's txs land in sequence order) or when the broadcast returns; their
// errors are left to wait, which asks again.
func (p *pusher) broadcast(ctx context.Context, tx SignedTx) error {
	done := make(chan error, 1)
	go func() { done <- p.chain.Broadcast(ctx, tx) }()
	for _, i := range p.liveBySequence() {
		select {
		case err := <-done:
			return err
		default:
		}
		rec := p.live[i]
		out, err := p.chain.Lookup(ctx, rec.Hash)
		if err != nil || !out.Found {
			break
		}
		if err := p.finish(i, rec, out); err != nil && p.failed == nil {
			p.failed = err
		}
	}
	return <-done
}

// wait polls live txs until at most keep remain in flight. A failed chunk stops the push
// once the other live chunks have settled, so the journal holds every outcome.
func (p *pusher) wait(ctx context.Context, keep int) error {
	for len(p.live) > keep || (p.failed != nil && len(p.live) > 0) {
		progressed := false
		// In sequence order, so that txs a restarted node lost go back in the order it
		// accepts them.
		order := p.liveBySequence()
		outs, err := p.lookupAll(ctx, order[:1])
		if err != nil {
			return err
		}
		if outs[0].Found || time.Since(p.sentAt[order[0]]) > p.cfg.ResendAfter {
			rest, err := p.lookupAll(ctx, order[1:])
			if err != nil {
				return err
			}
			outs = append(outs, rest...)
		} else {
			// A sender's txs land in sequence order: while the first is on its way, the
			// others are not asked (a lookup costs the node its lock, blocks included).
			order = order[:1]
		}
		for k, i := range order {
			rec, out := p.live[i], outs[k]
			if !out.Found {
				if !out.Pending && time.Since(p.sentAt[i]) > p.cfg.ResendAfter {
					// Overdue: sent again unless the node still holds it (when it cannot
					// tell, sending again is harmless: a node takes a tx it has as a no-op).
					if held, err := p.inPool(ctx, rec.Hash); err != nil || !held {
						if err := p.resend(ctx, i, rec); err != nil {
							return err
						}
					}
				}
				// Once the first is overdue every live tx is asked, and each overdue one
				// sent again in sequence order: a restarted node lost them all.
				continue
			}
			progressed = true
			if err := p.finish(i, rec, out); err != nil && p.failed == nil {
				p.failed = err
			}
		}
		if progressed {
			continue
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for stage %d chunks: %w", p.stage, ctx.Err())
		case <-time.After(p.cfg.Poll):
		}
	}
	return p.failed
}

// lookupAll looks up the txs of the live chunks of order at once, at most window at a time:
// the node builds and sends its replies in parallel (geth each receipt in its own handler;
// a Cosmos node at least encodes and sends each reply in parallel), where asking one at a
// time cost a round trip per chunk after the last block.
func (p *pusher) lookupAll(ctx context.Context, order []int) ([]Outcome, error) {
	outs := make([]Outcome, len(order))
	errs := make([]error, len(order))
	slots := make(chan struct{}, p.cfg.Window)
	var wg sync.WaitGroup
	for k, i := range order {
		hash := p.live[i].Hash
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			outs[k], errs[k] = p.lookup(ctx, hash)
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			i := order[k]
			return nil, fmt.Errorf("look up stage %d chunk %d tx %s: %w", p.stage, i, p.live[i].Hash, err)
		}
	}
	return outs, nil
}

// inPool asks a PoolChecker chain whether its node holds tx hash unmined; other chains say
// so in their lookups.
func (p *pusher) inPool(ctx context.Context, hash string) (bool, error) {
	pc, ok := p.chain.(PoolChecker)
	if !ok {
		return false, nil
	}
	return pc.InPool(ctx, hash)
}

// finish settles live chunk i, whose tx rec the chain has included with outcome out.
func (p *pusher) finish(i int, rec journal.Record, out Outcome) error {
	delete(p.live, i)
	delete(p.sentAt, i)
	if err := p.settle(i, rec.Hash, out); err != nil {
		return err
	}
	p.res.Confirmed++
	p.res.GasUsed += out.GasUsed
	return nil
}

// liveBySequence lists the live chunks by their txs' sequences.
func (p *pusher) liveBySequence() []int {
	idx := make([]int, 0, len(p.live))
	for i := range p.live {
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(p.live[a].Sequence, p.live[b].Sequence) })
	return idx
}

// resend hands a live tx the node no longer knows (a restarted node loses its pool) over
// again, byte for byte. If the node now refuses it, its sequence went elsewhere: the
// attempt is dropped and a re-run re-signs the chunk.
func (p *pusher) resend(ctx context.Context, i int, rec journal.Record) error {
	raw, err := hex.DecodeString(rec.Raw)
	if err != nil {
		return fmt.Errorf("resend stage %d chunk %d: journaled tx is not hex: %w", p.stage, i, err)
	}
	p.cfg.Logger.Info("node does not know a sent tx; sending it again", "stage", p.stage, "chunk", i, "tx", rec.Hash)
	err = p.retry(ctx, "re-broadcast", func() error {
		return p.chain.Broadcast(ctx, SignedTx{Hash: rec.Hash, Raw: raw, Sequence: rec.Sequence})
	})
	if err != nil {
		if IsRejected(err) {
			// It may have landed between the lookup and now, or long ago on a node whose tx
			// index has not caught up since its restart: while the chain has spent its
			// sequence, look for it before giving it up.
			out, lerr := p.awaitIndexed(ctx, rec)
			if lerr != nil {
				return lerr
			}
			if out.Found {
				return p.finish(i, rec, out)
			}
			// A lower sequence still in flight may be what the node is waiting for: try
			// again after it.
			for j, other := range p.live {
				if j != i && other.Sequence < rec.Sequence {
					p.cfg.Logger.Info("node refused a resent tx while a lower sequence is in flight; will try again", "stage", p.stage, "chunk", i, "err", err)
					p.sentAt[i] = time.Now()
					return nil
				}
			}
			if jerr := p.j.Append(journal.Record{Op: journal.OpDropped, Chunk: i, Hash: rec.Hash, Sequence: rec.Sequence, Error: err.Error()}); jerr != nil {
				return fmt.Errorf("resend stage %d chunk %d tx %s: %w (and journaling the refusal failed: %w)", p.stage, i, rec.Hash, err, jerr)
			}
			delete(p.live, i)
			delete(p.sentAt, i)
		}
		return fmt.Errorf("resend stage %d chunk %d tx %s: %w (re-run to resume)", p.stage, i, rec.Hash, err)
	}
	p.res.Rebroadcast++
	p.sentAt[i] = time.Now()
	return nil
}

// awaitIndexed looks a refused tx up until it is found, once; when the chain has already
// spent its sequence it keeps looking for up to indexLag, since the tx that spent it is most
// likely this one, and then looks for it in the blocks (its index may have lost it).
func (p *pusher) awaitIndexed(ctx context.Context, rec journal.Record) (Outcome, error) {
	deadline := time.Now()
	var committed uint64
	spent := false
	if err := p.retry(ctx, "read sender sequence", func() (err error) {
		committed, err = p.chain.Committed(ctx)
		return err
	}); err == nil && committed > rec.Sequence {
		spent = true
		deadline = deadline.Add(p.cfg.IndexLag)
		p.cfg.Logger.Info("the chain spent a resent tx's sequence; waiting for its tx index", "stage", p.stage, "tx", rec.Hash)
	}
	for {
		out, err := p.lookup(ctx, rec.Hash)
		if err != nil || out.Found {
			return out, err
		}
		if !time.Now().Before(deadline) {
			if spent {
				return p.findUnindexed(ctx, rec)
			}
			return Outcome{}, nil
		}
		select {
		case <-ctx.Done():
			return Outcome{}, ctx.Err()
		case <-time.After(4 * p.cfg.Poll):
		}
	}
}

// findUnindexed looks for a tx whose sequence the chain spent in the blocks since it was
// signed, when the chain can (BlockScanner); Found is false otherwise.
func (p *pusher) findUnindexed(ctx context.Context, rec journal.Record) (Outcome, error) {
	bs, ok := p.chain.(BlockScanner)
	if !ok {
		return Outcome{}, nil
	}
	p.cfg.Logger.Info("the chain spent a tx's sequence and its index does not know the tx; looking for it in the blocks", "stage", p.stage, "chunk", rec.Chunk, "tx", rec.Hash)
	var out Outcome
	err := p.retry(ctx, "look for a tx in the blocks", func() (err error) {
		out, err = bs.FindInBlocks(ctx, rec.Hash, rec.Time)
		return err
	})
	if err != nil {
		return Outcome{}, fmt.Errorf("look for tx %s in the blocks: %w", rec.Hash, err)
	}
	return out, nil
}

// lookup is Chain.Lookup riding out node outages.
func (p *pusher) lookup(ctx context.Context, hash string) (Outcome, error) {
	var out Outcome
	err := p.retry(ctx, "look up tx", func() (err error) {
		out, err = p.chain.Lookup(ctx, hash)
		return err
	})
	return out, err
}

// retry runs f until it succeeds, the node refuses (Rejected), ctx ends, or the node has
// been unreachable for longer than the outage budget; it backs off from poll to 40 polls
// (at most 2s).
func (p *pusher) retry(ctx context.Context, what string, f func() error) error {
	var start time.Time
	backoff := p.cfg.Poll
	for {
		err := f()
		if err == nil || IsRejected(err) || ctx.Err() != nil {
			return err
		}
		if start.IsZero() {
			start = time.Now()
			p.cfg.Logger.Warn("node unreachable; retrying", "op", what, "stage", p.stage, "err", err)
		}
		if time.Since(start) > p.cfg.Outage {
			return fmt.Errorf("%s: node unreachable for %s: %w", what, p.cfg.Outage, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %v)", what, ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 40*p.cfg.Poll, 2*time.Second)
	}
}
