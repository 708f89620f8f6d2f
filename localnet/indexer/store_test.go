package indexer

import (
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

// The store files a row under each of its accounts whatever list the account lives in (the
// one-row map, or a list from its second row, as a signer or with a 32-byte key), serves them
// in order, and a rollback takes exactly the dropped rows off again.
func TestStoreFilesAccountsAcrossApplyAndRollback(t *testing.T) {
	alice, bob, carol, dave, logger := addr(1), addr(2), addr(3), addr(5), addr(4)
	long := common.HexToHash("0x0100000000000000000000000000000000000000000000000000000000000001")
	topic := func(a common.Address) common.Hash { return common.BytesToHash(a.Bytes()) }
	sig := common.HexToHash("0xaa")
	blocks := [][]MemTx{
		// carol first appears in a log only (one row), then signs: her list keeps both.
		{{From: alice, To: &logger, Logs: []MemLog{{Address: logger, Topics: []common.Hash{sig, topic(carol)}}}}},
		{{From: carol, To: &bob}},
		// bob: a recipient twice; dave: one log topic; the 32-byte topic is no account (not a
		// left-padded address).
		{{From: alice, To: &bob, Logs: []MemLog{{Address: logger, Topics: []common.Hash{sig, long, topic(dave)}}}}},
	}
	chain := NewMemChain()
	var hdrs []Header
	var receipts [][]api.EVMTx
	for _, txs := range blocks {
		hdrs = append(hdrs, chain.AddBlock(txs...))
		_, rs, _ := chain.Block(hdrs[len(hdrs)-1].Number)
		receipts = append(receipts, rs)
	}
	s := newStore()
	if err := s.apply(hdrs, receipts); err != nil {
		t.Fatal(err)
	}
	rowHash := func(block int) string { return receipts[block][0].TxHash }
	cases := []struct {
		name        string
		tip         uint64 // rolled back to this height first (3: nothing)
		acct        common.Address
		all, signed []int // blocks of the rows, oldest first
	}{
		{"emitter and recipient", 3, logger, []int{0, 2}, nil},
		{"a log topic once", 3, dave, []int{2}, nil},
		{"a log topic, then signer", 3, carol, []int{0, 1}, []int{1}},
		{"signer of two", 3, alice, []int{0, 2}, []int{0, 2}},
		{"recipient twice", 3, bob, []int{1, 2}, nil},
		{"after dropping block 3", 2, bob, []int{1}, nil},
		{"the one-row account rolled back", 2, dave, nil, nil},
		{"signer dropped", 1, carol, []int{0}, nil},
		{"promoted, then dropped", 0, carol, nil, nil},
		{"unknown", 3, addr(9), nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.tip < 3 {
				s.rollback(c.tip, false)
			}
			s.mu.RLock()
			all, signed := s.accountLocked(c.acct.Bytes())
			s.mu.RUnlock()
			want := func(blocks []int) []string {
				var out []string
				for _, b := range blocks {
					out = append(out, rowHash(b))
				}
				return out
			}
			got := func(rows []*record) []string {
				var out []string
				for _, r := range rows {
					out = append(out, r.hash.Hex())
				}
				return out
			}
			if !slices.Equal(got(all), want(c.all)) || !slices.Equal(got(signed), want(c.signed)) {
				t.Fatalf("all %v signed %v, want %v and %v", got(all), got(signed), want(c.all), want(c.signed))
			}
		})
	}
}
