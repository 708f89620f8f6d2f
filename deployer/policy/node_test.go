package policy

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http/httptest"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/vipharness/vipharness/bindings/indexer"
)

// fakeEth is the eth namespace of a node over a chain of blocks 0..n-1 (block b at time
// 1000+b); blocks 3, 4 and 9 each hold one transfer log of token, block 9's twice over (two
// logs in one receipt). eth_getLogs refuses a range of more than maxSpan blocks as a node
// with a result limit does.
type fakeEth struct {
	n, maxSpan   uint64
	getLogs      int
	refusedSpans []uint64
	// logs is how many transfer logs each block holds (fakeLogBlocks when nil).
	logs map[uint64]int
	// noBlockZero answers block 0 with block 1 and numbers a block's txs from 1, as a
	// minievm does; txs are the native transfers each block holds (to bob, value 1).
	noBlockZero bool
	txs         map[uint64]int
}

func (f *fakeEth) logsIn(b uint64) int {
	if f.logs == nil {
		return fakeLogBlocks[b]
	}
	return f.logs[b]
}

type fakeFilter struct {
	FromBlock hexutil.Uint64 `json:"fromBlock"`
	ToBlock   hexutil.Uint64 `json:"toBlock"`
}

var fakeLogBlocks = map[uint64]int{3: 1, 4: 1, 9: 2}

func (f *fakeEth) GetLogs(_ context.Context, q fakeFilter) ([]map[string]any, error) {
	f.getLogs++
	if span := uint64(q.ToBlock) - uint64(q.FromBlock) + 1; span > f.maxSpan {
		f.refusedSpans = append(f.refusedSpans, span)
		return nil, errors.New("query returned more than 10000 results")
	}
	var out []map[string]any
	for b := uint64(q.FromBlock); b <= uint64(q.ToBlock); b++ {
		for range f.logsIn(b) {
			out = append(out, map[string]any{"blockNumber": hexutil.EncodeUint64(b)})
		}
	}
	return out, nil
}

func (f *fakeEth) GetBlockByNumber(_ context.Context, tag string, full bool) (map[string]any, error) {
	b, err := hexutil.DecodeUint64(tag)
	if tag == "latest" {
		b, err = f.n-1, nil
	}
	if err != nil || b >= f.n {
		return nil, nil
	}
	if b == 0 && f.noBlockZero {
		b = 1
	}
	txs := []any{}
	for i := range f.txs[b] {
		txs = append(txs, map[string]any{"hash": common.BigToHash(big.NewInt(int64(b*100) + int64(i))), "from": alice, "to": bob,
			"value": "0x1", "input": "0x", "transactionIndex": hexutil.EncodeUint64(f.txIndex(i))})
	}
	return map[string]any{"number": hexutil.EncodeUint64(b), "hash": common.BigToHash(big.NewInt(int64(b) + 1)), "timestamp": hexutil.EncodeUint64(1000 + b), "transactions": txs}, nil
}

// txIndex is the index of a block's i-th tx: from 1 on a minievm (its Cosmos tx index).
func (f *fakeEth) txIndex(i int) uint64 {
	if f.noBlockZero {
		return uint64(i) + 1
	}
	return uint64(i)
}

func (f *fakeEth) GetBlockReceipts(_ context.Context, num hexutil.Uint64) ([]indexer.EVMTx, error) {
	b := uint64(num)
	if n := f.txs[b]; n > 0 {
		var out []indexer.EVMTx
		for i := range n {
			out = append(out, indexer.EVMTx{TxHash: common.BigToHash(big.NewInt(int64(b*100) + int64(i))).Hex(), TxIndex: hexutil.EncodeUint64(f.txIndex(i)),
				BlockNumber: hexutil.EncodeUint64(b), From: lowerHex(alice), To: lowerHex(bob), Status: "0x1"})
		}
		return out, nil
	}
	k := f.logsIn(b)
	if k == 0 {
		return []indexer.EVMTx{}, nil
	}
	rc := indexer.EVMTx{TxHash: fmt.Sprintf("0x%064x", b), TxIndex: "0x0", BlockNumber: hexutil.EncodeUint64(b), From: "0x00000000000000000000000000000000000a11ce", To: lowerHex(token), Status: "0x1"}
	for i := range k {
		rec := transfer(b, 1000+b, uint64(i), alice, bob, tokens(float64(b)))
		var topics []string
		for _, t := range rec.Topics {
			topics = append(topics, t.Hex())
		}
		rc.Logs = append(rc.Logs, indexer.EVMLog{Address: lowerHex(token), Topics: topics, Data: hexutil.Encode(rec.Data), LogIndex: hexutil.EncodeUint64(uint64(i))})
	}
	// A log of another contract in the same receipt is not the source's.
	rc.Logs = append(rc.Logs, indexer.EVMLog{Address: lowerHex(bob), Topics: rc.Logs[0].Topics, Data: rc.Logs[0].Data, LogIndex: hexutil.EncodeUint64(uint64(k))})
	return []indexer.EVMTx{rc}, nil
}

func TestNodeReadsLogsInSpansAndHalvesWhenRefused(t *testing.T) {
	f := &fakeEth{n: 12, maxSpan: 3}
	node := dialFake(t, f)
	node.LogSpan, node.Batch = 8, 2
	p, err := Parse([]byte(header+okSources+"rules:\n  - {name: vol, source: transfers, aggregate: sum, user: args.from, amount: args.value / 1e18}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = node.Read(context.Background(), p.Sources[0], 2, 10, func(r *Record) error {
		got = append(got, fmt.Sprintf("%d/%d@%d", r.Block, r.LogIndex, r.Time))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"3/0@1003", "4/0@1004", "9/0@1009", "9/1@1009"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("records %v, want %v", got, want)
	}
	// 8 blocks refused, then 4, then spans of 2 cover 2..10.
	if fmt.Sprint(f.refusedSpans) != "[8 4]" {
		t.Fatalf("refused spans %v", f.refusedSpans)
	}
	sp, err := FindWindow(context.Background(), node, 1003, 1010)
	if err != nil || sp.FirstBlock != 3 || sp.LastBlock != 9 || sp.Last.Hash != common.BigToHash(big.NewInt(10)) {
		t.Fatalf("window %+v, %v", sp, err)
	}
	res, err := Compute(context.Background(), p, sp.Window, node)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Scores) != 1 || res.Scores[0].Addr != alice || res.Scores[0].Score != 3+4+9+9 {
		t.Fatalf("scores %v", res.Scores)
	}
}

// TestNodeReadsDenseChainsByReceipts: where most blocks of a span hold a log, the reader
// stops asking eth_getLogs and reads the receipts of every block, until a span holds
// (mostly) none; the records are the same either way, in chain order.
func TestNodeReadsDenseChainsByReceipts(t *testing.T) {
	logs := map[uint64]int{}
	for b := uint64(1); b <= 300; b++ {
		logs[b] = 1
	}
	logs[2900] = 2 // a sparse tail: found by eth_getLogs again
	f := &fakeEth{n: 3000, maxSpan: 10_000, logs: logs}
	node := dialFake(t, f)
	node.LogSpan, node.Batch = 2000, 50
	p, err := Parse([]byte(header+okSources+"rules:\n  - {name: vol, source: transfers, aggregate: sum, user: args.from, amount: args.value / 1e18}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []uint64
	err = node.Read(context.Background(), p.Sources[0], 1, 2999, func(r *Record) error {
		blocks = append(blocks, r.Block)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 302 || blocks[0] != 1 || blocks[299] != 300 || blocks[300] != 2900 || blocks[301] != 2900 {
		t.Fatalf("%d records, blocks %v...%v", len(blocks), blocks[:min(3, len(blocks))], blocks[max(0, len(blocks)-3):])
	}
	// The first span (64 blocks) by eth_getLogs shows a dense chain: blocks 65..300 come
	// from receipts alone; a span of empty receipts turns eth_getLogs back on for the tail,
	// in spans that grow at most 8 times a step up to --log-span.
	if f.getLogs < 2 || f.getLogs > 6 {
		t.Fatalf("eth_getLogs called %d times", f.getLogs)
	}
}

// dialFake serves f as the eth namespace over HTTP and dials it; both close with the test.
func dialFake(t *testing.T, f *fakeEth) *Node {
	t.Helper()
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", f); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	node, err := DialNode(context.Background(), hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(node.Close)
	return node
}

// A node without block 0 (a minievm answers block 1 for it) is read from genesis with each
// block once: block 1's transfers are not read twice; a node that answers another block
// than asked for, past block 0, is refused.
func TestNodeReadsAChainWithoutBlockZeroOnce(t *testing.T) {
	for _, tc := range []struct {
		name        string
		noBlockZero bool
		want        string // block/tx index of each record
	}{{"a chain from block 0", false, "[1/0 1/1 4/0]"}, {"a minievm's, from block 1, txs from 1", true, "[1/1 1/2 4/1]"}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeEth{n: 6, maxSpan: 100, logs: map[uint64]int{}, noBlockZero: tc.noBlockZero, txs: map[uint64]int{1: 2, 4: 1}}
			node := dialFake(t, f)
			node.Batch = 4
			p, err := Parse([]byte(header+"sources:\n  - name: s\n    native_transfer: {}\n    history: genesis\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			err = node.Read(context.Background(), p.Sources[0], 0, 5, func(r *Record) error {
				got = append(got, fmt.Sprintf("%d/%d", r.Block, r.TxIndex))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != tc.want {
				t.Fatalf("records %v, want %s", got, tc.want)
			}
		})
	}
}
