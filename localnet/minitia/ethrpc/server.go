package ethrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"cosmossdk.io/core/address"
	sdkmath "cosmossdk.io/math"
	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/holiman/uint256"

	"github.com/vipharness/vipharness/localnet/minitia/xevm"
)

// Chain is what the JSON-RPC server needs of the node.
type Chain struct {
	Keeper    *xevm.Keeper
	TxConfig  client.TxConfig
	Addresses address.Codec
	ChainID   string
	FeeDenom  string
	// MinGasPrice is the chain's minimum gas price of the fee denom (wei per gas).
	MinGasPrice sdkmath.LegacyDec
	// Version is what web3_clientVersion reports.
	Version string
	// State is a query context on the state committed at height (0: the latest).
	State func(height int64) (sdk.Context, error)
	// Simulate runs tx bytes as the tx service's simulation does and gives the gas used.
	Simulate func(tx []byte) (uint64, error)
	// Broadcast puts tx bytes through CheckTx into the mempool; a refusal is its code and log.
	Broadcast func(ctx context.Context, tx []byte) (code uint32, log string, err error)
}

// Gas estimation as minievm's: the simulated Cosmos gas times 1.4, plus 50,000 for what a
// simulation does not run (its default gas multiplier and StaticGasForCosmos).
var (
	gasMultiplier = sdkmath.LegacyMustNewDecFromStr("1.4")
)

const staticGasForCosmos = 50_000

// callGasCap bounds an eth_call's gas: go-ethereum's default RPC gas cap.
const callGasCap = 50_000_000

// NewServer is the JSON-RPC server of the chain over the index (eth, net and web3).
func NewServer(c Chain, x *Index) (*rpc.Server, error) {
	s := rpc.NewServer()
	api := &ethAPI{c: c, x: x, pending: map[common.Address]uint64{}, sent: map[common.Hash]sentTx{}}
	for name, svc := range map[string]any{"eth": api, "net": netAPI{}, "web3": web3API{c.Version}, "txpool": txpoolAPI{}} {
		if err := s.RegisterName(name, svc); err != nil {
			return nil, fmt.Errorf("ethrpc: register %s: %w", name, err)
		}
	}
	return s, nil
}

type netAPI struct{}

// Version is minievm's net_version: 1, whatever the chain.
func (netAPI) Version() string { return "1" }

// Listening and PeerCount answer as a single-node minievm does.
func (netAPI) Listening() bool         { return true }
func (netAPI) PeerCount() hexutil.Uint { return 0 }

type web3API struct{ version string }

// ClientVersion is the CometBFT version, as a minievm reports it.
func (w web3API) ClientVersion() string { return w.version }

func (web3API) Sha3(input hexutil.Bytes) hexutil.Bytes { return crypto.Keccak256(input) }

// txpoolAPI is minievm's txpool namespace: the mempool seen through this server (it keeps
// no queue of its own: CometBFT's mempool holds the txs).
type txpoolAPI struct{}

func (txpoolAPI) Status() map[string]hexutil.Uint {
	return map[string]hexutil.Uint{"pending": 0, "queued": 0}
}

func (txpoolAPI) Content() map[string]map[string]map[string]any {
	return map[string]map[string]map[string]any{"pending": {}, "queued": {}}
}

type ethAPI struct {
	c Chain
	x *Index

	mu      sync.Mutex
	pending map[common.Address]uint64 // the next nonce past the txs taken into the mempool
	sent    map[common.Hash]sentTx    // txs taken into the mempool, for a minute, as minievm
	pruned  time.Time                 // when sent was last pruned

	filters filters
	feeds   feeds
}

func (e *ethAPI) ChainId() *hexutil.Big { return (*hexutil.Big)(xevm.EVMChainID(e.c.ChainID)) }

func (e *ethAPI) BlockNumber() hexutil.Uint64 { return hexutil.Uint64(e.x.Latest()) }

func (e *ethAPI) Syncing() bool { return false }

func (e *ethAPI) Mining() bool { return false }

func (e *ethAPI) Hashrate() hexutil.Uint64 { return 0 }

func (e *ethAPI) GetUncleCountByBlockNumber(rpc.BlockNumber) hexutil.Uint { return 0 }

func (e *ethAPI) GetUncleCountByBlockHash(common.Hash) hexutil.Uint { return 0 }

func (e *ethAPI) GetBlockTransactionCountByNumber(n rpc.BlockNumber) *hexutil.Uint {
	h, err := e.height(rpc.BlockNumberOrHashWithNumber(n))
	if err != nil {
		return nil
	}
	c := hexutil.Uint(len(e.x.TxsAt(h)))
	return &c
}

func (e *ethAPI) GetBlockTransactionCountByHash(hash common.Hash) *hexutil.Uint {
	h, ok := e.x.HeightOf(hash)
	if !ok {
		return nil
	}
	c := hexutil.Uint(len(e.x.TxsAt(h)))
	return &c
}

func (e *ethAPI) GasPrice() *hexutil.Big {
	return (*hexutil.Big)(e.c.MinGasPrice.TruncateInt().BigInt())
}

func (e *ethAPI) MaxPriorityFeePerGas() *hexutil.Big { return (*hexutil.Big)(big.NewInt(0)) }

// minievm's words for a block it cannot resolve.
var (
	errPastHead    = errors.New("requested height is greater than the latest block height")
	errBlockByHash = &rpcError{code: -32603, msg: "internal jsonrpc error: failed to get block number by hash"}
)

// rpcError is an error with its JSON-RPC code.
type rpcError struct {
	code int
	msg  string
}

func (e *rpcError) Error() string  { return e.msg }
func (e *rpcError) ErrorCode() int { return e.code }

// height resolves a block number or tag to an indexed height.
func (e *ethAPI) height(b rpc.BlockNumberOrHash) (uint64, error) {
	if hash, ok := b.Hash(); ok {
		h, found := e.x.HeightOf(hash)
		if !found {
			return 0, errBlockByHash
		}
		return h, nil
	}
	n, _ := b.Number()
	switch n {
	case rpc.LatestBlockNumber, rpc.PendingBlockNumber, rpc.SafeBlockNumber, rpc.FinalizedBlockNumber:
		return e.x.Latest(), nil
	case rpc.EarliestBlockNumber:
		return 1, nil
	}
	if n < 0 {
		return 0, fmt.Errorf("block number %d is not supported", n)
	}
	if n == 0 {
		return 1, nil // a minievm has no block 0: it answers its first block for it
	}
	if uint64(n) > e.x.Latest() {
		return 0, errPastHead
	}
	return uint64(n), nil
}

// state is the state at a block: the committed state at its height (the latest committed one
// for the newest block, which may be one behind the index, as on a minievm).
func (e *ethAPI) state(b rpc.BlockNumberOrHash) (sdk.Context, error) {
	h, err := e.height(b)
	if err != nil {
		return sdk.Context{}, err
	}
	if n, ok := b.Number(); ok && (n == rpc.LatestBlockNumber || n == rpc.PendingBlockNumber) {
		h = 0
	}
	return e.c.State(int64(h))
}

func (e *ethAPI) GetBalance(addr common.Address, b rpc.BlockNumberOrHash) (*hexutil.Big, error) {
	ctx, err := e.state(b)
	if err != nil {
		return nil, err
	}
	return (*hexutil.Big)(e.c.Keeper.Balance(ctx, addr).ToBig()), nil
}

func (e *ethAPI) GetTransactionCount(addr common.Address, b rpc.BlockNumberOrHash) (hexutil.Uint64, error) {
	ctx, err := e.state(b)
	if err != nil {
		return 0, err
	}
	n := e.c.Keeper.Nonce(ctx, addr)
	if tag, ok := b.Number(); ok && tag == rpc.PendingBlockNumber {
		e.mu.Lock()
		n = max(n, e.pending[addr])
		e.mu.Unlock()
	}
	return hexutil.Uint64(n), nil
}

func (e *ethAPI) GetCode(addr common.Address, b rpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	ctx, err := e.state(b)
	if err != nil {
		return nil, err
	}
	return e.c.Keeper.Code(ctx, addr), nil
}

func (e *ethAPI) GetStorageAt(addr common.Address, slot string, b rpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	ctx, err := e.state(b)
	if err != nil {
		return nil, err
	}
	v := e.c.Keeper.StorageAt(ctx, addr, common.HexToHash(slot))
	return v.Bytes(), nil
}

// callArgs are a call's or a tx's fields as clients send them.
type callArgs struct {
	From                 *common.Address   `json:"from"`
	To                   *common.Address   `json:"to"`
	Gas                  *hexutil.Uint64   `json:"gas"`
	GasPrice             *hexutil.Big      `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big      `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big      `json:"maxPriorityFeePerGas"`
	Value                *hexutil.Big      `json:"value"`
	Nonce                *hexutil.Uint64   `json:"nonce"`
	Data                 *hexutil.Bytes    `json:"data"`
	Input                *hexutil.Bytes    `json:"input"`
	AccessList           *types.AccessList `json:"accessList"`
}

func (a callArgs) data() []byte {
	if a.Input != nil {
		return *a.Input
	}
	if a.Data != nil {
		return *a.Data
	}
	return nil
}

func (a callArgs) value() (*uint256.Int, error) {
	if a.Value == nil {
		return uint256.NewInt(0), nil
	}
	v, overflow := uint256.FromBig(a.Value.ToInt())
	if overflow {
		return nil, errors.New("value above 2^256")
	}
	return v, nil
}

func (a callArgs) accessList() types.AccessList {
	if a.AccessList == nil {
		return nil
	}
	return *a.AccessList
}

func (e *ethAPI) Call(args callArgs, b *rpc.BlockNumberOrHash, overrides *json.RawMessage) (hexutil.Bytes, error) {
	if overrides != nil {
		return nil, errors.New("state overrides are not supported")
	}
	at := rpc.BlockNumberOrHashWithNumber(rpc.LatestBlockNumber)
	if b != nil {
		at = *b
	}
	ctx, err := e.state(at)
	if err != nil {
		return nil, err
	}
	value, err := args.value()
	if err != nil {
		return nil, err
	}
	from := common.Address{}
	if args.From != nil {
		from = *args.From
	}
	// A minievm runs eth_call as its Call query, under the query's gas meter (unbounded by
	// default) whatever gas the call names; here under go-ethereum's default RPC gas cap.
	ret, _, err := e.c.Keeper.Call(ctx, from, args.To, args.data(), value, args.accessList(), callGasCap)
	if err != nil {
		return nil, err
	}
	return ret, nil
}

func (e *ethAPI) EstimateGas(args callArgs, b *rpc.BlockNumberOrHash, overrides *json.RawMessage) (hexutil.Uint64, error) {
	if overrides != nil {
		return 0, errors.New("state overrides are not supported")
	}
	if args.From == nil {
		return 0, errors.New("from address cannot be empty in the estimated gas")
	}
	nonce := uint64(0)
	if args.Nonce != nil {
		nonce = uint64(*args.Nonce)
	} else {
		n, err := e.GetTransactionCount(*args.From, rpc.BlockNumberOrHashWithNumber(rpc.PendingBlockNumber))
		if err != nil {
			return 0, err
		}
		nonce = uint64(n)
	}
	sender, err := e.c.Addresses.BytesToString(args.From.Bytes())
	if err != nil {
		return 0, err
	}
	value := sdkmath.ZeroInt()
	if args.Value != nil {
		value = sdkmath.NewIntFromBigInt(args.Value.ToInt())
	}
	msg := xevm.Message(sender, args.To, args.data(), value, args.accessList())
	builder := e.c.TxConfig.NewTxBuilder()
	if err := builder.SetMsgs(msg); err != nil {
		return 0, err
	}
	if err := builder.SetSignatures(signing.SignatureV2{Data: &signing.SingleSignatureData{SignMode: xevm.SignModeEthereum}, Sequence: nonce}); err != nil {
		return 0, err
	}
	bz, err := e.c.TxConfig.TxEncoder()(builder.GetTx())
	if err != nil {
		return 0, err
	}
	used, err := e.c.Simulate(bz)
	if err != nil {
		return 0, err
	}
	return hexutil.Uint64(gasMultiplier.MulInt(sdkmath.NewIntFromUint64(used)).TruncateInt().Uint64() + staticGasForCosmos), nil
}

func (e *ethAPI) SendRawTransaction(ctx context.Context, raw hexutil.Bytes) (common.Hash, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return common.Hash{}, err
	}
	cosmosTx, err := xevm.CosmosTx(e.c.TxConfig, e.c.Addresses, e.c.ChainID, e.c.FeeDenom, tx)
	if err != nil {
		return common.Hash{}, err
	}
	// minievm's CheckTx wrapper refuses a sender with no account before the ante handler's
	// fee check would.
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	if err != nil {
		return common.Hash{}, err
	}
	if state, err := e.c.State(0); err == nil && !e.c.Keeper.HasAccount(state, from) {
		bech, _ := e.c.Addresses.BytesToString(from.Bytes())
		return common.Hash{}, fmt.Errorf("account %s does not exist: unknown address", bech)
	}
	bz, err := e.c.TxConfig.TxEncoder()(cosmosTx)
	if err != nil {
		return common.Hash{}, err
	}
	code, log, err := e.c.Broadcast(ctx, bz)
	if err != nil {
		return common.Hash{}, err
	}
	if code != 0 {
		return common.Hash{}, errors.New(log)
	}
	e.feeds.sent(tx)
	now := time.Now()
	e.mu.Lock()
	e.pending[from] = max(e.pending[from], tx.Nonce()+1)
	if now.Sub(e.pruned) > time.Second {
		for h, s := range e.sent {
			if now.Sub(s.at) > pendingTxTTL {
				delete(e.sent, h)
			}
		}
		e.pruned = now
	}
	e.sent[tx.Hash()] = sentTx{tx: tx, from: from, at: now}
	e.mu.Unlock()
	return tx.Hash(), nil
}

// pendingTxTTL is how long a tx taken into the mempool is served by hash before its block
// (minievm's pending-tx cache keeps one a minute).
const pendingTxTTL = time.Minute

// sentTx is a tx taken into the mempool.
type sentTx struct {
	tx   *types.Transaction
	from common.Address
	at   time.Time
}

// GetTransactionByHash serves an indexed tx, else one taken into the mempool in the last
// minute with no block (as minievm serves its pending txs), else null.
func (e *ethAPI) GetTransactionByHash(hash common.Hash) (map[string]any, error) {
	if t, ok := e.x.Tx(hash); ok {
		return txJSON(t, e.c.ChainID), nil
	}
	e.mu.Lock()
	s, ok := e.sent[hash]
	e.mu.Unlock()
	if !ok || time.Since(s.at) > pendingTxTTL {
		return nil, nil
	}
	return txJSON(&indexedTx{tx: s.tx, from: s.from}, e.c.ChainID), nil
}

func (e *ethAPI) GetTransactionReceipt(hash common.Hash) (map[string]any, error) {
	t, ok := e.x.Tx(hash)
	if !ok {
		return nil, nil
	}
	return receiptJSON(t), nil
}

func (e *ethAPI) GetBlockReceipts(b rpc.BlockNumberOrHash) ([]map[string]any, error) {
	h, err := e.height(b)
	if err != nil {
		return nil, nil
	}
	txs := e.x.TxsAt(h)
	out := make([]map[string]any, len(txs))
	for i, t := range txs {
		out[i] = receiptJSON(t)
	}
	return out, nil
}

func (e *ethAPI) GetBlockByNumber(n rpc.BlockNumber, full bool) (map[string]any, error) {
	h, err := e.height(rpc.BlockNumberOrHashWithNumber(n))
	if err != nil {
		return nil, nil
	}
	return e.blockJSON(h, full)
}

func (e *ethAPI) GetBlockByHash(hash common.Hash, full bool) (map[string]any, error) {
	h, ok := e.x.HeightOf(hash)
	if !ok {
		return nil, errBlockByHash
	}
	return e.blockJSON(h, full)
}

func (e *ethAPI) blockJSON(height uint64, full bool) (map[string]any, error) {
	h := e.x.Header(height)
	if h == nil {
		return nil, nil
	}
	txs := e.x.TxsAt(height)
	list := make([]any, len(txs))
	for i, t := range txs {
		if full {
			list[i] = txJSON(t, e.c.ChainID)
		} else {
			list[i] = t.tx.Hash()
		}
	}
	// The fields of a minievm's block: a London header with withdrawals, no blob, beacon or
	// request fields.
	return map[string]any{
		"baseFeePerGas": (*hexutil.Big)(h.BaseFee), "difficulty": (*hexutil.Big)(h.Difficulty), "extraData": hexutil.Bytes(h.Extra),
		"gasLimit": hexutil.Uint64(h.GasLimit), "gasUsed": hexutil.Uint64(h.GasUsed), "hash": h.Hash(), "logsBloom": h.Bloom,
		"miner": h.Coinbase, "mixHash": h.MixDigest, "nonce": h.Nonce, "number": (*hexutil.Big)(h.Number),
		"parentHash": h.ParentHash, "receiptsRoot": h.ReceiptHash, "sha3Uncles": h.UncleHash,
		"size": hexutil.Uint64(h.Size()), "stateRoot": h.Root, "timestamp": hexutil.Uint64(h.Time),
		"transactions": list, "transactionsRoot": h.TxHash, "uncles": []common.Hash{},
		"withdrawals": []any{}, "withdrawalsRoot": h.WithdrawalsHash,
	}, nil
}

func txJSON(t *indexedTx, chainID string) map[string]any {
	tx, r := t.tx, t.receipt
	v, rr, s := tx.RawSignatureValues()
	out := map[string]any{
		"blockHash": nil, "blockNumber": nil, "from": t.from,
		"gas": hexutil.Uint64(tx.Gas()), "gasPrice": (*hexutil.Big)(tx.GasFeeCap()), "hash": tx.Hash(),
		"input": hexutil.Bytes(tx.Data()), "nonce": hexutil.Uint64(tx.Nonce()), "to": tx.To(),
		"transactionIndex": nil, "value": (*hexutil.Big)(tx.Value()),
		"type": hexutil.Uint64(tx.Type()), "v": (*hexutil.Big)(v), "r": (*hexutil.Big)(rr), "s": (*hexutil.Big)(s),
		"chainId": (*hexutil.Big)(xevm.EVMChainID(chainID)),
	}
	if r != nil { // a pending tx has no block
		out["blockHash"], out["blockNumber"], out["transactionIndex"] = r.BlockHash, (*hexutil.Big)(r.BlockNumber), hexutil.Uint64(r.TransactionIndex)
	}
	if tx.Type() != types.LegacyTxType {
		out["accessList"] = tx.AccessList()
		out["yParity"] = hexutil.Uint64(v.Uint64())
	}
	// As minievm shows every tx: a legacy or access-list tx's caps are its gas price.
	out["maxFeePerGas"] = (*hexutil.Big)(tx.GasFeeCap())
	out["maxPriorityFeePerGas"] = (*hexutil.Big)(tx.GasTipCap())
	return out
}

func receiptJSON(t *indexedTx) map[string]any {
	r := t.receipt
	out := map[string]any{
		"blockHash": r.BlockHash, "blockNumber": (*hexutil.Big)(r.BlockNumber), "transactionHash": r.TxHash,
		"transactionIndex": hexutil.Uint64(r.TransactionIndex), "from": t.from, "to": t.tx.To(),
		"gasUsed": hexutil.Uint64(r.GasUsed), "cumulativeGasUsed": hexutil.Uint64(r.CumulativeGasUsed),
		"contractAddress": nil, "logs": rpcLogs(r.Logs), "logsBloom": r.Bloom, "type": hexutil.Uint(r.Type),
		"effectiveGasPrice": (*hexutil.Big)(r.EffectiveGasPrice), "status": hexutil.Uint(r.Status),
	}
	if r.ContractAddress != (common.Address{}) {
		out["contractAddress"] = r.ContractAddress
	}
	return out
}

// filterQuery is eth_getLogs' filter.
type filterQuery struct {
	BlockHash *common.Hash     `json:"blockHash"`
	FromBlock *rpc.BlockNumber `json:"fromBlock"`
	ToBlock   *rpc.BlockNumber `json:"toBlock"`
	Addresses json.RawMessage  `json:"address"`
	Topics    topicFilter      `json:"topics"`
}

// topicFilter is a log filter's topics: per position null (any), one hash, or a list of
// alternatives.
type topicFilter [][]common.Hash

func (f *topicFilter) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("topics: %w", err)
	}
	out := make(topicFilter, len(raw))
	for i, r := range raw {
		switch {
		case string(r) == "null":
		case len(r) > 0 && r[0] == '[':
			var alts []*common.Hash
			if err := json.Unmarshal(r, &alts); err != nil {
				return fmt.Errorf("topic %d: %w", i, err)
			}
			for _, h := range alts {
				if h != nil {
					out[i] = append(out[i], *h)
				}
			}
		default:
			var h common.Hash
			if err := json.Unmarshal(r, &h); err != nil {
				return fmt.Errorf("topic %d: %w", i, err)
			}
			out[i] = []common.Hash{h}
		}
	}
	*f = out
	return nil
}

// maxLogRange is minievm's limit of a log query's block range.
const maxLogRange = 1_000_000

// addresses are the filter's contract addresses (one or a list).
func (q filterQuery) addresses() ([]common.Address, error) {
	if len(q.Addresses) == 0 || string(q.Addresses) == "null" {
		return nil, nil
	}
	var one common.Address
	if err := json.Unmarshal(q.Addresses, &one); err == nil {
		return []common.Address{one}, nil
	}
	var list []common.Address
	if err := json.Unmarshal(q.Addresses, &list); err != nil {
		return nil, fmt.Errorf("invalid address filter: %w", err)
	}
	return list, nil
}

func (e *ethAPI) GetLogs(q filterQuery) ([]rpcLog, error) {
	latest := e.x.Latest()
	var from, to uint64
	if q.BlockHash != nil {
		h, ok := e.x.HeightOf(*q.BlockHash)
		if !ok {
			return nil, errors.New("unknown block")
		}
		from, to = h, h
	} else {
		resolve := func(b *rpc.BlockNumber, def uint64) uint64 {
			if b == nil || *b < 0 {
				return def
			}
			return uint64(*b)
		}
		from, to = resolve(q.FromBlock, latest), min(resolve(q.ToBlock, latest), latest)
		if q.FromBlock != nil && *q.FromBlock == rpc.EarliestBlockNumber {
			from = 1
		}
		if from > to && from <= latest {
			return nil, errors.New("invalid block range params")
		}
		if to-from > maxLogRange && from <= to {
			return nil, fmt.Errorf("exceed max block range %d", maxLogRange)
		}
	}
	return e.logsIn(q, from, to)
}

// logsIn are the logs of heights from..to (up to the index's latest) that match q.
func (e *ethAPI) logsIn(q filterQuery, from, to uint64) ([]rpcLog, error) {
	addrs, err := q.addresses()
	if err != nil {
		return nil, err
	}
	latest := e.x.Latest()
	logs := []rpcLog{}
	for h := from; h <= to && h <= latest; h++ {
		for _, t := range e.x.TxsAt(h) {
			for _, l := range t.receipt.Logs {
				if matches(l, addrs, q.Topics) {
					logs = append(logs, toRPCLog(l))
				}
			}
		}
	}
	return logs, nil
}

func matches(l *types.Log, addrs []common.Address, topics [][]common.Hash) bool {
	if len(addrs) > 0 {
		found := false
		for _, a := range addrs {
			found = found || a == l.Address
		}
		if !found {
			return false
		}
	}
	if len(topics) > len(l.Topics) {
		return false
	}
	for i, alts := range topics {
		if len(alts) == 0 {
			continue
		}
		found := false
		for _, t := range alts {
			found = found || t == l.Topics[i]
		}
		if !found {
			return false
		}
	}
	return true
}

// rpcLog is a log as minievm shows it (go-ethereum 1.15's fields: no block timestamp).
type rpcLog struct {
	Address     common.Address `json:"address"`
	Topics      []common.Hash  `json:"topics"`
	Data        hexutil.Bytes  `json:"data"`
	BlockNumber hexutil.Uint64 `json:"blockNumber"`
	TxHash      common.Hash    `json:"transactionHash"`
	TxIndex     hexutil.Uint   `json:"transactionIndex"`
	BlockHash   common.Hash    `json:"blockHash"`
	Index       hexutil.Uint   `json:"logIndex"`
	Removed     bool           `json:"removed"`
}

func toRPCLog(l *types.Log) rpcLog {
	topics := l.Topics
	if topics == nil {
		topics = []common.Hash{}
	}
	return rpcLog{Address: l.Address, Topics: topics, Data: l.Data, BlockNumber: hexutil.Uint64(l.BlockNumber), TxHash: l.TxHash,
		TxIndex: hexutil.Uint(l.TxIndex), BlockHash: l.BlockHash, Index: hexutil.Uint(l.Index), Removed: l.Removed}
}

func rpcLogs(logs []*types.Log) []rpcLog {
	out := make([]rpcLog, len(logs))
	for i, l := range logs {
		out[i] = toRPCLog(l)
	}
	return out
}
