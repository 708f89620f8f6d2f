// Package gethsource is an indexer Source read straight from an in-process go-ethereum
// chain: the embedded EVM rollup's blocks and receipts as the indexer stand-in would get them
// over JSON-RPC (eth_getBlockByNumber, eth_getBlockReceipts), without encoding every receipt
// to JSON on the node and decoding it again in the indexer, which cost the localnet a fifth
// of its CPU under a push (a 455-address chunk's receipt is 300 KB of JSON).
package gethsource

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	api "github.com/vipharness/vipharness/bindings/indexer"
	"github.com/vipharness/vipharness/localnet/indexer"
)

// Chain is what a Source reads: a go-ethereum *core.BlockChain, or a chain that answers some
// of it from memory (the embedded rollup's SealedChain: its newest blocks' receipts).
type Chain interface {
	CurrentBlock() *types.Header
	GetHeaderByNumber(number uint64) *types.Header
	GetBlockByHash(hash common.Hash) *types.Block
	GetReceiptsByHash(hash common.Hash) types.Receipts
	Config() *params.ChainConfig
}

var _ Chain = (*core.BlockChain)(nil)

// Source reads a go-ethereum chain in this process.
type Source struct{ bc Chain }

var _ indexer.Source = Source{}

// New is a Source over bc.
func New(bc Chain) Source { return Source{bc: bc} }

// Head is the number of the chain's head block.
func (s Source) Head(context.Context) (uint64, error) {
	return s.bc.CurrentBlock().Number.Uint64(), nil
}

// Headers are the canonical headers of blocks from..to, stopping early where the chain ends.
func (s Source) Headers(ctx context.Context, from, to uint64) ([]indexer.Header, error) {
	var out []indexer.Header
	for n := from; n <= to; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := s.bc.GetHeaderByNumber(n)
		if h == nil {
			break
		}
		out = append(out, indexer.Header{Number: n, Hash: h.Hash(), ParentHash: h.ParentHash})
	}
	return out, nil
}

// Receipts are each block's receipts in the form eth_getBlockReceipts gives them.
func (s Source) Receipts(ctx context.Context, blocks []common.Hash) ([][]api.EVMTx, error) {
	out := make([][]api.EVMTx, 0, len(blocks))
	for _, hash := range blocks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b := s.bc.GetBlockByHash(hash)
		if b == nil {
			return nil, fmt.Errorf("block %s unknown", hash)
		}
		rs := s.bc.GetReceiptsByHash(hash)
		txs := b.Transactions()
		if len(rs) != len(txs) {
			return nil, fmt.Errorf("block %s: %d receipts for %d txs", hash, len(rs), len(txs))
		}
		signer := types.MakeSigner(s.bc.Config(), b.Number(), b.Time())
		row := make([]api.EVMTx, len(rs))
		for i, r := range rs {
			var err error
			if row[i], err = receipt(r, txs[i], signer, b, i); err != nil {
				return nil, fmt.Errorf("block %s tx %d: %w", hash, i, err)
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// receipt is r in the fields and encodings of go-ethereum's JSON-RPC receipt (hex quantities
// without leading zeros, lower-case addresses and hashes).
func receipt(r *types.Receipt, tx *types.Transaction, signer types.Signer, b *types.Block, i int) (api.EVMTx, error) {
	from, err := types.Sender(signer, tx)
	if err != nil {
		return api.EVMTx{}, fmt.Errorf("recover the sender: %w", err)
	}
	blockHash, number := b.Hash().Hex(), hexutil.EncodeUint64(b.NumberU64())
	out := api.EVMTx{
		BlockHash: blockHash, BlockNumber: number,
		CumulativeGasUsed: hexutil.EncodeUint64(r.CumulativeGasUsed),
		From:              hexAddr(from),
		GasUsed:           hexutil.EncodeUint64(r.GasUsed),
		Logs:              make([]api.EVMLog, len(r.Logs)),
		LogsBloom:         hexutil.Encode(r.Bloom[:]),
		TxHash:            tx.Hash().Hex(),
		TxIndex:           hexutil.EncodeUint64(uint64(i)),
		Type:              hexutil.EncodeUint64(uint64(tx.Type())),
	}
	if r.EffectiveGasPrice != nil {
		out.EffectiveGasPrice = hexutil.EncodeBig(r.EffectiveGasPrice)
	}
	if len(r.PostState) == 0 {
		out.Status = hexutil.EncodeUint64(r.Status)
	}
	if to := tx.To(); to != nil {
		out.To = hexAddr(*to)
	}
	if r.ContractAddress != (common.Address{}) {
		c := hexAddr(r.ContractAddress)
		out.ContractAddress = &c
	}
	for j, l := range r.Logs {
		topics := make([]string, len(l.Topics))
		for k, t := range l.Topics {
			topics[k] = t.Hex()
		}
		out.Logs[j] = api.EVMLog{
			Address: hexAddr(l.Address), Topics: topics, Data: hexutil.Encode(l.Data),
			BlockNumber: number, TxHash: out.TxHash, TxIndex: out.TxIndex, BlockHash: blockHash,
			LogIndex: hexutil.EncodeUint64(uint64(l.Index)), Removed: l.Removed,
		}
	}
	return out, nil
}

// hexAddr is an address as JSON-RPC writes it: lower-case hex, no checksum.
func hexAddr(a common.Address) string { return hexutil.Encode(a[:]) }
