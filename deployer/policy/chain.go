package policy

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/vipharness/vipharness/bindings/ethnode"
	"github.com/vipharness/vipharness/bindings/indexer"
)

// Header is what a score run needs of a block: its number, hash and time.
type Header struct {
	Number uint64
	Hash   common.Hash
	Time   uint64
}

// Headers reads block headers: the chain's newest and one by number.
type Headers interface {
	Head(ctx context.Context) (Header, error)
	Header(ctx context.Context, n uint64) (Header, error)
}

// Errors of FindWindow.
var (
	// ErrBehind is a chain (or indexer) whose newest block is not past the stage's end: the
	// stage's activity may not all be there yet.
	ErrBehind = errors.New("the source is behind the stage's end: wait and run again")
	// ErrNoBlocks is a stage in which the rollup made no block.
	ErrNoBlocks = errors.New("the rollup made no block inside the stage")
)

// Span is a Window with the boundary blocks' headers.
type Span struct {
	Window
	First, Last Header
}

// FindWindow maps the L1 stage's times [start, end) to the rollup's blocks: the first block
// whose timestamp is at or after start and the last one before end (block times never go
// back). The chain must hold a block at or past end, else ErrBehind.
func FindWindow(ctx context.Context, h Headers, start, end uint64) (Span, error) {
	sp := Span{Window: Window{Start: start, End: end}}
	if end <= start {
		return sp, fmt.Errorf("find the stage's blocks: end %d is not after start %d", end, start)
	}
	head, err := h.Head(ctx)
	if err != nil {
		return sp, fmt.Errorf("find the stage's blocks: newest block: %w", err)
	}
	if head.Time < end {
		return sp, fmt.Errorf("find the stage's blocks: newest block %d has time %d, the stage ends at %d: %w", head.Number, head.Time, end, ErrBehind)
	}
	// firstAt is the lowest block with time >= t (head.Number+1 if none).
	firstAt := func(t uint64) (uint64, error) {
		var ferr error
		n := sort.Search(int(head.Number)+1, func(i int) bool {
			if ferr != nil {
				return true
			}
			hd, err := h.Header(ctx, uint64(i))
			if err != nil {
				ferr = err
				return true
			}
			return hd.Time >= t
		})
		return uint64(n), ferr
	}
	first, err := firstAt(start)
	if err != nil {
		return sp, fmt.Errorf("find the stage's first block: %w", err)
	}
	next, err := firstAt(end)
	if err != nil {
		return sp, fmt.Errorf("find the stage's last block: %w", err)
	}
	if next == 0 || first > next-1 {
		return sp, fmt.Errorf("find the stage's blocks (times %d..%d): %w", start, end, ErrNoBlocks)
	}
	sp.FirstBlock, sp.LastBlock = first, next-1
	if sp.First, err = h.Header(ctx, sp.FirstBlock); err == nil {
		sp.Last, err = h.Header(ctx, sp.LastBlock)
	}
	if err != nil {
		return sp, fmt.Errorf("find the stage's blocks: %w", err)
	}
	return sp, nil
}

// Node reads a rollup's EVM JSON-RPC: headers, logs (eth_getLogs, paged by block span),
// block receipts and transactions.
type Node struct {
	rpc *rpc.Client
	c   *ethnode.Client
	// LogSpan is how many blocks one eth_getLogs covers (halved, down to 1, when the node
	// refuses a range as too large).
	LogSpan uint64
	// Batch is how many blocks one JSON-RPC batch covers (DefaultBatch when 0).
	Batch   int
	mu      sync.Mutex
	headers map[uint64]Header
}

// DialNode connects to the JSON-RPC at url.
func DialNode(ctx context.Context, url string) (*Node, error) {
	c, err := ethnode.Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("read the rollup's blocks: %w", err)
	}
	return NewNode(c), nil
}

// NewNode reads blocks through c; Close closes c.
func NewNode(c *ethnode.Client) *Node {
	return &Node{rpc: c.RPC(), c: c, LogSpan: 2000, headers: map[uint64]Header{}}
}

// Close closes the connection.
func (n *Node) Close() { n.c.Close() }

type rpcHeader struct {
	Number    hexutil.Uint64 `json:"number"`
	Hash      common.Hash    `json:"hash"`
	Timestamp hexutil.Uint64 `json:"timestamp"`
}

func (n *Node) header(ctx context.Context, tag string) (Header, error) {
	var h *rpcHeader
	if err := n.rpc.CallContext(ctx, &h, "eth_getBlockByNumber", tag, false); err != nil {
		return Header{}, fmt.Errorf("eth_getBlockByNumber %s: %w", tag, err)
	}
	if h == nil {
		return Header{}, fmt.Errorf("eth_getBlockByNumber %s: no such block", tag)
	}
	return Header{Number: uint64(h.Number), Hash: h.Hash, Time: uint64(h.Timestamp)}, nil
}

// Head is the newest block.
func (n *Node) Head(ctx context.Context) (Header, error) { return n.header(ctx, "latest") }

// Header is block num (cached: a block below the head never changes on an Initia rollup,
// which has instant finality).
func (n *Node) Header(ctx context.Context, num uint64) (Header, error) {
	n.mu.Lock()
	h, ok := n.headers[num]
	n.mu.Unlock()
	if ok {
		return h, nil
	}
	h, err := n.header(ctx, hexutil.EncodeUint64(num))
	if err != nil {
		return h, err
	}
	n.mu.Lock()
	n.keep(h)
	n.mu.Unlock()
	return h, nil
}

// maxHeaders bounds the header cache (some 100 bytes an entry): a stage of a million
// blocks is read a batch at a time, and a batch's headers are asked for together, so the
// cache is emptied when full rather than grown with the stage.
const maxHeaders = 1 << 16

// keep caches h; n.mu is held.
func (n *Node) keep(h Header) {
	if len(n.headers) >= maxHeaders {
		clear(n.headers)
	}
	n.headers[h.Number] = h
}

// BlockReceipts are block num's receipts (eth_getBlockReceipts), in the indexer's shape.
func (n *Node) BlockReceipts(ctx context.Context, num uint64) ([]indexer.EVMTx, error) {
	var out []indexer.EVMTx
	if err := n.rpc.CallContext(ctx, &out, "eth_getBlockReceipts", hexutil.EncodeUint64(num)); err != nil {
		return nil, fmt.Errorf("eth_getBlockReceipts %d: %w", num, err)
	}
	return out, nil
}

// Tx is what a score run needs of a transaction besides its receipt.
type Tx struct {
	Hash  common.Hash     `json:"hash"`
	From  common.Address  `json:"from"`
	To    *common.Address `json:"to"`
	Value *hexutil.Big    `json:"value"`
	Input hexutil.Bytes   `json:"input"`
	Index hexutil.Uint64  `json:"transactionIndex"`
}

type rpcLog struct {
	BlockNumber hexutil.Uint64 `json:"blockNumber"`
}

// logTarget is about how many logs one eth_getLogs reply should carry (some 700 bytes of
// JSON each): the span of the next request is scaled to it, so a dense stretch of chain
// never comes back as one reply of hundreds of megabytes.
const logTarget = 5_000

// logBlocks are the blocks in [lo, hi] holding a log of s, in order, and how many logs
// there were.
func (n *Node) logBlocks(ctx context.Context, s *Source, lo, hi uint64) ([]uint64, int, error) {
	var logs []rpcLog
	filter := map[string]any{
		"fromBlock": hexutil.EncodeUint64(lo), "toBlock": hexutil.EncodeUint64(hi),
		"address": s.Contract, "topics": [][]common.Hash{{s.Event.ID}},
	}
	if err := n.rpc.CallContext(ctx, &logs, "eth_getLogs", filter); err != nil {
		return nil, 0, fmt.Errorf("eth_getLogs %d..%d: %w", lo, hi, err)
	}
	var out []uint64
	for _, l := range logs {
		b := uint64(l.BlockNumber)
		if len(out) == 0 || out[len(out)-1] != b {
			out = append(out, b)
		}
	}
	return out, len(logs), nil
}

// readLogs yields the logs of s in [from, to] from the receipts of the blocks that hold
// one, a span of blocks at a time: eth_getLogs names the blocks (its span scaled so that a
// reply holds about logTarget logs, halved when the node refuses a range); where most
// blocks of a span hold a log, the next span's receipts are read without asking (the logs
// would cost as much as the receipts), until a span's blocks mostly hold none again. The
// next batch's receipts and headers are fetched while a batch is scored, so the node's
// round trips and the JSON decoding overlap the scoring; what is held at any time is one
// span's block numbers and two batches of receipts.
func (n *Node) readLogs(ctx context.Context, s *Source, from, to uint64, each func(*Record) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan logBatch, 1)
	go func() {
		defer close(batches)
		if err := n.fetchLogs(ctx, s, from, to, batches); err != nil {
			select {
			case batches <- logBatch{err: err}:
			case <-ctx.Done():
			}
		}
	}()
	for b := range batches {
		if b.err != nil {
			return b.err
		}
		for i, num := range b.blocks {
			h, err := n.Header(ctx, num)
			if err != nil {
				return err
			}
			for _, r := range b.receipts[i] {
				if err := logRecords(s, h, r, each); err != nil {
					return err
				}
			}
		}
	}
	return ctx.Err()
}

// logBatch is a batch of blocks with their receipts (their headers cached), or the error
// that ended the fetching.
type logBatch struct {
	blocks   []uint64
	receipts [][]indexer.EVMTx
	err      error
}

// fetchLogs sends the batches of blocks in [from, to] that may hold a log of s (see
// readLogs), in order.
func (n *Node) fetchLogs(ctx context.Context, s *Source, from, to uint64, out chan<- logBatch) error {
	maxSpan := max(n.LogSpan, 1)
	// The first span is small and each next one at most 8 times the last: the chain's
	// density is not known before the first reply.
	span, dense := min(maxSpan, 64), false
	contract, topic := strings.ToLower(s.Contract.Hex()), strings.ToLower(s.Event.ID.Hex())
	for lo := from; lo <= to; {
		var blocks []uint64
		hi := min(to, lo+span-1)
		readWhole := dense
		if readWhole {
			hi = min(to, lo+max(span, uint64(n.batch()))-1)
			for b := lo; b <= hi; b++ {
				blocks = append(blocks, b)
			}
		} else {
			found, logs, err := n.logBlocks(ctx, s, lo, hi)
			if err != nil {
				if span > 1 && tooLarge(err) {
					span /= 2
					maxSpan = span // the node's limit: never asked beyond again
					continue
				}
				return err
			}
			blocks = found
			width := hi - lo + 1
			span = min(maxSpan, 8*width, max(1, width*logTarget/uint64(max(logs, 1))))
			dense = width > 1 && uint64(len(found))*2 > width
		}
		holding := 0 // blocks holding a log of the source's contract and event
		for len(blocks) > 0 {
			part := blocks[:min(len(blocks), n.batch())]
			blocks = blocks[len(part):]
			receipts, err := n.receipts(ctx, part)
			if err == nil {
				err = n.headersOf(ctx, part)
			}
			if err != nil {
				return err
			}
			for _, rs := range receipts {
				if holdsLog(rs, contract, topic) {
					holding++
				}
			}
			select {
			case out <- logBatch{blocks: part, receipts: receipts}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if readWhole { // does the chain stay dense?
			dense = uint64(holding)*2 > hi-lo+1
		}
		if hi == to {
			return nil
		}
		lo = hi + 1
	}
	return nil
}

// holdsLog reports whether a block's receipts hold a log of contract with topic0 topic
// (both lower-case hex).
func holdsLog(receipts []indexer.EVMTx, contract, topic string) bool {
	for _, r := range receipts {
		for _, l := range r.Logs {
			if !l.Removed && len(l.Topics) > 0 && strings.EqualFold(l.Address, contract) && strings.EqualFold(l.Topics[0], topic) {
				return true
			}
		}
	}
	return false
}

// tooLarge reports whether a node refused a log range for its size (geth, Erigon,
// minievm and hosted providers word it differently).
func tooLarge(err error) bool {
	m := strings.ToLower(err.Error())
	for _, s := range []string{"too many", "limit", "range", "too large", "exceed", "more than"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// Read yields the source's records in [from, to] in chain order: logs from the receipts
// of the blocks eth_getLogs names; calls and native transfers from every block's
// transactions, successful ones only. Blocks and receipts are asked for Batch at a time in
// one JSON-RPC batch.
func (n *Node) Read(ctx context.Context, s *Source, from, to uint64, each func(*Record) error) error {
	if s.IsLog() {
		if err := n.readLogs(ctx, s, from, to, each); err != nil {
			return fmt.Errorf("node: source %s: %w", s.Name, err)
		}
		return nil
	}
	for lo := from; lo <= to; {
		hi := min(to, lo+uint64(n.batch())-1)
		blocks, err := n.fullBlocks(ctx, lo, hi)
		if err != nil {
			return fmt.Errorf("node: %w", err)
		}
		// The matching transactions, then the receipts of the blocks that hold one.
		var recs []*Record
		var with []uint64
		for _, blk := range blocks {
			for _, tx := range blk.Transactions {
				rec := txRecord(blk.header(), tx)
				if s.Matches(rec) {
					recs = append(recs, rec)
					if len(with) == 0 || with[len(with)-1] != rec.Block {
						with = append(with, rec.Block)
					}
				}
			}
		}
		receipts, err := n.receipts(ctx, with)
		if err != nil {
			return fmt.Errorf("node: %w", err)
		}
		// Receipts are matched by hash, not by position: a minievm numbers a block's
		// txs from 1 (its Cosmos tx index), geth from 0.
		byHash := make(map[common.Hash]*indexer.EVMTx)
		for _, rs := range receipts {
			for i := range rs {
				byHash[common.HexToHash(rs[i].TxHash)] = &rs[i]
			}
		}
		for _, rec := range recs {
			r, ok := byHash[rec.TxHash]
			if !ok {
				return fmt.Errorf("node: block %d: no receipt of tx %s (index %d)", rec.Block, rec.TxHash.Hex(), rec.TxIndex)
			}
			if !r.Succeeded() {
				continue
			}
			if err := each(rec); err != nil {
				return err
			}
		}
		if hi == to {
			break
		}
		lo = hi + 1
	}
	return nil
}

// DefaultBatch is how many blocks' replies one JSON-RPC batch asks for (minievm takes up
// to 1,000 requests a batch).
const DefaultBatch = 100

func (n *Node) batch() int {
	if n.Batch <= 0 {
		return DefaultBatch
	}
	return n.Batch
}

type fullBlock struct {
	rpcHeader
	Transactions []Tx `json:"transactions"`
}

func (b *fullBlock) header() Header {
	return Header{Number: uint64(b.Number), Hash: b.Hash, Time: uint64(b.Timestamp)}
}

// call sends elems as one batch and returns the first error of any of them.
func (n *Node) call(ctx context.Context, elems []rpc.BatchElem) error {
	if len(elems) == 0 {
		return nil
	}
	if err := n.rpc.BatchCallContext(ctx, elems); err != nil {
		return fmt.Errorf("%s batch of %d: %w", elems[0].Method, len(elems), err)
	}
	for _, e := range elems {
		if e.Error != nil {
			return fmt.Errorf("%s %v: %w", e.Method, e.Args[0], e.Error)
		}
	}
	return nil
}

// fullBlocks are blocks lo..hi with their transactions (their headers are cached).
func (n *Node) fullBlocks(ctx context.Context, lo, hi uint64) ([]*fullBlock, error) {
	out := make([]*fullBlock, hi-lo+1)
	elems := make([]rpc.BatchElem, len(out))
	for i := range out {
		elems[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.EncodeUint64(lo + uint64(i)), true}, Result: &out[i]}
	}
	if err := n.call(ctx, elems); err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	kept := out[:0]
	for i, b := range out {
		num := lo + uint64(i)
		switch {
		case b == nil:
			return nil, fmt.Errorf("eth_getBlockByNumber %d: no such block", num)
		case uint64(b.Number) != num && num == 0:
			continue // a minievm has no block 0 and answers block 1: read it once, as 1
		case uint64(b.Number) != num:
			return nil, fmt.Errorf("eth_getBlockByNumber %d: the node answered block %d", num, b.Number)
		}
		n.keep(b.header())
		kept = append(kept, b)
	}
	return kept, nil
}

// headersOf puts the headers of the blocks named in the cache, those missing in one batch.
func (n *Node) headersOf(ctx context.Context, blocks []uint64) error {
	var missing []uint64
	n.mu.Lock()
	for _, b := range blocks {
		if _, ok := n.headers[b]; !ok {
			missing = append(missing, b)
		}
	}
	n.mu.Unlock()
	out := make([]*rpcHeader, len(missing))
	elems := make([]rpc.BatchElem, len(missing))
	for i, b := range missing {
		elems[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.EncodeUint64(b), false}, Result: &out[i]}
	}
	if err := n.call(ctx, elems); err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, h := range out {
		if h == nil || uint64(h.Number) != missing[i] {
			return fmt.Errorf("eth_getBlockByNumber %d: no such block", missing[i])
		}
		n.keep(Header{Number: uint64(h.Number), Hash: h.Hash, Time: uint64(h.Timestamp)})
	}
	return nil
}

// receipts are the receipts of each block named.
func (n *Node) receipts(ctx context.Context, blocks []uint64) ([][]indexer.EVMTx, error) {
	lean := make([][]leanReceipt, len(blocks))
	elems := make([]rpc.BatchElem, len(blocks))
	for i, b := range blocks {
		elems[i] = rpc.BatchElem{Method: "eth_getBlockReceipts", Args: []any{hexutil.EncodeUint64(b)}, Result: &lean[i]}
	}
	if err := n.call(ctx, elems); err != nil {
		return nil, err
	}
	out := make([][]indexer.EVMTx, len(blocks))
	for i, rs := range lean {
		out[i] = make([]indexer.EVMTx, len(rs))
		for j, r := range rs {
			logs := make([]indexer.EVMLog, len(r.Logs))
			for k, l := range r.Logs {
				logs[k] = indexer.EVMLog{Address: l.Address, Topics: l.Topics, Data: l.Data, LogIndex: l.LogIndex, Removed: l.Removed}
			}
			out[i][j] = indexer.EVMTx{From: r.From, To: r.To, TxHash: r.TxHash, TxIndex: r.TxIndex, Status: r.Status, Logs: logs}
		}
	}
	return out, nil
}

// leanReceipt is what a score run reads of a receipt: the JSON decoder skips the rest
// (the 512-digit bloom, the gas figures, and each log's copies of its block and
// transaction), which a million-record stage would otherwise allocate as strings.
type leanReceipt struct {
	From    string `json:"from"`
	To      string `json:"to"`
	TxHash  string `json:"transactionHash"`
	TxIndex string `json:"transactionIndex"`
	Status  string `json:"status"`
	Logs    []struct {
		Address  string   `json:"address"`
		Topics   []string `json:"topics"`
		Data     string   `json:"data"`
		LogIndex string   `json:"logIndex"`
		Removed  bool     `json:"removed"`
	} `json:"logs"`
}

func txRecord(h Header, tx Tx) *Record {
	r := &Record{Block: h.Number, Time: h.Time, TxHash: tx.Hash, TxIndex: uint64(tx.Index), From: tx.From, To: tx.To, Data: tx.Input, Value: new(big.Int)}
	if tx.Value != nil {
		r.Value = tx.Value.ToInt()
	}
	if tx.To != nil {
		r.Address = *tx.To
	}
	return r
}

// logRecords yields the logs of one receipt that belong to s.
func logRecords(s *Source, h Header, r indexer.EVMTx, each func(*Record) error) error {
	if len(r.Logs) == 0 {
		return nil
	}
	txIndex, err := indexer.ParseQuantity(r.TxIndex)
	if err != nil {
		return fmt.Errorf("receipt %s: transactionIndex: %w", r.TxHash, err)
	}
	base := Record{Block: h.Number, Time: h.Time, TxHash: common.HexToHash(r.TxHash), TxIndex: txIndex, From: common.HexToAddress(r.From)}
	if r.To != "" {
		to := common.HexToAddress(r.To)
		base.To = &to
	}
	for _, l := range r.Logs {
		if l.Removed {
			continue
		}
		rec := base
		rec.Address = common.HexToAddress(l.Address)
		if rec.LogIndex, err = indexer.ParseQuantity(l.LogIndex); err != nil {
			return fmt.Errorf("receipt %s: logIndex: %w", r.TxHash, err)
		}
		rec.Topics = make([]common.Hash, len(l.Topics))
		for i, t := range l.Topics {
			rec.Topics[i] = common.HexToHash(t)
		}
		if rec.Data, err = hexutil.Decode(l.Data); err != nil {
			return fmt.Errorf("receipt %s: log %d data: %w", r.TxHash, rec.LogIndex, err)
		}
		if !s.Matches(&rec) {
			continue
		}
		if err := each(&rec); err != nil {
			return err
		}
	}
	return nil
}

// IndexerSource reads records from the chain indexer (rollytics' evm-txs, oldest first,
// 1,000 a page, from the first transaction of the window, which a binary search over
// pagination.offset finds): logs come from the indexed receipts. Receipts carry neither
// block times nor a transaction's input and value, so those come from the node: block
// times for every record, input and value for calls and native transfers.
type IndexerSource struct {
	Client *indexer.Client
	Node   *Node
	starts startOffsets // first offset at or after a block, once found
}

// startOffsets finds, by a binary search over pagination.offset, the offset (oldest first)
// of an indexer's first tx at or after a block, and remembers it. Offsets of indexed txs
// never move: new ones are appended, and an Initia rollup does not reorganise.
type startOffsets map[uint64]int

// find searches the first of total txs at or after block from (the callers look in the map
// first, before they ask the indexer for its total); heightAt reads the block of the tx at
// an offset (false: there is none).
func (s *startOffsets) find(from uint64, total int, heightAt func(i int) (uint64, bool, error)) (int, error) {
	var ferr error
	off := sort.Search(total, func(i int) bool {
		if ferr != nil {
			return true
		}
		h, ok, err := heightAt(i)
		if err != nil {
			ferr = err
			return true
		}
		return !ok || h >= from
	})
	if ferr != nil {
		return 0, ferr
	}
	if *s == nil {
		*s = startOffsets{}
	}
	(*s)[from] = off
	return off, nil
}

// startOffset is the offset (oldest first) of the first transaction at or after block from.
func (x *IndexerSource) startOffset(ctx context.Context, from uint64) (int, error) {
	if from == 0 {
		return 0, nil
	}
	if off, ok := x.starts[from]; ok {
		return off, nil
	}
	first, err := x.Client.EVMTxs(ctx, indexer.Query{Limit: 1, Ascending: true})
	if err != nil {
		return 0, err
	}
	total, err := first.Pagination.TotalCount()
	if err != nil {
		return 0, fmt.Errorf("total %q: %w", first.Pagination.Total, err)
	}
	return x.starts.find(from, int(total), func(i int) (uint64, bool, error) {
		p, err := x.Client.EVMTxs(ctx, indexer.Query{Offset: i, Limit: 1, Ascending: true, SkipTotal: true})
		if err != nil || len(p.Txs) == 0 {
			return 0, false, err
		}
		h, err := p.Txs[0].Height()
		if err != nil {
			return 0, false, fmt.Errorf("tx %s: blockNumber: %w", p.Txs[0].TxHash, err)
		}
		return h, true, nil
	})
}

// Height is how far the indexer has collected (GET /status).
func (x *IndexerSource) Height(ctx context.Context) (uint64, error) {
	st, err := x.Client.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("indexer status: %w", err)
	}
	if st.Height < 0 {
		return 0, fmt.Errorf("indexer status: height %d", st.Height)
	}
	return uint64(st.Height), nil
}

// Read yields the source's records in [from, to] in chain order, a page at a time: the
// page's block times (and, for calls and native transfers, its candidates' inputs and
// values) asked of the node in one batch each.
func (x *IndexerSource) Read(ctx context.Context, s *Source, from, to uint64, each func(*Record) error) error {
	// The next page (and its block times, inputs and values) is fetched while one is
	// scored: the round trips and the JSON decoding overlap the scoring.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan indexerBatch, 1)
	go func() {
		defer close(pages)
		if err := x.fetch(ctx, s, from, to, pages); err != nil {
			select {
			case pages <- indexerBatch{err: err}:
			case <-ctx.Done():
			}
		}
	}()
	for p := range pages {
		if p.err != nil {
			return p.err
		}
		for i, tx := range p.txs {
			h, err := x.Node.Header(ctx, p.heights[i])
			if err != nil {
				return fmt.Errorf("indexer: block time: %w", err)
			}
			if s.IsLog() {
				if err := logRecords(s, h, tx, each); err != nil {
					return fmt.Errorf("indexer: %w", err)
				}
				continue
			}
			rec := txRecord(h, *p.full[i])
			if !s.Matches(rec) {
				continue
			}
			if err := each(rec); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// indexerBatch is a page's transactions that can hold a record of the source, their
// heights (the blocks' headers cached) and, for calls and native transfers, their full
// forms; or the error that ended the paging.
type indexerBatch struct {
	txs     []indexer.EVMTx
	heights []uint64
	full    []*Tx
	err     error
}

// fetch sends the pages of [from, to], oldest first, in order.
func (x *IndexerSource) fetch(ctx context.Context, s *Source, from, to uint64, out chan<- indexerBatch) error {
	off, err := x.startOffset(ctx, from)
	if err != nil {
		return fmt.Errorf("indexer: find block %d's first transaction: %w", from, err)
	}
	q := indexer.Query{Offset: off, Ascending: true, Limit: indexer.MaxLimit, SkipTotal: true}
	for page, err := range x.Client.Pages(ctx, indexer.PathEVMTxs, q) {
		if err != nil {
			return fmt.Errorf("indexer: source %s: %w", s.Name, err)
		}
		// The page's transactions inside [from, to] that can hold a record of s.
		var p indexerBatch
		var blocks []uint64
		done := false
		for _, tx := range page.Txs {
			b, err := tx.Height()
			if err != nil {
				return fmt.Errorf("indexer: tx %s: blockNumber: %w", tx.TxHash, err)
			}
			if b < from {
				continue
			}
			if b > to {
				done = true
				break
			}
			switch {
			case s.IsLog() && len(tx.Logs) == 0:
				continue
			case !s.IsLog() && !tx.Succeeded():
				continue
			case s.Kind == KindCall && (tx.To == "" || common.HexToAddress(tx.To) != s.Contract):
				continue
			}
			p.txs, p.heights = append(p.txs, tx), append(p.heights, b)
			if len(blocks) == 0 || blocks[len(blocks)-1] != b {
				blocks = append(blocks, b)
			}
		}
		if err := x.Node.headersOf(ctx, blocks); err != nil {
			return fmt.Errorf("indexer: block times: %w", err)
		}
		if !s.IsLog() {
			if p.full, err = x.Node.transactions(ctx, p.txs); err != nil {
				return fmt.Errorf("indexer: inputs and values: %w", err)
			}
		}
		select {
		case out <- p:
		case <-ctx.Done():
			return ctx.Err()
		}
		if done {
			return nil
		}
	}
	return nil
}

// transactions are the indexed transactions' full forms (eth_getTransactionByHash), in one
// batch.
func (n *Node) transactions(ctx context.Context, txs []indexer.EVMTx) ([]*Tx, error) {
	out := make([]*Tx, len(txs))
	elems := make([]rpc.BatchElem, len(txs))
	for i, tx := range txs {
		elems[i] = rpc.BatchElem{Method: "eth_getTransactionByHash", Args: []any{tx.TxHash}, Result: &out[i]}
	}
	if err := n.call(ctx, elems); err != nil {
		return nil, err
	}
	for i, t := range out {
		if t == nil || !strings.EqualFold(t.Hash.Hex(), txs[i].TxHash) {
			return nil, fmt.Errorf("eth_getTransactionByHash %s: unknown to the node", txs[i].TxHash)
		}
	}
	return out, nil
}
