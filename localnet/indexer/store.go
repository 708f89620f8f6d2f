package indexer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/klauspost/compress/zstd"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

// record is one indexed transaction. Records are immutable once stored, so a reader may keep
// pointers after it releases the lock.
type record struct {
	seq    int64
	height uint64
	hash   common.Hash
	body   []byte   // the tx's JSON, encoded once; an EVM tx's compressed (zipped, see packBody)
	zipped bool     // body is packed; the row's accounts are read from it (accts is nil)
	accts  []string // a Cosmos tx's account keys (raw address bytes)
	signer string   // key of From
	msgs   []string // a Cosmos tx's message type URLs, without the leading slash
}

type accountTxs struct{ all, signed []*record }

// store is the embedded in-memory database: transactions in sequence order (which is also
// block order), with indexes by hash and by account; a block's transactions are a
// contiguous run of the sequence list, found by binary search. Sequences only grow: a
// rollback drops the newest rows but never hands their sequences out again.
//
// It is kept small because a scoring contract's chain files every scored address under its
// own account (the UpdateScore log's indexed address): a million-address stage is a million
// accounts of one transaction each. Those live in once, a map from the address to the
// position of its one row (no pointers, no list, nothing for the collector to scan); an
// account gets a list in byAcct only with its second row, as a signer, or with a 32-byte key.
// EVM bodies are compressed JSON (a 455-log chunk's receipt: 666 bytes a log as JSON, 36 as
// zstd), and an EVM row keeps no list of its accounts: a rollback reads them from its body.
type store struct {
	mu     sync.RWMutex
	base   uint64        // height of blocks[0]
	blocks []common.Hash // canonical hashes of the indexed blocks, base upward
	txs    []*record
	byHash map[common.Hash]*record
	byAcct map[string]*accountTxs
	once   map[common.Address]uint32 // accounts of exactly one row, not its signer: its position in txs
	// blockRows (the block API's rows, seq = height) and times are kept for Cosmos chains.
	blockRows []*record
	times     []time.Time
	lastSeq   int64
	progress  chan struct{} // closed and replaced whenever the indexed tip changes
}

func newStore() *store {
	return &store{byHash: map[common.Hash]*record{}, byAcct: map[string]*accountTxs{}, once: map[common.Address]uint32{},
		progress: make(chan struct{})}
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
	type row struct {
		rec   *record
		accts []string
	}
	rows := make([][]row, len(hdrs))
	for i, h := range hdrs {
		for _, r := range receipts[i] {
			rec, accts, err := newRecord(h.Number, r)
			if err != nil {
				return fmt.Errorf("block %d: %w", h.Number, err)
			}
			rows[i] = append(rows[i], row{rec, accts})
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
		for _, rw := range rows[i] {
			s.appendLocked(rw.rec, rw.accts)
		}
	}
	s.notifyLocked()
	return nil
}

// appendLocked gives a tx the next sequence and files it under its hash and accounts.
func (s *store) appendLocked(rec *record, accts []string) {
	if _, dup := s.byHash[rec.hash]; dup {
		return // a node never repeats a hash on one chain; keep the first
	}
	s.lastSeq++
	rec.seq = s.lastSeq
	s.txs = append(s.txs, rec)
	s.byHash[rec.hash] = rec
	for _, a := range accts {
		s.fileLocked(a, rec, len(s.txs)-1)
	}
}

// fileLocked files rec, at position pos of txs, under account a.
func (s *store) fileLocked(a string, rec *record, pos int) {
	at := s.byAcct[a]
	if at == nil {
		at = &accountTxs{}
		if len(a) == common.AddressLength {
			k := common.Address([]byte(a))
			first, seen := s.once[k]
			if !seen && a != rec.signer {
				s.once[k] = uint32(pos)
				return
			}
			if seen {
				delete(s.once, k)
				at.all = []*record{s.txs[first]}
			}
		}
		s.byAcct[a] = at
	}
	at.all = append(at.all, rec)
	if a == rec.signer {
		at.signed = append(at.signed, rec)
	}
}

// accountLocked is every row filed under account a, and those a signed.
func (s *store) accountLocked(a []byte) (all, signed []*record) {
	if at := s.byAcct[string(a)]; at != nil {
		return at.all, at.signed
	}
	if len(a) == common.AddressLength {
		if pos, ok := s.once[common.Address(a)]; ok {
			return s.txs[pos : pos+1 : pos+1], nil
		}
	}
	return nil, nil
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
		for _, a := range rec.accounts() {
			if at := s.byAcct[a]; at != nil {
				at.all = popIf(at.all, rec)
				at.signed = popIf(at.signed, rec)
				if len(at.all) == 0 {
					delete(s.byAcct, a)
				}
			} else if len(a) == common.AddressLength {
				if k := common.Address([]byte(a)); s.once[k] == uint32(i) {
					delete(s.once, k)
				}
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

func newRecord(height uint64, r api.EVMTx) (*record, []string, error) {
	hash := common.HexToHash(r.TxHash)
	if !strings.HasPrefix(r.TxHash, "0x") || len(r.TxHash) != 66 {
		return nil, nil, fmt.Errorf("receipt has no transaction hash: %q", r.TxHash)
	}
	body, err := json.Marshal(r)
	if err != nil {
		return nil, nil, err
	}
	signer, accts := accounts(r)
	return &record{height: height, hash: hash, body: packBody(body), zipped: true, signer: signer}, accts, nil
}

// accounts are the account keys (raw address bytes) rollytics files an EVM tx under, in
// order and once each: sender, recipient, created contract, and per log the emitter plus
// every topic after the first that holds a left-padded address. signer is the sender's.
func accounts(r api.EVMTx) (signer string, accts []string) {
	seen := map[string]bool{}
	add := func(s string) string {
		b, err := parseHexAccount(s)
		if err != nil {
			return "" // rollytics refuses the whole block here; one bad address is not worth it
		}
		k := string(b)
		if !seen[k] {
			seen[k] = true
			accts = append(accts, k)
		}
		return k
	}
	signer = add(r.From)
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
	return signer, accts
}

// accounts are the keys the row is filed under: a Cosmos row's accts, an EVM row's read
// back from its body (a rollback needs them; nothing else does, so EVM rows do not keep them).
func (rec *record) accounts() []string {
	if !rec.zipped {
		return rec.accts
	}
	var r api.EVMTx
	if err := json.Unmarshal(rec.json(nil), &r); err != nil {
		panic(fmt.Sprintf("indexer: stored body of %s does not decode: %v", rec.hash, err)) // written by newRecord
	}
	_, accts := accounts(r)
	return accts
}

// json appends the row's JSON to dst.
func (rec *record) json(dst []byte) []byte {
	if !rec.zipped {
		return append(dst, rec.body...)
	}
	// DecodeAll makes room for a frame by copying dst into a slice just big enough for
	// it, so a page's buffer whose estimate falls short would be copied once per row
	// after (quadratic in the page): grow it geometrically first.
	var h zstd.Header
	if err := h.Decode(rec.body); err == nil && h.HasFCS {
		dst = slices.Grow(dst, int(h.FrameContentSize))
	}
	out, err := zstdDec().DecodeAll(rec.body, dst)
	if err != nil {
		panic(fmt.Sprintf("indexer: stored body of %s does not decompress: %v", rec.hash, err)) // written by packBody
	}
	return out
}

// EVM bodies are compressed with zstd at its fastest level: 0.5 ms for a 455-log chunk's
// receipt, 0.16 ms back.
var (
	zstdEnc = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err) // options are constant
		}
		return e
	})
	zstdDec = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
		if err != nil {
			panic(err)
		}
		return d
	})
)

// packBody compresses body into a slice of its own length (EncodeAll's would keep the
// input's capacity).
func packBody(body []byte) []byte {
	return bytes.Clone(zstdEnc().EncodeAll(body, make([]byte, 0, len(body)/8)))
}
