// Package ethrpc is the Ethereum face of the local EVM minitia, as a minievm has it: an
// indexer that turns each block's Cosmos txs into an Ethereum block, txs and receipts (as
// minievm's indexer does: the receipt's gas is the Cosmos tx's, its logs the x/evm events'),
// and a JSON-RPC server (go-ethereum's rpc package) that answers from the index and the
// chain's state. The index is kept in memory: it is fed as blocks are finalized.
package ethrpc

import (
	"context"
	"encoding/json"
	"math/big"
	"sync"
	"time"

	"cosmossdk.io/core/address"
	storetypes "cosmossdk.io/store/types"
	abci "github.com/cometbft/cometbft/abci/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/vipharness/vipharness/localnet/minitia/xevm"
)

// Index holds the chain's Ethereum blocks, txs and receipts.
type Index struct {
	decode    sdk.TxDecoder
	addresses address.Codec
	feeDenom  string
	baseFee   *big.Int
	gasLimit  uint64

	mu       sync.RWMutex
	headers  map[uint64]*types.Header
	byHash   map[common.Hash]uint64
	blockTxs map[uint64][]common.Hash
	txs      map[common.Hash]*indexedTx
	latest   uint64
	heads    []chan<- *types.Header
}

type indexedTx struct {
	tx      *types.Transaction
	from    common.Address
	receipt *types.Receipt
}

var _ storetypes.ABCIListener = (*Index)(nil)

// NewIndex is an empty index that decodes txs with decode; its blocks' base fee is the
// chain's minimum gas price (wei per gas), as a minievm's are, and their gas limit the
// chain's block gas limit.
func NewIndex(decode sdk.TxDecoder, addresses address.Codec, feeDenom string, baseFee *big.Int, gasLimit uint64) *Index {
	return &Index{decode: decode, addresses: addresses, feeDenom: feeDenom, baseFee: baseFee, gasLimit: gasLimit, headers: map[uint64]*types.Header{},
		byHash: map[common.Hash]uint64{}, blockTxs: map[uint64][]common.Hash{}, txs: map[common.Hash]*indexedTx{}}
}

// ListenCommit implements storetypes.ABCIListener; the index is fed at finalize.
func (x *Index) ListenCommit(context.Context, abci.ResponseCommit, []*storetypes.StoreKVPair) error {
	return nil
}

// ListenFinalizeBlock indexes a finalized block, before its state commits: as on a minievm,
// a client can see a receipt before the state it wrote can be read.
func (x *Index) ListenFinalizeBlock(goCtx context.Context, req abci.RequestFinalizeBlock, res abci.ResponseFinalizeBlock) error {
	x.Add(Block{ChainID: sdk.UnwrapSDKContext(goCtx).ChainID(), Height: req.Height, Time: req.Time, Txs: req.Txs, Results: res.TxResults})
	return nil
}

// Block is what the index reads of a finalized block: its txs and their results.
type Block struct {
	ChainID string
	Height  int64
	Time    time.Time
	Txs     [][]byte
	Results []*abci.ExecTxResult
}

// Add indexes a block: as it is finalized, or from CometBFT's stores when a kept chain
// resumes (the same block gives the same Ethereum block and hash either way).
func (x *Index) Add(b Block) {
	var txs []*indexedTx
	var cumulative, blockGas uint64
	for i, bz := range b.Txs {
		if i >= len(b.Results) {
			break
		}
		blockGas += uint64(b.Results[i].GasUsed)
		t := x.ethTx(b.ChainID, bz, b.Results[i])
		if t == nil {
			continue
		}
		cumulative += t.receipt.GasUsed
		t.receipt.CumulativeGasUsed = cumulative
		// minievm's indexer counts a block's Ethereum txs from one.
		t.receipt.TransactionIndex = uint(len(txs) + 1)
		txs = append(txs, t)
	}
	height := uint64(b.Height)
	x.mu.Lock()
	defer x.mu.Unlock()
	parent := common.Hash{}
	if h, ok := x.headers[height-1]; ok {
		parent = h.Hash()
	}
	ethTxs := make(types.Transactions, len(txs))
	receipts := make(types.Receipts, len(txs))
	for i, t := range txs {
		ethTxs[i], receipts[i] = t.tx, t.receipt
	}
	hasher := trie.NewStackTrie(nil)
	header := &types.Header{
		ParentHash: parent, UncleHash: types.EmptyUncleHash, Root: types.EmptyRootHash,
		TxHash: types.DeriveSha(ethTxs, hasher), ReceiptHash: types.DeriveSha(receipts, hasher),
		Bloom: types.MergeBloom(receipts), Difficulty: big.NewInt(0), Number: new(big.Int).SetUint64(height),
		GasLimit: x.gasLimit, GasUsed: blockGas, Time: uint64(b.Time.Unix()), Extra: []byte{},
		BaseFee: new(big.Int).Set(x.baseFee), WithdrawalsHash: &types.EmptyWithdrawalsHash,
	}
	hash := header.Hash()
	logIndex := uint(0)
	hashes := make([]common.Hash, len(txs))
	for i, t := range txs {
		r := t.receipt
		r.TxHash, r.BlockHash, r.BlockNumber = t.tx.Hash(), hash, new(big.Int).SetUint64(height)
		for _, l := range r.Logs {
			l.Index, l.BlockHash, l.BlockNumber, l.TxHash, l.TxIndex = logIndex, hash, height, r.TxHash, r.TransactionIndex
			l.BlockTimestamp = header.Time
			logIndex++
		}
		hashes[i] = r.TxHash
		x.txs[r.TxHash] = t
	}
	x.headers[height], x.byHash[hash], x.blockTxs[height] = header, height, hashes
	x.latest = max(x.latest, height)
	for _, ch := range x.heads {
		select {
		case ch <- header:
		default:
		}
	}
}

// ethTx is the Ethereum tx a block's Cosmos tx carries, with its receipt (nil if none).
func (x *Index) ethTx(chainID string, bz []byte, res *abci.ExecTxResult) *indexedTx {
	tx, err := x.decode(bz)
	if err != nil {
		return nil
	}
	ethTx, from, err := xevm.EthereumTx(x.addresses, chainID, x.feeDenom, nil, tx)
	if err != nil || ethTx == nil {
		return nil
	}
	r := &types.Receipt{Type: ethTx.Type(), Status: types.ReceiptStatusFailed, GasUsed: uint64(res.GasUsed),
		Logs: []*types.Log{}, EffectiveGasPrice: ethTx.GasFeeCap()}
	if res.Code == abci.CodeTypeOK {
		r.Status = types.ReceiptStatusSuccessful
		r.Logs, r.ContractAddress = eventLogs(res.Events, ethTx.To() == nil)
	}
	r.Bloom = types.CreateBloom(r)
	return &indexedTx{tx: ethTx, from: *from, receipt: r}
}

// eventLogs reads a tx's EVM logs from x/evm's events, and a create's contract.
func eventLogs(events []abci.Event, create bool) ([]*types.Log, common.Address) {
	logs := []*types.Log{}
	var contract common.Address
	for _, ev := range events {
		switch {
		case create && ev.Type == "create":
			for _, a := range ev.Attributes {
				if a.Key == "contract" {
					contract = common.HexToAddress(a.Value)
				}
			}
		case ev.Type == "evm":
			for _, a := range ev.Attributes {
				if a.Key != "log" {
					continue
				}
				var l struct {
					Address string   `json:"address"`
					Topics  []string `json:"topics"`
					Data    string   `json:"data"`
				}
				if json.Unmarshal([]byte(a.Value), &l) != nil {
					continue
				}
				log := &types.Log{Address: common.HexToAddress(l.Address), Data: common.FromHex(l.Data)}
				for _, t := range l.Topics {
					log.Topics = append(log.Topics, common.HexToHash(t))
				}
				if log.Data == nil {
					log.Data = []byte{}
				}
				logs = append(logs, log)
			}
		}
	}
	return logs, contract
}

// Latest is the newest indexed height.
func (x *Index) Latest() uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.latest
}

// Header is the block at height, or nil.
func (x *Index) Header(height uint64) *types.Header {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.headers[height]
}

// HeightOf is the height of the block with hash.
func (x *Index) HeightOf(hash common.Hash) (uint64, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	h, ok := x.byHash[hash]
	return h, ok
}

// TxsAt are the Ethereum txs of the block at height, in order.
func (x *Index) TxsAt(height uint64) []*indexedTx {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]*indexedTx, 0, len(x.blockTxs[height]))
	for _, h := range x.blockTxs[height] {
		out = append(out, x.txs[h])
	}
	return out
}

// Tx is an indexed tx by its Ethereum hash.
func (x *Index) Tx(hash common.Hash) (*indexedTx, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	t, ok := x.txs[hash]
	return t, ok
}

// SubscribeHeads sends each new header to ch (dropped when ch is full).
func (x *Index) SubscribeHeads(ch chan<- *types.Header) func() {
	x.mu.Lock()
	x.heads = append(x.heads, ch)
	x.mu.Unlock()
	return func() {
		x.mu.Lock()
		defer x.mu.Unlock()
		for i, c := range x.heads {
			if c == ch {
				x.heads = append(x.heads[:i], x.heads[i+1:]...)
				return
			}
		}
	}
}
