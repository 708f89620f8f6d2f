package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/vipharness/vipharness/bindings/ethnode"
	api "github.com/vipharness/vipharness/bindings/indexer"
)

// Header is the part of a block header the indexer follows the chain by.
type Header struct {
	Number     uint64
	Hash       common.Hash
	ParentHash common.Hash
}

// Source is the chain the indexer follows: the narrowest view of an EVM JSON-RPC node that
// the job needs. The live implementation talks to a node with ethclient; MemChain is an
// in-memory chain that tests can fork and reorganise at will.
type Source interface {
	// Head is the number of the latest canonical block.
	Head(ctx context.Context) (uint64, error)
	// Headers returns the canonical headers of blocks from..to in order, stopping early
	// where the chain ends.
	Headers(ctx context.Context, from, to uint64) ([]Header, error)
	// Receipts returns, for each block hash, the block's receipts as eth_getBlockReceipts
	// returns them, in transaction order.
	Receipts(ctx context.Context, blocks []common.Hash) ([][]api.EVMTx, error)
}

// rpcSource follows a node over JSON-RPC: eth_blockNumber, and batches of
// eth_getBlockByNumber and eth_getBlockReceipts (by block hash, so a block that a reorg
// replaces between two calls is never mixed with its successor).
type rpcSource struct {
	client    *ethnode.Client
	transport *http.Transport
}

// receiptBatch bounds one eth_getBlockReceipts batch, to stay under a node's reply size
// limit (geth: 25 MB) when blocks are full.
const (
	headerBatch  = 256
	receiptBatch = 8
)

func dialRPC(ctx context.Context, url string) (*rpcSource, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// No gzip: the node is local, and compressing a block's receipts (300 KB of JSON for a
	// 455-address chunk) cost it more CPU than carrying them.
	tr.DisableCompression = true
	c, err := ethnode.DialHTTP(ctx, url, &http.Client{Transport: tr})
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	return &rpcSource{client: c, transport: tr}, nil
}

func (s *rpcSource) close() {
	s.client.Close()
	s.transport.CloseIdleConnections()
}

func (s *rpcSource) Head(ctx context.Context) (uint64, error) { return s.client.BlockNumber(ctx) }

type rpcHeader struct {
	Number     hexutil.Uint64 `json:"number"`
	Hash       common.Hash    `json:"hash"`
	ParentHash common.Hash    `json:"parentHash"`
}

func (s *rpcSource) Headers(ctx context.Context, from, to uint64) ([]Header, error) {
	var out []Header
	for lo := from; lo <= to; lo += headerBatch {
		hi := min(to, lo+headerBatch-1)
		res := make([]*rpcHeader, hi-lo+1)
		batch := make([]rpc.BatchElem, len(res))
		for i := range batch {
			batch[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.Uint64(lo + uint64(i)), false}, Result: &res[i]}
		}
		if err := s.client.Batch(ctx, batch); err != nil {
			return nil, err
		}
		for i, e := range batch {
			if e.Error != nil {
				return nil, fmt.Errorf("eth_getBlockByNumber %d: %w", lo+uint64(i), e.Error)
			}
			h := res[i]
			if h == nil {
				return out, nil // past the head
			}
			if lo+uint64(i) == 0 && h.Number == 1 {
				continue // a minievm has no block 0: it answers its first block, 1, for it
			}
			if uint64(h.Number) != lo+uint64(i) {
				return nil, fmt.Errorf("eth_getBlockByNumber %d: got block %d", lo+uint64(i), h.Number)
			}
			out = append(out, Header{Number: uint64(h.Number), Hash: h.Hash, ParentHash: h.ParentHash})
		}
	}
	return out, nil
}

func (s *rpcSource) Receipts(ctx context.Context, blocks []common.Hash) ([][]api.EVMTx, error) {
	out := make([][]api.EVMTx, 0, len(blocks))
	for lo := 0; lo < len(blocks); lo += receiptBatch {
		hi := min(len(blocks), lo+receiptBatch)
		res := make([]json.RawMessage, hi-lo)
		batch := make([]rpc.BatchElem, len(res))
		for i := range batch {
			batch[i] = rpc.BatchElem{Method: "eth_getBlockReceipts", Args: []any{blocks[lo+i].Hex()}, Result: &res[i]}
		}
		if err := s.client.Batch(ctx, batch); err != nil {
			return nil, err
		}
		for i, e := range batch {
			if e.Error != nil {
				return nil, fmt.Errorf("eth_getBlockReceipts %s: %w", blocks[lo+i], e.Error)
			}
			var txs []api.EVMTx
			if err := json.Unmarshal(res[i], &txs); err != nil {
				return nil, fmt.Errorf("eth_getBlockReceipts %s: %w", blocks[lo+i], err)
			}
			if txs == nil && string(res[i]) == "null" {
				return nil, fmt.Errorf("eth_getBlockReceipts %s: block unknown", blocks[lo+i])
			}
			out = append(out, txs)
		}
	}
	return out, nil
}
