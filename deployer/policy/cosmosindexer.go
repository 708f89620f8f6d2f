package policy

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/bindings/indexer"
)

// CosmosIndexer reads a Cosmos rollup (Move, Wasm) from the chain indexer alone: the stage's
// blocks from its block API (/indexer/block/v1/blocks/{h}, /status), the records from its
// Cosmos txs (/indexer/tx/v1/txs oldest first, 1,000 a page, from the window's first
// transaction, which a binary search over pagination.offset finds), each with its block's
// time and events. A tx's index in its block is its place among the block's indexed txs,
// which the list holds in block order.
type CosmosIndexer struct {
	Client *indexer.Client
	starts startOffsets
}

// Height is how far the indexer has collected (GET /status).
func (x *CosmosIndexer) Height(ctx context.Context) (uint64, error) {
	st, err := x.Client.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("indexer status: %w", err)
	}
	if st.Height < 0 {
		return 0, fmt.Errorf("indexer status: height %d", st.Height)
	}
	return uint64(st.Height), nil
}

// Head is the newest block the indexer has collected.
func (x *CosmosIndexer) Head(ctx context.Context) (Header, error) {
	h, err := x.Height(ctx)
	if err != nil {
		return Header{}, err
	}
	return x.Header(ctx, h)
}

// Header is block n from the block API (block 0, before the chain, has time 0).
func (x *CosmosIndexer) Header(ctx context.Context, n uint64) (Header, error) {
	if n == 0 {
		return Header{}, nil
	}
	b, err := x.Client.Block(ctx, n)
	if err != nil {
		return Header{}, fmt.Errorf("indexer block %d: %w", n, err)
	}
	h, err := b.BlockHeight()
	if err != nil || h != n {
		return Header{}, fmt.Errorf("indexer block %d: height %q", n, b.Height)
	}
	hash, err := hex.DecodeString(b.Hash)
	if err != nil || len(hash) != common.HashLength {
		return Header{}, fmt.Errorf("indexer block %d: hash %q is not 32 bytes of hex", n, b.Hash)
	}
	t, err := b.Time()
	if err != nil {
		return Header{}, fmt.Errorf("indexer block %d: timestamp: %w", n, err)
	}
	return Header{Number: n, Hash: common.BytesToHash(hash), Time: uint64(t.Unix())}, nil
}

// startOffset is the offset (oldest first) of the first tx at or after block from.
func (x *CosmosIndexer) startOffset(ctx context.Context, from uint64) (int, error) {
	if off, ok := x.starts[from]; ok {
		return off, nil
	}
	first, err := x.Client.Txs(ctx, indexer.TxQuery{Query: indexer.Query{Limit: 1, Ascending: true}})
	if err != nil {
		return 0, err
	}
	total, err := first.Pagination.TotalCount()
	if err != nil {
		return 0, fmt.Errorf("total %q: %w", first.Pagination.Total, err)
	}
	return x.starts.find(from, int(total), func(i int) (uint64, bool, error) {
		p, err := x.Client.Txs(ctx, indexer.TxQuery{Query: indexer.Query{Offset: i, Limit: 1, Ascending: true, SkipTotal: true}})
		if err != nil || len(p.Txs) == 0 {
			return 0, false, err
		}
		h, err := p.Txs[0].BlockHeight()
		if err != nil {
			return 0, false, fmt.Errorf("tx %s: height %q: %w", p.Txs[0].TxHash, p.Txs[0].Height, err)
		}
		return h, true, nil
	})
}

// Read yields a Cosmos source's records in [from, to] in chain order.
func (x *CosmosIndexer) Read(ctx context.Context, s *Source, from, to uint64, each func(*Record) error) error {
	if !s.Cosmos {
		return fmt.Errorf("indexer: source %s is an EVM source (%s): read it with IndexerSource", s.Name, s.Kind)
	}
	off, err := x.startOffset(ctx, from)
	if err != nil {
		return fmt.Errorf("indexer: find block %d's first transaction: %w", from, err)
	}
	q := indexer.TxQuery{Query: indexer.Query{Offset: off, Ascending: true, Limit: indexer.MaxLimit, SkipTotal: true}}
	var block, index uint64
	first := true
	for page, err := range x.Client.TxPages(ctx, indexer.PathTxs, q) {
		if err != nil {
			return fmt.Errorf("indexer: source %s: %w", s.Name, err)
		}
		for _, tx := range page.Txs {
			h, err := tx.BlockHeight()
			if err != nil {
				return fmt.Errorf("indexer: tx %s: height %q: %w", tx.TxHash, tx.Height, err)
			}
			if h > to {
				return nil
			}
			switch {
			case first || h != block:
				block, index, first = h, 0, false
			default:
				index++
			}
			if h < from || tx.Code != 0 {
				continue
			}
			if err := x.txRecords(s, tx, h, index, each); err != nil {
				return err
			}
		}
	}
	return nil
}

func (x *CosmosIndexer) txRecords(s *Source, tx indexer.Tx, h, index uint64, each func(*Record) error) error {
	hash, err := hex.DecodeString(tx.TxHash)
	if err != nil || len(hash) != common.HashLength {
		return fmt.Errorf("indexer: tx hash %q is not 32 bytes of hex", tx.TxHash)
	}
	t, err := tx.Time()
	if err != nil {
		return fmt.Errorf("indexer: tx %s: timestamp: %w", tx.TxHash, err)
	}
	evs, err := tx.DecodeEvents()
	if err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	return eventRecords(s, Header{Number: h, Time: uint64(t.Unix())}, common.BytesToHash(hash), index, events(evs), each)
}
