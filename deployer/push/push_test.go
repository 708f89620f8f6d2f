package push

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/scores"
)

// fakeChain is a single-sender chain: txs are applied in sequence order as soon as the
// next sequence is present; a tx applies by storing its chunk's entries.
type fakeChain struct {
	mu       sync.Mutex
	next     uint64            // committed sequence
	pool     map[uint64]string // sequence -> hash
	txs      map[string]fakeTx
	mined    map[string]bool
	state    map[string]uint64
	applied  int // txs applied, to count duplicates
	dropNext int // broadcasts silently lost (a crash right after journaling)
	failAddr string
	down     int // the next calls fail as an unreachable node's would
	// noGaps refuses a sequence other than the next one the pool can take, as a Cosmos
	// node's CheckTx does; hold keeps txs pooled (unmined) until the pool is lost.
	noGaps bool
	hold   bool
	// loseAt, when the pool holds that many txs, makes the next broadcast find the pool
	// empty and mining resumed: a node restarted with txs in flight.
	loseAt int
	// indexLag hides a mined tx from its first indexLag lookups, as the tx index of a node
	// that just restarted lags its blocks.
	indexLag int
	lookups  map[string]int
	// lostIndex: mined txs are never found by hash, as on a node stopped between committing
	// a block and indexing its txs.
	lostIndex bool
	// poolHidden: a lookup does not see pooled txs (neither found nor pending); with
	// landAfterLookup or landAfterCommitted, the held pool is mined right after the next
	// lookup that misses, or the next sequence read: a tx landing in between two calls.
	poolHidden, landAfterLookup, landAfterCommitted bool
	// broadcasts counts Broadcast calls; afterBroadcast, when set, runs after each.
	broadcasts     int
	afterBroadcast func(n int)
	// signs counts successful Sign calls; refuseSign, when n > 0, fails the nth call, as a
	// person refusing a tx on a Ledger does.
	signs, signCalls, refuseSign int
	// asked counts lookups per hash.
	asked map[string]int
	// checkTime is how long a broadcast takes before the node answers, as a node that runs
	// the call at CheckTx does; the chain can be asked other things meanwhile.
	checkTime time.Duration
}

var errUnreachable = errors.New("dial tcp 127.0.0.1:8545: connect: connection refused")

// unreachable consumes one failing call while the node is down; callers hold mu.
func (c *fakeChain) unreachable() bool {
	if c.down > 0 {
		c.down--
		return true
	}
	return false
}

type fakeTx struct {
	seq     uint64
	entries []scores.Entry
}

func newFakeChain() *fakeChain {
	return &fakeChain{pool: map[uint64]string{}, txs: map[string]fakeTx{}, mined: map[string]bool{}, state: map[string]uint64{}, lookups: map[string]int{}}
}

func (c *fakeChain) Sequence(context.Context) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unreachable() {
		return 0, errUnreachable
	}
	s := c.next
	for {
		if _, ok := c.pool[s]; !ok {
			return s, nil
		}
		s++
	}
}

func (c *fakeChain) Committed(context.Context) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unreachable() {
		return 0, errUnreachable
	}
	next := c.next
	if c.landAfterCommitted {
		c.land()
	}
	return next, nil
}

func (c *fakeChain) Sign(_ context.Context, stage uint64, ch scores.Chunk, seq uint64) (SignedTx, error) {
	c.mu.Lock()
	c.signCalls++
	refused := c.signCalls == c.refuseSign
	if !refused {
		c.signs++
	}
	c.mu.Unlock()
	if refused {
		return SignedTx{}, errors.New("ledger: the user refused the transaction (0x6985)")
	}
	chunk := ch.Entries()
	raw := fmt.Sprintf("%d|%d|%v", stage, seq, chunk)
	h := sha256.Sum256([]byte(raw))
	hash := "0x" + hex.EncodeToString(h[:])
	c.mu.Lock()
	c.txs[hash] = fakeTx{seq: seq, entries: append([]scores.Entry(nil), chunk...)}
	c.mu.Unlock()
	return SignedTx{Hash: hash, Raw: []byte(raw), Sequence: seq}, nil
}

func (c *fakeChain) Broadcast(_ context.Context, tx SignedTx) error {
	time.Sleep(c.checkTime)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.broadcasts++
	if c.afterBroadcast != nil {
		defer c.afterBroadcast(c.broadcasts)
	}
	if c.unreachable() {
		return errUnreachable
	}
	if c.dropNext > 0 {
		c.dropNext--
		return nil
	}
	if tx.Sequence < c.next {
		return Rejected(errors.New("nonce too low"))
	}
	if c.loseAt > 0 && len(c.pool) == c.loseAt {
		c.pool, c.loseAt, c.hold = map[uint64]string{}, 0, false
	}
	if c.noGaps {
		want := c.next
		for {
			if _, ok := c.pool[want]; !ok {
				break
			}
			want++
		}
		if h, ok := c.pool[tx.Sequence]; ok && h == tx.Hash {
			return nil // already in the pool
		}
		if tx.Sequence != want {
			return Rejected(fmt.Errorf("account sequence mismatch, expected %d, got %d", want, tx.Sequence))
		}
	}
	c.pool[tx.Sequence] = tx.Hash
	c.mine()
	return nil
}

// mine applies pooled txs in sequence order unless the pool is held; callers hold mu.
func (c *fakeChain) mine() {
	for !c.hold {
		h, ok := c.pool[c.next]
		if !ok {
			return
		}
		delete(c.pool, c.next)
		c.mined[h] = true
		c.applied++
		if !c.failing(h) {
			for _, e := range c.txs[h].entries {
				c.state[e.Addr] = e.Amount
			}
		}
		c.next++
	}
}

// land mines the held pool once; callers hold mu.
func (c *fakeChain) land() {
	c.hold, c.landAfterLookup, c.landAfterCommitted = false, false, false
	c.mine()
}

func (c *fakeChain) failing(h string) bool {
	for _, e := range c.txs[h].entries {
		if e.Addr == c.failAddr {
			return true
		}
	}
	return false
}

func (c *fakeChain) Lookup(_ context.Context, hash string) (Outcome, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.asked == nil {
		c.asked = map[string]int{}
	}
	c.asked[hash]++
	if c.unreachable() {
		return Outcome{}, errUnreachable
	}
	if c.mined[hash] && (c.lostIndex || c.lookups[hash] < c.indexLag) {
		c.lookups[hash]++
		return Outcome{}, nil
	}
	if c.mined[hash] {
		if c.failing(hash) {
			return Outcome{Found: true, Err: errors.New("execution reverted: StageFinalized(1)")}, nil
		}
		return Outcome{Found: true, Success: true, GasUsed: 10}, nil
	}
	for _, h := range c.pool {
		if h == hash && !c.poolHidden {
			return Outcome{Pending: true}, nil
		}
	}
	if c.landAfterLookup {
		c.land()
	}
	return Outcome{}, nil
}

// spend makes another tx take the next sequence, as a second wallet of the same key would.
func (c *fakeChain) spend() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	c.applied++
}

// entries is a set of n EVM addresses 0x..01, 0x..02, ... (canonical order is this order).
func entries(n int) *scores.Set {
	out := make([]scores.Entry, n)
	for i := range out {
		out[i] = scores.Entry{Addr: fmt.Sprintf("0x%040x", i+1), Amount: uint64(i + 1)}
	}
	set, err := scores.NewSet(out, scores.EVMCodec{})
	if err != nil {
		panic(err)
	}
	return set
}

func TestRunSendsEveryChunkOnce(t *testing.T) {
	c := newFakeChain()
	in := entries(95)
	res, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "j.jsonl"), 1, in, 10, Settings{Poll: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks != 10 || res.Confirmed != 10 || c.applied != 10 || len(c.state) != 95 {
		t.Fatalf("result %+v, applied %d, state %d", res, c.applied, len(c.state))
	}
	for i, h := range res.Hashes {
		if h == "" {
			t.Fatalf("chunk %d has no hash", i)
		}
	}
}

// Bad settings are refused before anything is journaled or sent, never clamped.
func TestRunRefusesBadSettings(t *testing.T) {
	for _, tc := range []struct {
		name      string
		chunkSize int
		settings  Settings
		want      string
	}{
		{"chunk size 0", 0, Settings{}, "chunk size 0 must be positive"},
		{"window -3", 10, Settings{Window: -3}, "window -3 must be at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeChain()
			path := filepath.Join(t.TempDir(), "j.jsonl")
			_, err := Run(context.Background(), c, path, 1, entries(5), tc.chunkSize, tc.settings)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if c.applied != 0 {
				t.Errorf("%d chunks applied", c.applied)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("a journal was written: %v", err)
			}
		})
	}
}

// Each tx is in the journal before the node sees it, and the txs that fit in the window are
// journaled together (one sync) before the first is broadcast.
func TestRunJournalsAWindowBeforeItsFirstBroadcast(t *testing.T) {
	c := newFakeChain()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	var problems []string
	signedAtFirst := 0
	c.afterBroadcast = func(n int) {
		// Broadcast holds the chain's lock while this runs: read what it was handed.
		data, err := os.ReadFile(path)
		if err != nil {
			problems = append(problems, err.Error())
			return
		}
		signed := strings.Count(string(data), `"op":"signed"`)
		if n == 1 {
			signedAtFirst = signed
		}
		if signed < n {
			problems = append(problems, fmt.Sprintf("broadcast %d: only %d signed txs journaled", n, signed))
		}
	}
	res, err := Run(context.Background(), c, path, 1, entries(95), 10, Settings{Poll: time.Millisecond, Window: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatal(strings.Join(problems, "; "))
	}
	if signedAtFirst != 4 {
		t.Fatalf("%d signed txs journaled at the first broadcast, want the window's 4", signedAtFirst)
	}
	if res.Confirmed != 10 || c.applied != 10 {
		t.Fatalf("result %+v, applied %d", res, c.applied)
	}
}

// While the node checks a tx, the txs it has already included are confirmed: by the time the
// last chunk of a window is broadcast, the first ones are settled in the journal.
func TestRunConfirmsWhileItBroadcasts(t *testing.T) {
	c := newFakeChain()
	c.checkTime = 20 * time.Millisecond
	path := filepath.Join(t.TempDir(), "j.jsonl")
	confirmedAtLast := -1
	c.afterBroadcast = func(n int) {
		if n == 4 {
			data, _ := os.ReadFile(path)
			confirmedAtLast = strings.Count(string(data), `"op":"confirmed"`)
		}
	}
	res, err := Run(context.Background(), c, path, 1, entries(40), 10, Settings{Poll: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if confirmedAtLast < 1 {
		t.Fatalf("%d chunks confirmed when the last of 4 was broadcast, want the ones mined before it", confirmedAtLast)
	}
	if res.Confirmed != 4 || c.applied != 4 || len(c.state) != 40 {
		t.Fatalf("result %+v, applied %d, state %d", res, c.applied, len(c.state))
	}
}

// While the first tx in flight is on its way, the later ones are not asked (they cannot
// land before it); once it lands, they are.
func TestRunAsksTheFirstTxInFlightAlone(t *testing.T) {
	c := newFakeChain()
	c.hold = true
	go func() {
		time.Sleep(50 * time.Millisecond)
		c.mu.Lock()
		c.land()
		c.mu.Unlock()
	}()
	res, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "j.jsonl"), 1, entries(30), 10, Settings{Poll: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Confirmed != 3 || c.applied != 3 {
		t.Fatalf("result %+v, applied %d", res, c.applied)
	}
	first, later := c.asked[res.Hashes[0]], c.asked[res.Hashes[1]]+c.asked[res.Hashes[2]]
	if first < 10 || later > 4 {
		t.Fatalf("the first tx asked %d times, the later two %d: want the first asked while held, the others once it landed", first, later)
	}
}

// A chunk its signer refuses ends the push, but the chunks of its window signed before it
// still go out: the re-run signs each of the others once, and none twice.
func TestRunSendsWhatWasSignedBeforeARefusal(t *testing.T) {
	c := newFakeChain()
	c.refuseSign = 3
	path := filepath.Join(t.TempDir(), "j.jsonl")
	_, err := Run(context.Background(), c, path, 1, entries(50), 10, Settings{Poll: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "sign stage 1 chunk 2") {
		t.Fatalf("err %v, want the refused chunk named", err)
	}
	res, err := Run(context.Background(), c, path, 1, entries(50), 10, Settings{Poll: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if c.signs != 5 || c.applied != 5 || len(c.state) != 50 || res.Resumed != 2 {
		t.Fatalf("%d signatures, %d txs applied, %d addresses, result %+v: want each of 5 chunks signed and applied once", c.signs, c.applied, len(c.state), res)
	}
}

func TestRerunResumesWithoutResending(t *testing.T) {
	tests := []struct {
		name        string
		lost        int  // broadcasts lost in the first run (crash after journaling)
		spend       bool // another tx takes a sequence between the runs
		rebroadcast int
		dropped     int
	}{
		{name: "complete first run", lost: 0},
		{name: "broadcasts lost after journaling", lost: 2, rebroadcast: 2},
		{name: "sequence taken by another tx", lost: 1, spend: true, dropped: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeChain()
			in := entries(50)
			path := filepath.Join(t.TempDir(), "j.jsonl")
			c.dropNext = tc.lost
			// A lost broadcast never lands, so such a first run ends only at its deadline,
			// as a killed process would, with every chunk journaled.
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			first, err := Run(ctx, c, path, 1, in, 10, Settings{Poll: time.Millisecond, Window: 5})
			cancel()
			if tc.lost == 0 && err != nil {
				t.Fatal(err)
			}
			if tc.spend {
				c.spend()
			}
			appliedBefore := c.applied
			second, err := Run(context.Background(), c, path, 1, in, 99 /* ignored: the journal's size wins */, Settings{Poll: time.Millisecond})
			if err != nil {
				t.Fatalf("re-run: %v", err)
			}
			if len(c.state) != 50 {
				t.Fatalf("state has %d entries, want 50", len(c.state))
			}
			if second.Rebroadcast < tc.rebroadcast || second.Dropped != tc.dropped {
				t.Fatalf("re-run %+v, want rebroadcast>=%d dropped=%d", second, tc.rebroadcast, tc.dropped)
			}
			if got := first.Confirmed + second.Confirmed + second.Resumed; got < 5 {
				t.Fatalf("confirmed %d+%d resumed %d of 5 chunks", first.Confirmed, second.Confirmed, second.Resumed)
			}
			sent := c.applied - appliedBefore
			if tc.lost == 0 && sent != 0 {
				t.Fatalf("re-run of a complete push sent %d txs", sent)
			}
			// Every chunk landed once: 5 chunk txs, plus the foreign one.
			want := 5
			if tc.spend {
				want++
			}
			if c.applied != want {
				t.Fatalf("chain applied %d txs, want %d", c.applied, want)
			}
		})
	}
}

// A re-run's look at a journaled tx and its read of the sender's sequence are two calls: a
// tx that lands between them (or between the look and its re-broadcast) is on chain, and is
// neither dropped and its chunk sent again, nor a failure.
func TestRerunRacingATxThatLands(t *testing.T) {
	for _, tc := range []struct {
		name                           string
		afterLookup, afterSequenceRead bool
	}{
		{name: "lands between the look and the sequence read", afterLookup: true},
		{name: "lands between the sequence read and the re-broadcast", afterSequenceRead: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeChain()
			c.hold = true // the first run's txs stay pooled until it stops
			path := filepath.Join(t.TempDir(), "j.jsonl")
			in := entries(20)
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			_, err := Run(ctx, c, path, 1, in, 10, Settings{Poll: time.Millisecond})
			cancel()
			if err == nil || c.applied != 0 || len(c.pool) != 2 {
				t.Fatalf("first run: %v, %d applied, %d pooled", err, c.applied, len(c.pool))
			}
			c.mu.Lock()
			c.poolHidden, c.landAfterLookup, c.landAfterCommitted = true, tc.afterLookup, tc.afterSequenceRead
			c.mu.Unlock()
			res, err := Run(context.Background(), c, path, 1, in, 10, Settings{Poll: time.Millisecond})
			if err != nil {
				t.Fatalf("re-run: %v", err)
			}
			if c.applied != 2 || res.Dropped != 0 || res.Resumed != 2 || len(c.state) != 20 {
				t.Fatalf("re-run %+v: %d txs applied (each chunk once is 2)", res, c.applied)
			}
		})
	}
}

func TestFailedChunkStopsWithItsError(t *testing.T) {
	c := newFakeChain()
	in := entries(30)
	c.failAddr = in.Entries(15, 16)[0].Addr
	_, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "j.jsonl"), 1, in, 10, Settings{Poll: time.Millisecond})
	var ce *ChunkError
	if !errors.As(err, &ce) || ce.Chunk != 1 || !strings.Contains(err.Error(), "StageFinalized") {
		t.Fatalf("err = %v, want chunk 1 StageFinalized", err)
	}
}

// The plan is marked as cut in canonical order and keyed by the set's fingerprint: the same
// pairs read in another order are the same push, and resume it without sending.
func TestSamePairsInAnotherOrderResume(t *testing.T) {
	c := newFakeChain()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	in := entries(25)
	if _, err := Run(context.Background(), c, path, 1, in, 10, Settings{Poll: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	b, ok, err := journal.ReadBegin(path)
	if err != nil || !ok || b.Order != journal.OrderCanonical || b.Input != in.Fingerprint() || b.Chunks != 3 {
		t.Fatalf("plan %+v, %v, %v", b, ok, err)
	}
	reversed := in.Entries(0, in.Len())
	slices.Reverse(reversed)
	again, err := scores.NewSet(reversed, scores.EVMCodec{})
	if err != nil {
		t.Fatal(err)
	}
	applied := c.applied
	res, err := Run(context.Background(), c, path, 1, again, 10, Settings{Poll: time.Millisecond})
	if err != nil || res.Resumed != 3 || c.applied != applied {
		t.Fatalf("re-run in another order: %+v, %v, %d txs sent", res, err, c.applied-applied)
	}
}

func TestJournalOfOtherInputIsRefused(t *testing.T) {
	c := newFakeChain()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if _, err := Run(context.Background(), c, path, 1, entries(5), 10, Settings{Poll: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), c, path, 1, entries(6), 10, Settings{Poll: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "belongs to") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmptyAndBadChunkSize(t *testing.T) {
	c := newFakeChain()
	if _, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "a"), 1, nil, 10, Settings{}); err == nil {
		t.Fatal("empty set accepted")
	}
	if _, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "b"), 1, entries(1), 0, Settings{}); err == nil {
		t.Fatal("chunk size 0 accepted")
	}
}

func TestRunRidesOutAnUnreachableNode(t *testing.T) {
	c := newFakeChain()
	c.down = 25 // every kind of call fails for a while, as during a node restart
	in := entries(60)
	res, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "j.jsonl"), 1, in, 10,
		Settings{Poll: time.Millisecond, ResendAfter: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Confirmed != 6 || c.applied != 6 || len(c.state) != 60 {
		t.Fatalf("result %+v, applied %d, state %d: want every chunk once", res, c.applied, len(c.state))
	}
}

func TestRunResendsTxsTheNodeLost(t *testing.T) {
	c := newFakeChain()
	c.dropNext = 2 // the node accepted, then lost them (a restart empties its pool)
	in := entries(50)
	res, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "j.jsonl"), 1, in, 10,
		Settings{Poll: time.Millisecond, ResendAfter: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rebroadcast < 2 || res.Confirmed != 5 || c.applied != 5 || len(c.state) != 50 {
		t.Fatalf("result %+v, applied %d, state %d", res, c.applied, len(c.state))
	}
}

// A Cosmos node refuses sequence gaps: after a restart lost three pooled txs, the next chunk
// is refused; the push settles the lost txs (resending them in order) and signs the chunk
// again, and every chunk lands once.
func TestRunRecoversFromALostPoolOnAChainWithoutGaps(t *testing.T) {
	c := newFakeChain()
	c.noGaps, c.hold, c.loseAt = true, true, 3
	in := entries(60)
	res, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "j.jsonl"), 1, in, 10,
		Settings{Poll: time.Millisecond, ResendAfter: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Confirmed != 6 || c.applied != 6 || len(c.state) != 60 || res.Rebroadcast < 3 {
		t.Fatalf("result %+v, applied %d, state %d", res, c.applied, len(c.state))
	}
	// The window's txs after the refused one were journaled but never sent: each is dropped
	// and its chunk signed again.
	data, err := os.ReadFile(res.Journal)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), `"op":"dropped"`); got != 3 {
		t.Fatalf("%d dropped txs in the journal, want 3 (the refused chunk and the two after it)\n%s", got, data)
	}
}

// A restarted node's tx index can lag its blocks: a tx it mined is not found for a while,
// so the push resends it and the node refuses the spent sequence. The push waits for the
// index instead of dropping the chunk, and every chunk lands once (CI saw this on wasmd).
func TestRunWaitsForALaggingTxIndex(t *testing.T) {
	c := newFakeChain()
	c.indexLag = 40
	in := entries(30)
	res, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "j.jsonl"), 1, in, 10,
		Settings{Poll: time.Millisecond, ResendAfter: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Confirmed != 3 || c.applied != 3 || len(c.state) != 30 {
		t.Fatalf("result %+v, applied %d, state %d", res, c.applied, len(c.state))
	}
}

func TestRunGivesUpAfterTheOutageBudget(t *testing.T) {
	c := newFakeChain()
	c.down = 1 << 30
	_, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "j.jsonl"), 1, entries(5), 10,
		Settings{Poll: time.Millisecond, Outage: 30 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("err = %v, want an unreachable-node error", err)
	}
}

// scanningChain finds mined txs in its blocks when its index has lost them.
type scanningChain struct {
	*fakeChain
	scans int
}

func (c *scanningChain) FindInBlocks(_ context.Context, hash string, since time.Time) (Outcome, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scans++
	if since.IsZero() {
		return Outcome{}, errors.New("no time to scan from")
	}
	if c.mined[hash] {
		return Outcome{Found: true, Success: !c.failing(hash), GasUsed: 10, Height: 7}, nil
	}
	return Outcome{}, nil
}

// A node stopped between committing a block and indexing it never finds those txs by hash:
// the push finds them in the blocks instead of dropping them, and no chunk lands twice.
func TestRunFindsTxsItsIndexLost(t *testing.T) {
	in := entries(30)
	settings := Settings{Poll: time.Millisecond, ResendAfter: 2 * time.Millisecond, IndexLag: 5 * time.Millisecond}

	c := &scanningChain{fakeChain: newFakeChain()}
	c.lostIndex = true
	res, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "j.jsonl"), 1, in, 10, settings)
	if err != nil {
		t.Fatal(err)
	}
	if res.Confirmed != 3 || c.applied != 3 || len(c.state) != 30 || c.scans < 3 {
		t.Fatalf("result %+v, applied %d, state %d, scans %d", res, c.applied, len(c.state), c.scans)
	}

	// A run stopped with every chunk sent (and mined, unindexed): its re-run reconciles the
	// journal by searching the blocks and sends nothing again.
	stopped := &scanningChain{fakeChain: newFakeChain()}
	stopped.lostIndex = true
	ctx, cancel := context.WithCancel(context.Background())
	stopped.afterBroadcast = func(n int) {
		if n == 3 {
			cancel()
		}
	}
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if _, err := Run(ctx, stopped, path, 1, in, 10, settings); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	stopped.afterBroadcast = nil
	res, err = Run(context.Background(), stopped, path, 1, in, 10, settings)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 3 || res.Confirmed != 0 || stopped.applied != 3 || len(stopped.state) != 30 {
		t.Fatalf("re-run result %+v, applied %d, state %d", res, stopped.applied, len(stopped.state))
	}
}

// poolChecked is a chain whose lookups do not say whether the node holds a tx (as EVM's do
// not: it costs the whole tx) and that answers InPool instead.
type poolChecked struct {
	*fakeChain
	asked int
}

func (c *poolChecked) Lookup(ctx context.Context, hash string) (Outcome, error) {
	out, err := c.fakeChain.Lookup(ctx, hash)
	out.Pending = false
	return out, err
}

func (c *poolChecked) InPool(_ context.Context, hash string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked++
	for _, h := range c.pool {
		if h == hash {
			return true, nil
		}
	}
	return false, nil
}

// A tx the node holds unmined past the resend time is not sent again: the push asks the pool
// before it resends, and only then.
func TestRunAsksThePoolBeforeItResends(t *testing.T) {
	c := &poolChecked{fakeChain: newFakeChain()}
	c.hold = true
	go func() {
		time.Sleep(60 * time.Millisecond)
		c.mu.Lock()
		c.land()
		c.mu.Unlock()
	}()
	res, err := Run(context.Background(), c, filepath.Join(t.TempDir(), "j.jsonl"), 1, entries(30), 10,
		Settings{Poll: time.Millisecond, ResendAfter: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rebroadcast != 0 || c.asked == 0 {
		t.Fatalf("%d txs sent again, the pool asked %d times: want none sent again, the pool asked", res.Rebroadcast, c.asked)
	}
	if res.Confirmed != 3 || c.applied != 3 || len(c.state) != 30 {
		t.Fatalf("result %+v, applied %d, state %d", res, c.applied, len(c.state))
	}
}
