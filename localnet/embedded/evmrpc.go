package embedded

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/vipharness/vipharness/bindings/ethnode"
	"github.com/vipharness/vipharness/localnet/evmrest"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
)

// The fee rules of the embedded EVM rollup, as a minievm applies them.
//
// A minievm charges an EVM tx as a Cosmos tx: its fee is its gas price (the fee cap of an
// EIP-1559 tx) times its gas, and the ante handler takes any tx whose gas price meets the
// opchild minimum gas price, whatever its tip. Its blocks report that minimum as their base
// fee, eth_gasPrice answers it and eth_maxPriorityFeePerGas answers 0.
//
// Here the EVM is go-ethereum's, whose consensus rule would move the base fee with every
// block (down by up to 1/8 when a block uses less than half its gas limit). The sealer keeps
// every block's base fee at the genesis one instead, which is the minimum gas price, as a
// minievm's blocks show it; eth_feeHistory reports it for the next block too. So
//   - every tx that meets the minimum is executable (its fee cap covers the base fee) and,
//     with the miner taking any tip from 0, mined in the next block;
//   - the fee caps wallets derive from the head meet it, as they do on a minievm (ethers and
//     Hardhat: 2 x base fee + eth_maxPriorityFeePerGas; viem: 1.2 x base fee + the same;
//     Foundry: 2 x the fee history's next base fee + its tip);
//
// and a tx below it is refused at send, in minievm's words, instead of waiting in the pool.
const (
	// EVMMinGasPrice is the embedded EVM rollup's minimum gas price (wei): eth_gasPrice, the
	// opchild min_gas_prices and the node's minimum-gas-price of its Cosmos face.
	EVMMinGasPrice = 14
	// EVMBaseFee is the base fee (wei) of every block of the embedded EVM rollup: the
	// minimum gas price, as on a minievm.
	EVMBaseFee = EVMMinGasPrice
)

// txAPI is the part of go-ethereum's eth TransactionAPI the minievm face wraps.
type txAPI interface {
	SendRawTransaction(ctx context.Context, input hexutil.Bytes) (common.Hash, error)
	SendRawTransactionSync(ctx context.Context, input hexutil.Bytes, timeoutMs *uint64) (map[string]interface{}, error)
	GetTransactionReceipt(ctx context.Context, hash common.Hash) (map[string]interface{}, error)
}

// minievmAPI answers the eth methods where a minievm differs from go-ethereum; registered
// after the eth service's own APIs, its methods replace theirs on HTTP and WebSocket alike.
type minievmAPI struct {
	tx txAPI
	// geth answers the calls minievm checks first and then runs as geth does (eth_estimateGas).
	geth        *rpc.Client
	minGasPrice *big.Int
	// sealed answers receipts of the newest blocks without reading them back (sealedReceipts).
	sealed *sealedReceipts
	chain  *core.BlockChain
	pool   *txpool.TxPool
	signer types.Signer
	// lag makes state reads at "latest" see the head's parent for a while (WithReadLag).
	lag *lagClock
	// filters is the filter service (minievm's limits), whose log answers GetLogs,
	// GetFilterLogs and GetFilterChanges shadow; events feeds the log subscriptions.
	filters *filters.FilterAPI
	events  *filters.EventSystem
}

func newMinievmAPI(backend *eth.Ethereum, geth *rpc.Client, minGasPrice *big.Int, sealed *sealedReceipts) (*minievmAPI, error) {
	for _, api := range backend.APIs() {
		if t, ok := api.Service.(txAPI); ok && api.Namespace == "eth" {
			bc := backend.BlockChain()
			return &minievmAPI{tx: t, geth: geth, minGasPrice: minGasPrice, sealed: sealed, chain: bc, pool: backend.TxPool(), signer: types.LatestSigner(bc.Config())}, nil
		}
	}
	return nil, errors.New("minievm json-rpc face: the eth service has no transaction API")
}

// GasPrice is the minimum gas price (minievm: the opchild min gas price of the fee denom).
func (a *minievmAPI) GasPrice() *hexutil.Big { return (*hexutil.Big)(new(big.Int).Set(a.minGasPrice)) }

// MaxPriorityFeePerGas is 0: a tip buys nothing on a minievm.
func (a *minievmAPI) MaxPriorityFeePerGas() *hexutil.Big { return (*hexutil.Big)(new(big.Int)) }

// Syncing is false: the chain is its own only node (geth would report its tx indexer's
// progress as sync progress on a fresh chain).
func (a *minievmAPI) Syncing() bool { return false }

// EstimateGas estimates as minievm does: from a fee payer that has an account, as a Cosmos
// simulation needs one. Without "from" it refuses ("from address cannot be empty in the
// estimated gas"); from an address with no account it refuses in minievm's words, which
// print the address's 20 bytes as text ("fee payer address: <bytes> does not exist: unknown
// address"; as a real minievm v1.2.18 answers). Otherwise geth estimates.
func (a *minievmAPI) EstimateGas(ctx context.Context, args json.RawMessage, block, overrides, blockOverrides *json.RawMessage) (hexutil.Uint64, error) {
	var call struct {
		From *common.Address `json:"from"`
	}
	if err := json.Unmarshal(args, &call); err != nil {
		return 0, fmt.Errorf("invalid argument 0: %w", err)
	}
	if call.From == nil {
		return 0, errors.New("from address cannot be empty in the estimated gas")
	}
	st, err := a.chain.State()
	if err != nil {
		return 0, fmt.Errorf("read the state: %w", err)
	}
	if !st.Exist(*call.From) {
		return 0, fmt.Errorf("fee payer address: %s does not exist: unknown address", string(call.From.Bytes()))
	}
	params := []any{args, a.stateBlock(block), overrides, withBlobBaseFee(blockOverrides)}
	var gas hexutil.Uint64
	if err = a.geth.CallContext(ctx, &gas, "eth_estimateGas", params...); err != nil {
		if rev, ok := asRevert(err); ok {
			// minievm simulates the call as a Cosmos tx, and the SDK words the failure.
			return 0, fmt.Errorf("failed to execute message; message index: 0: %w", rev)
		}
	}
	return gas, err
}

// Call runs a call as minievm's eth_call does: state and block overrides are refused, and a
// revert answers -32000 "Reverted" without the revert data (an Error(string) reason shows
// in the message, "revert: <reason>: Reverted"); otherwise geth runs it.
func (a *minievmAPI) Call(ctx context.Context, args json.RawMessage, block, overrides, blockOverrides *json.RawMessage) (hexutil.Bytes, error) {
	if overrides != nil && !emptyJSON(*overrides) {
		return nil, errors.New("state overrides are not supported")
	}
	if blockOverrides != nil && !emptyJSON(*blockOverrides) {
		return nil, errors.New("block overrides are not supported")
	}
	if err := a.stateAt(block); err != nil {
		return nil, err
	}
	params := []any{args, a.stateBlock(block), nil, withBlobBaseFee(nil)}
	var out hexutil.Bytes
	if err := a.geth.CallContext(ctx, &out, "eth_call", params...); err != nil {
		if rev, ok := asRevert(err); ok {
			return nil, rev
		}
		return nil, err
	}
	return out, nil
}

// GetBlockByNumber answers as minievm's does (jsonrpc/backend's resolveBlockNr): block 0,
// which a minievm does not have, is block 1, and every named block (latest, pending, safe,
// finalized, earliest) is the latest; its txs, when full, as minievm's (minievmTx).
func (a *minievmAPI) GetBlockByNumber(ctx context.Context, number rpc.BlockNumber, fullTx bool) (json.RawMessage, error) {
	switch {
	case number == 0:
		number = 1
	case number < 0:
		number = rpc.LatestBlockNumber
	}
	return a.block(ctx, "eth_getBlockByNumber", number, fullTx)
}

// GetBlockByHash is geth's, its txs, when full, as minievm's (minievmTx); an unknown hash is
// minievm's internal error, not null.
func (a *minievmAPI) GetBlockByHash(ctx context.Context, hash common.Hash, fullTx bool) (json.RawMessage, error) {
	if a.chain.GetHeaderByHash(hash) == nil {
		return nil, errUnknownBlockHash
	}
	return a.block(ctx, "eth_getBlockByHash", hash, fullTx)
}

func (a *minievmAPI) block(ctx context.Context, method string, which any, fullTx bool) (json.RawMessage, error) {
	var block map[string]json.RawMessage
	if err := a.geth.CallContext(ctx, &block, method, which, fullTx); err != nil || block == nil {
		return json.RawMessage("null"), err
	}
	if fullTx {
		var txs []json.RawMessage
		if json.Unmarshal(block["transactions"], &txs) == nil {
			for i := range txs {
				txs[i] = minievmTx(txs[i])
			}
			block["transactions"], _ = json.Marshal(txs)
		}
	}
	return json.Marshal(block)
}

// GetTransactionByHash is geth's, as minievm's tx object (minievmTx).
func (a *minievmAPI) GetTransactionByHash(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	return a.txObject(ctx, "eth_getTransactionByHash", hash)
}

// GetTransactionByBlockHashAndIndex is geth's, as minievm's tx object (minievmTx).
func (a *minievmAPI) GetTransactionByBlockHashAndIndex(ctx context.Context, hash common.Hash, index hexutil.Uint) (json.RawMessage, error) {
	return a.txObject(ctx, "eth_getTransactionByBlockHashAndIndex", hash, index)
}

// GetTransactionByBlockNumberAndIndex is geth's, as minievm's tx object (minievmTx).
func (a *minievmAPI) GetTransactionByBlockNumberAndIndex(ctx context.Context, number rpc.BlockNumber, index hexutil.Uint) (json.RawMessage, error) {
	return a.txObject(ctx, "eth_getTransactionByBlockNumberAndIndex", number, index)
}

func (a *minievmAPI) txObject(ctx context.Context, method string, args ...any) (json.RawMessage, error) {
	var tx json.RawMessage
	if err := a.geth.CallContext(ctx, &tx, method, args...); err != nil {
		return nil, err
	}
	return minievmTx(tx), nil
}

// GetLogs is geth's (a scan of the range's blooms, as minievm's), its logs as minievm's:
// without geth's blockTimestamp.
func (a *minievmAPI) GetLogs(ctx context.Context, crit filters.FilterCriteria) (json.RawMessage, error) {
	if crit.BlockHash == nil {
		from, to, empty, err := a.logRange(crit.FromBlock, crit.ToBlock)
		if err != nil || empty {
			return json.RawMessage("[]"), err
		}
		crit.FromBlock, crit.ToBlock = from, to
	}
	return minievmLogs(a.filters.GetLogs(ctx, crit))
}

// filterMaxBlockRange is minievm's default json-rpc.filter-max-block-range.
const filterMaxBlockRange = 1_000_000

// logRange resolves eth_getLogs' block range as minievm's filter does: a range that runs
// backwards ("invalid block range params") or spans more than filterMaxBlockRange blocks
// ("block range exceeded ...") is refused; a tag (any negative number) is the head and 0 is
// block 1; a range that starts past the head is empty, and one that ends past it ends there
// (geth refuses both).
func (a *minievmAPI) logRange(fromBlock, toBlock *big.Int) (from, to *big.Int, empty bool, err error) {
	begin, end := rpc.LatestBlockNumber.Int64(), rpc.LatestBlockNumber.Int64()
	if fromBlock != nil {
		begin = fromBlock.Int64()
	}
	if toBlock != nil {
		end = toBlock.Int64()
	}
	if begin > 0 && end > 0 && begin > end {
		return nil, nil, false, errors.New("invalid block range params")
	}
	if end-begin+1 > filterMaxBlockRange {
		return nil, nil, false, fmt.Errorf("block range exceeded %d", filterMaxBlockRange)
	}
	head := a.chain.CurrentBlock().Number.Int64()
	resolve := func(n int64) int64 {
		switch {
		case n < 0:
			return head
		case n == 0:
			return 1
		}
		return n
	}
	begin, end = resolve(begin), resolve(end)
	if end < begin {
		return nil, nil, false, fmt.Errorf("invalid range [%d, %d]", begin, end)
	}
	if begin > head {
		return nil, nil, true, nil
	}
	return big.NewInt(begin), big.NewInt(min(end, head)), false, nil
}

// GetFilterLogs is geth's, its logs as minievm's (no blockTimestamp).
func (a *minievmAPI) GetFilterLogs(ctx context.Context, id rpc.ID) (json.RawMessage, error) {
	return minievmLogs(a.filters.GetFilterLogs(ctx, id))
}

// GetFilterChanges is geth's, its logs (of a log filter) as minievm's (no blockTimestamp).
func (a *minievmAPI) GetFilterChanges(id rpc.ID) (json.RawMessage, error) {
	return minievmLogs(a.filters.GetFilterChanges(id))
}

// Logs is eth_subscribe("logs") as minievm notifies: each matching log, one notification
// each, without geth's blockTimestamp.
func (a *minievmAPI) Logs(ctx context.Context, crit filters.FilterCriteria) (*rpc.Subscription, error) {
	notifier, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return &rpc.Subscription{}, rpc.ErrNotificationsUnsupported
	}
	matched := make(chan []*types.Log)
	logs, err := a.events.SubscribeLogs(ethereum.FilterQuery(crit), matched)
	if err != nil {
		return nil, err
	}
	sub := notifier.CreateSubscription()
	go func() {
		defer logs.Unsubscribe()
		for {
			select {
			case batch := <-matched:
				for _, l := range batch {
					if out, err := minievmLogs(l, nil); err == nil {
						_ = notifier.Notify(sub.ID, out)
					}
				}
			case <-sub.Err():
				return
			}
		}
	}()
	return sub, nil
}

// minievmLogs is a filter answer (logs, or hashes, or one log) in JSON, logs without geth's
// blockTimestamp.
func minievmLogs[T any](answer T, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(answer)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return json.Marshal(dropKey(out, "blockTimestamp"))
}

// GetBlockReceipts is geth's, its receipts' logs without geth's blockTimestamp.
func (a *minievmAPI) GetBlockReceipts(ctx context.Context, block json.RawMessage) (json.RawMessage, error) {
	return a.withoutBlockTimestamps(ctx, "eth_getBlockReceipts", block)
}

func (a *minievmAPI) withoutBlockTimestamps(ctx context.Context, method string, args ...any) (json.RawMessage, error) {
	var out any
	if err := a.geth.CallContext(ctx, &out, method, args...); err != nil {
		return nil, err
	}
	return json.Marshal(dropKey(out, "blockTimestamp"))
}

// dropKey removes key from every object in a decoded JSON value.
func dropKey(v any, key string) any {
	switch t := v.(type) {
	case map[string]any:
		delete(t, key)
		for k, e := range t {
			t[k] = dropKey(e, key)
		}
	case []any:
		for i, e := range t {
			t[i] = dropKey(e, key)
		}
	}
	return v
}

// minievmTx is a geth tx object as minievm's RPCTransaction shows it: no blockTimestamp
// (geth's addition), and maxFeePerGas and maxPriorityFeePerGas on every tx, a legacy or
// access-list one's its gas price (go-ethereum's GasFeeCap and GasTipCap of those types).
// Anything that is no tx object goes out as it is.
func minievmTx(raw json.RawMessage) json.RawMessage {
	var tx map[string]json.RawMessage
	if json.Unmarshal(raw, &tx) != nil || tx == nil {
		return raw
	}
	delete(tx, "blockTimestamp")
	for _, field := range []string{"maxFeePerGas", "maxPriorityFeePerGas"} {
		if _, ok := tx[field]; !ok && tx["gasPrice"] != nil {
			tx[field] = tx["gasPrice"]
		}
	}
	b, err := json.Marshal(tx)
	if err != nil {
		return raw
	}
	return b
}

// withBlobBaseFee gives geth's call and estimate minievm's BLOBBASEFEE, 0, unless the
// client's block overrides name one: the embedded chain's headers are Shanghai-shaped, with
// no excess blob gas for geth to derive it from (it would run the opcode on a nil fee).
func withBlobBaseFee(blockOverrides *json.RawMessage) json.RawMessage {
	if blockOverrides != nil && !emptyJSON(*blockOverrides) {
		return *blockOverrides
	}
	return json.RawMessage(`{"blobBaseFee":"0x0"}`)
}

// emptyJSON is a JSON null or {}.
func emptyJSON(b json.RawMessage) bool {
	t := strings.TrimSpace(string(b))
	return t == "" || t == "null" || strings.ReplaceAll(t, " ", "") == "{}"
}

// revertedError is a revert as minievm reports it: x/evm's ErrReverted ("Reverted", JSON-RPC
// code -32000), wrapped with the reason when the revert data is an Error(string) or a
// Panic(uint256); the data itself is not returned.
type revertedError struct{ reason string }

func (e *revertedError) Error() string {
	if e.reason == "" {
		return "Reverted"
	}
	return "revert: " + e.reason + ": Reverted"
}

// asRevert turns geth's revert error (code 3, "execution reverted", the data as hex) into
// minievm's.
func asRevert(err error) (*revertedError, bool) {
	var rpcErr rpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != 3 {
		return nil, false
	}
	rev := &revertedError{}
	var de rpc.DataError
	if errors.As(err, &de) {
		if s, ok := de.ErrorData().(string); ok {
			if data, derr := hexutil.Decode(s); derr == nil {
				if reason, uerr := abi.UnpackRevert(data); uerr == nil {
					rev.reason = reason
				}
			}
		}
	}
	return rev, true
}

// FeeHistory is geth's, but for the base fees (and blob base fees, 0 as on a minievm): geth fills the list from its blocks
// concurrently, and where it derives a block's base fee from the parent's by its own rule
// (always for the next block's, the list's last), the last writer wins. Here each block's is
// its header's and the next block's is the newest one's, as on a minievm, where every block
// shows the minimum gas price.
func (a *minievmAPI) FeeHistory(ctx context.Context, blockCount json.RawMessage, lastBlock json.RawMessage, rewardPercentiles *json.RawMessage) (map[string]json.RawMessage, error) {
	params := []any{blockCount, lastBlock}
	if rewardPercentiles != nil {
		params = append(params, *rewardPercentiles)
	}
	var res map[string]json.RawMessage
	if err := a.geth.CallContext(ctx, &res, "eth_feeHistory", params...); err != nil {
		return nil, err
	}
	var (
		oldest hexutil.Uint64
		fees   []*hexutil.Big
	)
	if json.Unmarshal(res["oldestBlock"], &oldest) != nil || json.Unmarshal(res["baseFeePerGas"], &fees) != nil || len(fees) < 2 {
		return res, nil
	}
	for i := range fees {
		n := uint64(oldest) + uint64(min(i, len(fees)-2))
		if h := a.chain.GetHeaderByNumber(n); h != nil && h.BaseFee != nil {
			fees[i] = (*hexutil.Big)(h.BaseFee)
		}
	}
	b, err := json.Marshal(fees)
	if err != nil {
		return nil, err
	}
	res["baseFeePerGas"] = b
	// A minievm has no blobs, and reports a blob base fee of 0 for each block and the next
	// one, and a blob gas used ratio of 0 for each block. The embedded chain's headers have
	// no blob fields (they are Shanghai-shaped), so geth reports neither.
	zeros := func(n int) json.RawMessage {
		b, _ := json.Marshal(slices.Repeat([]string{"0x0"}, n))
		return b
	}
	res["baseFeePerBlobGas"] = zeros(len(fees))
	ratios, _ := json.Marshal(slices.Repeat([]float64{0}, len(fees)-1))
	res["blobGasUsedRatio"] = ratios
	return res, nil
}

// SendRawTransaction refuses what a minievm refuses before its mempool takes a tx, in its
// order and words (checkTx), then hands the tx to the pool.
func (a *minievmAPI) SendRawTransaction(ctx context.Context, input hexutil.Bytes) (common.Hash, error) {
	if err := a.checkTx(ctx, input); err != nil {
		return common.Hash{}, err
	}
	return a.tx.SendRawTransaction(ctx, input)
}

// SendRawTransactionSync is SendRawTransaction that waits for the receipt (EIP-7966).
func (a *minievmAPI) SendRawTransactionSync(ctx context.Context, input hexutil.Bytes, timeoutMs *uint64) (map[string]interface{}, error) {
	if err := a.checkTx(ctx, input); err != nil {
		return nil, err
	}
	return a.tx.SendRawTransactionSync(ctx, input, timeoutMs)
}

// checkTx refuses a raw tx as a minievm does on its way to the mempool: the tx's conversion
// into a Cosmos tx recovers its sender under the chain's id (geth's words for another chain's
// id, with no "invalid sender" before them); its CheckTx finds the sender's account
// ("account <bech32> does not exist: unknown address") and refuses a nonce below the
// account's sequence, which counts the txs it already took (the SDK's sequence mismatch);
// then the ante's fee check (checkFee).
func (a *minievmAPI) checkTx(ctx context.Context, input hexutil.Bytes) error {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(input); err != nil {
		return err
	}
	if !tx.Protected() {
		return errors.New("only replay-protected (EIP-155) transactions allowed over RPC")
	}
	sender, err := types.Sender(a.signer, tx)
	if err != nil {
		return err
	}
	st, err := a.chain.State()
	if err != nil {
		return fmt.Errorf("read the state: %w", err)
	}
	if !st.Exist(sender) {
		addr, err := bech32.ConvertAndEncode(evmrest.Prefix, sender.Bytes())
		if err != nil {
			return err
		}
		return fmt.Errorf("account %s does not exist: unknown address", addr)
	}
	if pending := a.pool.Nonce(sender); tx.Nonce() < pending {
		// The same tx again is the pool's to answer ("already known" while it waits, which
		// a client resending it reads as sent).
		if a.pool.Has(tx.Hash()) {
			return nil
		}
		var known json.RawMessage
		if err := a.geth.CallContext(ctx, &known, "eth_getTransactionByHash", tx.Hash()); err == nil && !emptyJSON(known) {
			return nil
		}
		return fmt.Errorf("account sequence mismatch, expected %d, got %d: incorrect account sequence", pending, tx.Nonce())
	}
	return a.checkFee(tx)
}

// GetTransactionReceipt is null for a tx the chain has not mined, as on a minievm; geth
// answers an error instead while its tx indexer catches up with the head. The receipt is
// geth's, encoded here byte for byte as geth encodes it (encodeReceipt): a score chunk's
// receipt holds hundreds of logs, and geth's reflective encoding of each was the larger
// part of the chain's JSON-RPC work under a push.
func (a *minievmAPI) GetTransactionReceipt(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	if sb, i, ok := a.sealed.tx(hash); ok && a.chain.GetCanonicalHash(sb.block.NumberU64()) == sb.block.Hash() {
		return encodeReceipt(receiptFields(sb, i, a.signer))
	}
	rc, err := a.tx.GetTransactionReceipt(ctx, hash)
	if ethnode.IndexLagging(err) {
		return nil, nil
	}
	if err != nil || rc == nil {
		return nil, err
	}
	return encodeReceipt(rc)
}

// encodeReceipt encodes geth's receipt fields as encoding/json does (keys sorted), with the
// logs written directly in the field order of types.Log's generated MarshalJSON.
func encodeReceipt(fields map[string]interface{}) (json.RawMessage, error) {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf := make([]byte, 0, 1024)
	if logs, ok := fields["logs"].([]*types.Log); ok {
		buf = make([]byte, 0, 1024+len(logs)*700)
	}
	buf = append(buf, '{')
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendQuote(buf, k)
		buf = append(buf, ':')
		if logs, ok := fields[k].([]*types.Log); ok && k == "logs" {
			buf = appendLogs(buf, logs)
			continue
		}
		v, err := json.Marshal(fields[k])
		if err != nil {
			return nil, fmt.Errorf("encode receipt field %s: %w", k, err)
		}
		buf = append(buf, v...)
	}
	return append(buf, '}'), nil
}

func appendLogs(b []byte, logs []*types.Log) []byte {
	if logs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, l := range logs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"address":`...)
		b = appendHex(b, l.Address[:])
		b = append(b, `,"topics":`...)
		if l.Topics == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for j := range l.Topics {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendHex(b, l.Topics[j][:])
			}
			b = append(b, ']')
		}
		b = append(b, `,"data":`...)
		b = appendHex(b, l.Data)
		b = append(b, `,"blockNumber":`...)
		b = appendHexUint(b, l.BlockNumber)
		b = append(b, `,"transactionHash":`...)
		b = appendHex(b, l.TxHash[:])
		b = append(b, `,"transactionIndex":`...)
		b = appendHexUint(b, uint64(l.TxIndex))
		b = append(b, `,"blockHash":`...)
		b = appendHex(b, l.BlockHash[:])
		b = append(b, `,"logIndex":`...)
		b = appendHexUint(b, uint64(l.Index))
		b = append(b, `,"removed":`...)
		b = strconv.AppendBool(b, l.Removed)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendHex appends "0x..." in lower case, as hexutil.Bytes encodes.
func appendHex(b, v []byte) []byte {
	b = append(b, `"0x`...)
	b = hex.AppendEncode(b, v)
	return append(b, '"')
}

// appendHexUint appends a quantity as hexutil.Uint64 encodes it.
func appendHexUint(b []byte, v uint64) []byte {
	b = append(b, `"0x`...)
	b = strconv.AppendUint(b, v, 16)
	return append(b, '"')
}

// UnderpricedError is a tx refused at send because its gas price (the fee cap of an
// EIP-1559 tx) is below the chain's minimum gas price. A minievm turns the tx into a Cosmos
// tx whose fee is fee cap x gas limit (+1 against rounding, in the 18-decimal fee denom) and
// the SDK's fee check refuses it in its words, naming that fee and the one required.
type UnderpricedError struct {
	GasPrice, MinGasPrice *big.Int
	Gas                   uint64
}

func (e *UnderpricedError) Error() string {
	gas := new(big.Int).SetUint64(e.Gas)
	got := new(big.Int).Mul(e.GasPrice, gas)
	if got.Sign() > 0 {
		got.Add(got, common.Big1)
	}
	return fmt.Sprintf("insufficient fees; got: %s%s required: %s%s: insufficient fee",
		got, EVMFeeDenom, new(big.Int).Mul(e.MinGasPrice, gas), EVMFeeDenom)
}

// ErrorCode is the JSON-RPC error code minievm (and geth) give tx refusals.
func (e *UnderpricedError) ErrorCode() int { return -32000 }

func (a *minievmAPI) checkFee(tx *types.Transaction) error {
	if tx.GasFeeCap().Cmp(a.minGasPrice) < 0 {
		return &UnderpricedError{GasPrice: tx.GasFeeCap(), MinGasPrice: new(big.Int).Set(a.minGasPrice), Gas: tx.Gas()}
	}
	return nil
}

// stateAt refuses a state read at a block the chain does not have, as minievm's
// getQueryCtxWithHeight and blockNumberByHash do: a number past the head ("requested height
// is greater than the latest block height", geth's -32000) or an unknown hash
// (errUnknownBlockHash). A named block is always there.
func (a *minievmAPI) stateAt(block *json.RawMessage) error {
	if block == nil {
		return nil
	}
	var which rpc.BlockNumberOrHash
	if json.Unmarshal(*block, &which) != nil {
		return nil // geth answers the malformed argument
	}
	if hash, ok := which.Hash(); ok {
		if a.chain.GetHeaderByHash(hash) == nil {
			return errUnknownBlockHash
		}
		return nil
	}
	if n, ok := which.Number(); ok && n > 0 && uint64(n) > a.chain.CurrentBlock().Number.Uint64() {
		return errors.New("requested height is greater than the latest block height")
	}
	return nil
}

// internalError is minievm's InternalError: -32603, "internal jsonrpc error: <what>".
type internalError string

func (e internalError) Error() string { return "internal jsonrpc error: " + string(e) }
func (internalError) ErrorCode() int  { return -32603 }

// errUnknownBlockHash is minievm's answer to a block hash its indexer does not have.
const errUnknownBlockHash = internalError("failed to get block number by hash")
