package indexer

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

// record is one indexed transaction. Records are immutable once stored, so a reader may keep
// pointers after it releases the lock.
type record struct {
	seq    int64
	height uint64
	hash   common.Hash
	body   []byte   // the EVMTx JSON, encoded once
	accts  []string // account keys (raw address bytes) the tx is indexed under
	signer string   // key of From
	msgs   []string // a Cosmos tx's message type URLs, without the leading slash
}

type accountTxs struct{ all, signed []*record }

// store is the embedded in-memory database: transactions in sequence order (which is also
// block order), with indexes by hash and by account; a block's transactions are a
// contiguous run of the sequence list, found by binary search. Sequences only grow: a
// rollback drops the newest rows but never hands their sequences out again.
type store struct {
	mu     sync.RWMutex
	base   uint64        // height of blocks[0]
	blocks []common.Hash // canonical hashes of the indexed blocks, base upward
	txs    []*record
	byHash map[common.Hash]*record
	byAcct map[string]*accountTxs
	// blockRows (the block API's rows, seq = height) and times are kept for Cosmos chains.
	blockRows []*record
	times     []time.Time
	lastSeq   int64
	progress  chan struct{} // closed and replaced whenever the indexed tip changes
}

func newStore() *store {
	return &store{byHash: map[common.Hash]*record{}, byAcct: map[string]*accountTxs{}, progress: make(chan struct{})}
}

// tip is the highest indexed block.
func (s *store) tip() (height uint64, hash common.Hash, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tipLocked()
}

func (s *store) tipLocked() (uint64, common.Hash, bool) {
	if len(s.blocks) == 0 {
		return 0, common.Hash{}, false
	}
	return s.base + uint64(len(s.blocks)) - 1, s.blocks[len(s.blocks)-1], true
}

// hashAt is the stored hash of block n.
func (s *store) hashAt(n uint64) (common.Hash, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.blocks) == 0 || n < s.base || n-s.base >= uint64(len(s.blocks)) {
		return common.Hash{}, false
	}
	return s.blocks[n-s.base], true
}

func (s *store) notifyLocked() {
	close(s.progress)
	s.progress = make(chan struct{})
}

// apply appends consecutive blocks that extend the tip.
func (s *store) apply(hdrs []Header, receipts [][]api.EVMTx) error {
	recs := make([][]*record, len(hdrs))
	for i, h := range hdrs {
		for _, r := range receipts[i] {
			rec, err := newRecord(h.Number, r)
			if err != nil {
				return fmt.Errorf("block %d: %w", h.Number, err)
			}
			recs[i] = append(recs[i], rec)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, h := range hdrs {
		if tip, _, ok := s.tipLocked(); ok && h.Number != tip+1 {
			return fmt.Errorf("block %d does not extend the tip %d", h.Number, tip)
		} else if !ok {
			s.base = h.Number
		}
		s.blocks = append(s.blocks, h.Hash)
		for _, rec := range recs[i] {
			s.appendLocked(rec)
		}
	}
	s.notifyLocked()
	return nil
}

// appendLocked gives a tx the next sequence and files it under its hash and accounts.
func (s *store) appendLocked(rec *record) {
	if _, dup := s.byHash[rec.hash]; dup {
		return // a node never repeats a hash on one chain; keep the first
	}
	s.lastSeq++
	rec.seq = s.lastSeq
	s.txs = append(s.txs, rec)
	s.byHash[rec.hash] = rec
	for _, a := range rec.accts {
		at := s.byAcct[a]
		if at == nil {
			at = &accountTxs{}
			s.byAcct[a] = at
		}
		at.all = append(at.all, rec)
		if a == rec.signer {
			at.signed = append(at.signed, rec)
		}
	}
}

// rollback drops every block above height n (all blocks when n is below the base) and
// their transactions, and reports how many transactions went.
func (s *store) rollback(n uint64, all bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := 0
	if !all && n >= s.base {
		keep = int(min(uint64(len(s.blocks)), n-s.base+1))
	}
	if keep == len(s.blocks) {
		return 0
	}
	s.blocks = s.blocks[:keep]
	cut := 0
	if keep != 0 {
		cut = sort.Search(len(s.txs), func(i int) bool { return s.txs[i].height > n })
	}
	for i := len(s.txs) - 1; i >= cut; i-- {
		rec := s.txs[i]
		delete(s.byHash, rec.hash)
		for _, a := range rec.accts {
			at := s.byAcct[a]
			at.all = popIf(at.all, rec)
			at.signed = popIf(at.signed, rec)
			if len(at.all) == 0 {
				delete(s.byAcct, a)
			}
		}
		s.txs[i] = nil
	}
	dropped := len(s.txs) - cut
	s.txs = s.txs[:cut]
	s.notifyLocked()
	return dropped
}

// popIf removes rec from the end of l: the newest rows go first, so a rolled-back row is
// always the last of every list it is in.
func popIf(l []*record, rec *record) []*record {
	if n := len(l); n > 0 && l[n-1] == rec {
		l[n-1] = nil
		return l[:n-1]
	}
	return l
}

// byHeight is the run of transactions of block h.
func (s *store) byHeightLocked(h uint64) []*record {
	lo := sort.Search(len(s.txs), func(i int) bool { return s.txs[i].height >= h })
	hi := lo + sort.Search(len(s.txs)-lo, func(i int) bool { return s.txs[lo+i].height > h })
	return s.txs[lo:hi]
}

func newRecord(height uint64, r api.EVMTx) (*record, error) {
	hash := common.HexToHash(r.TxHash)
	if !strings.HasPrefix(r.TxHash, "0x") || len(r.TxHash) != 66 {
		return nil, fmt.Errorf("receipt has no transaction hash: %q", r.TxHash)
	}
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	rec := &record{height: height, hash: hash, body: body}
	seen := map[string]bool{}
	add := func(s string) string {
		b, err := parseHexAccount(s)
		if err != nil {
			return "" // rollytics refuses the whole block here; one bad address is not worth it
		}
		k := string(b)
		if !seen[k] {
			seen[k] = true
			rec.accts = append(rec.accts, k)
		}
		return k
	}
	// The addresses rollytics files a tx under: sender, recipient, created contract, and
	// per log the emitter plus every topic after the first that holds a left-padded address.
	rec.signer = add(r.From)
	if r.To != "" {
		add(r.To)
	}
	if r.ContractAddress != nil && *r.ContractAddress != "" {
		add(*r.ContractAddress)
	}
	for _, l := range r.Logs {
		add(l.Address)
		for i, t := range l.Topics {
			if i > 0 && strings.HasPrefix(t, "0x000000000000000000000000") {
				add(t)
			}
		}
	}
	return rec, nil
}
