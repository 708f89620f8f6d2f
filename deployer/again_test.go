package deployer_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
)

// memChain is a contract and its chain in memory: a signed chunk lands in the stage's rows
// when it is broadcast, and every broadcast is counted.
type memChain struct {
	fakeContract
	mu     sync.Mutex
	rows   map[string]uint64 // address -> score of the open stage
	txs    map[string][]scores.Entry
	landed map[string]bool
	seq    uint64
	sent   int // broadcasts
	failAt int // the broadcast number that fails as if the process died (0: none)
}

func newMemChain() *memChain {
	return &memChain{fakeContract: fakeContract{addr: "0xc0", fits: 4}, rows: map[string]uint64{},
		txs: map[string][]scores.Entry{}, landed: map[string]bool{}}
}

func (m *memChain) PrepareUpdate(_ context.Context, _ uint64, _ *scores.Set) (deployer.Update, error) {
	return deployer.Update{Chain: m, Fits: m.fits, Limit: "fake", Gas: func(n int) uint64 { return uint64(n) }}, nil
}

func (m *memChain) ScorePages(_ context.Context, _ uint64, each func([]scores.Row) error) error {
	m.mu.Lock()
	var page []scores.Entry
	for a, s := range m.rows {
		page = append(page, scores.Entry{Addr: a, Amount: s})
	}
	m.mu.Unlock()
	slices.SortFunc(page, func(a, b scores.Entry) int { return strings.Compare(a.Addr, b.Addr) })
	rows, err := scores.RowsOf(page, m.Codec())
	if err != nil {
		return err
	}
	return each(rows)
}

func (m *memChain) Sequence(context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seq, nil
}
func (m *memChain) Committed(ctx context.Context) (uint64, error) { return m.Sequence(ctx) }
func (m *memChain) Sign(_ context.Context, _ uint64, c scores.Chunk, seq uint64) (push.SignedTx, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := fmt.Sprintf("tx-%d", seq)
	m.txs[h] = c.Entries()
	return push.SignedTx{Hash: h, Raw: []byte(h), Sequence: seq}, nil
}
func (m *memChain) Broadcast(_ context.Context, tx push.SignedTx) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.landed[tx.Hash] {
		return nil
	}
	m.sent++
	if m.sent == m.failAt {
		return push.Rejected(fmt.Errorf("the process died"))
	}
	for _, e := range m.txs[tx.Hash] {
		m.rows[strings.ToLower(e.Addr)] = e.Amount
	}
	m.landed[tx.Hash] = true
	m.seq++
	return nil
}
func (m *memChain) Lookup(_ context.Context, h string) (push.Outcome, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return push.Outcome{Found: m.landed[h], Success: m.landed[h]}, nil
}

func (m *memChain) score(addr string) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows[strings.ToLower(addr)]
}

// Push A, then B (one score changed), then A again: the chain, not the journal, decides
// what the third push sends.
func TestScorerRepushesWhatTheStageNoLongerHolds(t *testing.T) {
	ctx := context.Background()
	m := newMemChain()
	core := scorerOf(t, m, deployer.PushConfig{JournalDir: t.TempDir()})
	a := scores.Generate(10, 1)
	b := slices.Clone(a)
	b[3].Amount += 1000
	push := func(entries []scores.Entry) (int, error) {
		before := m.sent
		_, err := core.UpdateScores(ctx, 1, entries)
		return m.sent - before, err
	}
	if n, err := push(a); err != nil || n != 3 {
		t.Fatalf("A: %d txs, %v", n, err)
	}
	if n, err := push(b); err != nil || n != 3 {
		t.Fatalf("B: %d txs, %v", n, err)
	}
	set, err := scores.NewSet(a, scores.EVMCodec{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := core.PlanSet(ctx, 1, set)
	if err != nil || plan.Entries != 1 || plan.Chunks != 1 || plan.AlreadyDone != 0 {
		t.Fatalf("dry run of A again: %+v, %v (want the one entry that differs)", plan, err)
	}
	if _, err := os.Stat(plan.Journal); !os.IsNotExist(err) {
		t.Fatalf("the dry run wrote %s: %v", plan.Journal, err)
	}
	if n, err := push(a); err != nil || n != 1 {
		t.Fatalf("A again: %d txs (want the one chunk that differs), %v", n, err)
	}
	if got := m.score(a[3].Addr); got != a[3].Amount {
		t.Fatalf("after A->B->A the stage holds %d for %s, want %d", got, a[3].Addr, a[3].Amount)
	}
	if n, err := push(a); err != nil || n != 0 {
		t.Fatalf("A once more, the stage holding it: %d txs, %v", n, err)
	}
	// And round again: B, then A (each a third attempt of the same sets).
	if n, err := push(b); err != nil || n != 1 {
		t.Fatalf("B again: %d txs, %v", n, err)
	}
	if n, err := push(a); err != nil || n != 1 || m.score(a[3].Addr) != a[3].Amount {
		t.Fatalf("A a third time: %d txs, %v", n, err)
	}
}

// A re-push that stops half way is resumed with the set it planned, not a recomputed one.
func TestScorerResumesAnInterruptedRepush(t *testing.T) {
	ctx := context.Background()
	m := newMemChain()
	m.fits = 1
	core := scorerOf(t, m, deployer.PushConfig{JournalDir: t.TempDir(), Window: 1})
	a := scores.Generate(6, 1)
	b := slices.Clone(a)
	for i := range 3 {
		b[i].Amount += 7
	}
	for _, e := range [][]scores.Entry{a, b} {
		if _, err := core.UpdateScores(ctx, 1, e); err != nil {
			t.Fatal(err)
		}
	}
	m.failAt = m.sent + 2 // the second chunk of the re-push is refused
	if _, err := core.UpdateScores(ctx, 1, a); err == nil {
		t.Fatal("the refused chunk went unreported")
	}
	m.failAt = 0
	before := m.sent
	res, err := core.UpdateScores(ctx, 1, a)
	if err != nil {
		t.Fatal(err)
	}
	if n := m.sent - before; n != 2 || res.Chunks != 3 {
		t.Fatalf("resume sent %d txs of %d chunks, want the 2 left of the 3 planned", n, res.Chunks)
	}
	for _, e := range a {
		if m.score(e.Addr) != e.Amount {
			t.Fatalf("%s holds %d, want %d", e.Addr, m.score(e.Addr), e.Amount)
		}
	}
	if _, err := os.Stat(res.Journal); err != nil {
		t.Fatal(err)
	}
}
