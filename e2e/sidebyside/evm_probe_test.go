package sidebyside_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
)

// evmProbe is a probe of the EVM faces that needs more than one request.
func evmProbe(name string, ask func(ctx context.Context, r localnet.Rollup) (answer, error)) probe {
	return probe{name: name, vms: []vip.VM{vip.EVM}, ask: ask}
}

// upgrade asks url for a WebSocket upgrade (GET) and keeps the HTTP status.
func upgrade(ctx context.Context, url string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return answer{}, err
	}
	for k, v := range map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	resp.Body.Close()
	return answer{Status: resp.StatusCode}, nil
}

// post sends a JSON-RPC request as a plain HTTP POST and keeps the HTTP status.
func post(ctx context.Context, url string) (answer, error) {
	status, _, err := roundTrip(ctx, http.MethodPost, url, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
	return answer{Status: status}, err
}

// baseFeeIsGasPrice compares the latest block's base fee with eth_gasPrice (a minievm's
// blocks show its minimum gas price; viem and Hardhat derive their fee caps from it).
func baseFeeIsGasPrice(ctx context.Context, r localnet.Rollup) (answer, error) {
	c, err := ethclient.DialContext(ctx, r.Endpoints().JSONRPC)
	if err != nil {
		return answer{}, err
	}
	defer c.Close()
	price, err := c.SuggestGasPrice(ctx)
	if err != nil {
		return answer{}, err
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return answer{}, err
	}
	var hist struct {
		BaseFee     []string `json:"baseFeePerGas"`
		BlobBaseFee []string `json:"baseFeePerBlobGas"`
	}
	if err := c.Client().CallContext(ctx, &hist, "eth_feeHistory", "0x2", "latest", []float64{50}); err != nil {
		return answer{}, err
	}
	same := len(hist.BaseFee) >= 2 // a chain at its first block has one block to report, and the next
	for _, f := range hist.BaseFee {
		same = same && f == fmt.Sprintf("%#x", price)
	}
	noBlobFee := len(hist.BlobBaseFee) == len(hist.BaseFee)
	for _, f := range hist.BlobBaseFee {
		noBlobFee = noBlobFee && f == "0x0"
	}
	return answer{Value: fmt.Sprintf("head's base fee is eth_gasPrice: %v; the fee history's base fees (its blocks' and the next one's) are: %v; its blob base fees are 0: %v",
		head.BaseFee.Cmp(price) == 0, same, noBlobFee)}, nil
}

// transfer sends a plain transfer from the funded account at eth_gasPrice with the node's
// estimate, waits for its receipt and then a second, and reports its blocks (how many came
// after it, empty or not, and their time against the wall clock); with receipt, its gas
// and logs instead.
func transfer(receipt bool) func(ctx context.Context, r localnet.Rollup) (answer, error) {
	return func(ctx context.Context, r localnet.Rollup) (answer, error) {
		to := common.HexToAddress("0x00000000000000000000000000000000000000A1")
		c, tx, rc, err := sendFunded(ctx, r, &to, nil, func(nonce, gas uint64, _, price *big.Int) types.TxData {
			return &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: gas, To: &to, Value: big.NewInt(1)}
		})
		if err != nil {
			return answer{}, err
		}
		defer c.Close()
		if receipt {
			return answer{Value: fmt.Sprintf("status %d, estimate %d, gas used %d, %d logs", rc.Status, tx.Gas(), rc.GasUsed, len(rc.Logs))}, nil
		}
		time.Sleep(time.Second)
		wall := uint64(time.Now().Unix())
		head, err := c.BlockNumber(ctx)
		if err != nil {
			return answer{}, err
		}
		after, empty := 0, true
		for n := rc.BlockNumber.Uint64() + 1; n <= head; n++ {
			b, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(n))
			if err != nil {
				return answer{}, err
			}
			after++
			empty = empty && len(b.Transactions()) == 0
		}
		block, err := c.HeaderByNumber(ctx, rc.BlockNumber)
		if err != nil {
			return answer{}, err
		}
		onTime := block.Time <= wall && block.Time+3 >= wall
		return answer{Value: fmt.Sprintf("%d blocks after the tx's within a second, all empty: %v; the tx's block at the wall clock's time: %v", after, empty, onTime)}, nil
	}
}

var evmProbes = []probe{
	// The method set: go-ethereum's extras are missing on a minievm (viem takes a node's
	// eth_fillTransaction over its own fee estimate), minievm's own mining answers.
	jsonrpc("JSON-RPC eth_fillTransaction", "eth_fillTransaction", func(r localnet.Rollup) []any {
		return []any{map[string]any{"from": r.Funded()[0].Address, "to": fresh().Hex(), "value": "0x1"}}
	}, nil),
	jsonrpc("JSON-RPC eth_accounts", "eth_accounts", noParams, nil),
	jsonrpc("JSON-RPC eth_createAccessList", "eth_createAccessList", func(r localnet.Rollup) []any {
		return []any{map[string]any{"from": r.Funded()[0].Address, "to": fresh().Hex()}}
	}, nil),
	jsonrpc("JSON-RPC eth_blobBaseFee", "eth_blobBaseFee", noParams, nil),
	jsonrpc("JSON-RPC debug_setHead", "debug_setHead", func(localnet.Rollup) []any { return []any{"0x1"} }, nil),
	jsonrpc("JSON-RPC debug_traceCall", "debug_traceCall", func(localnet.Rollup) []any { return []any{map[string]any{"to": fresh().Hex()}, "latest"} }, nil),
	evmProbe("JSON-RPC web3_clientVersion is the CometBFT node's version", func(ctx context.Context, r localnet.Rollup) (answer, error) {
		c, err := ethclient.DialContext(ctx, r.Endpoints().JSONRPC)
		if err != nil {
			return answer{}, err
		}
		defer c.Close()
		var client string
		if err := c.Client().CallContext(ctx, &client, "web3_clientVersion"); err != nil {
			return answer{}, err
		}
		var status struct {
			Result struct {
				NodeInfo struct {
					Version string `json:"version"`
				} `json:"node_info"`
			} `json:"result"`
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.Endpoints().CometRPC+"/status", nil)
		if err != nil {
			return answer{}, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return answer{}, err
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&status); err != nil {
			return answer{}, err
		}
		return answer{Value: fmt.Sprintf("the same: %v", client == status.Result.NodeInfo.Version)}, nil
	}),
	evmProbe("JSON-RPC a transfer's tx, receipt and block shapes", transferShapes),
	evmProbe("JSON-RPC a dynamic-fee transfer's tx, receipt and block shapes", dynamicFeeShapes),
	evmProbe("JSON-RPC a log's shape in a receipt and in eth_getLogs", logShapes),
	evmProbe("JSON-RPC a log's shape in an eth_subscribe notification", logNotification),
	jsonrpc("JSON-RPC eth_hashrate", "eth_hashrate", noParams, func(v any) string { return fmt.Sprint(v) }),
	jsonrpc("JSON-RPC net_listening", "net_listening", noParams, func(v any) string { return fmt.Sprint(v) }),
	jsonrpc("JSON-RPC net_peerCount", "net_peerCount", noParams, func(v any) string { return fmt.Sprint(v) }),
	jsonrpc("JSON-RPC eth_syncing", "eth_syncing", noParams, func(v any) string { return fmt.Sprint(v) }),
	jsonrpc("JSON-RPC eth_protocolVersion", "eth_protocolVersion", noParams, nil),
	jsonrpc("JSON-RPC eth_coinbase", "eth_coinbase", noParams, nil),
	jsonrpc("JSON-RPC web3_sha3", "web3_sha3", func(localnet.Rollup) []any { return []any{"0x68656c6c6f"} }, func(v any) string { return fmt.Sprint(v) }),
	jsonrpc("JSON-RPC txpool_status", "txpool_status", noParams, nil),
	jsonrpc("JSON-RPC txpool_content", "txpool_content", noParams, nil),
	jsonrpc("JSON-RPC eth_getUncleCountByBlockNumber", "eth_getUncleCountByBlockNumber", func(localnet.Rollup) []any { return []any{"latest"} }, func(v any) string { return fmt.Sprint(v) }),
	jsonrpc("JSON-RPC eth_getBlockTransactionCountByNumber", "eth_getBlockTransactionCountByNumber", func(localnet.Rollup) []any { return []any{"0x1"} }, nil),
	jsonrpc("JSON-RPC eth_newPendingTransactionFilter", "eth_newPendingTransactionFilter", noParams, nil),
	jsonrpc("JSON-RPC eth_getTransactionByHash of an unknown tx", "eth_getTransactionByHash", func(localnet.Rollup) []any { return []any{"0x" + strings.Repeat("11", 32)} }, nil),
	jsonrpc("JSON-RPC eth_getBlockByHash of an unknown block", "eth_getBlockByHash", func(localnet.Rollup) []any { return []any{"0x" + strings.Repeat("11", 32), false} }, nil),
	jsonrpc("JSON-RPC eth_getBlockByNumber past the head", "eth_getBlockByNumber", func(localnet.Rollup) []any { return []any{"0xffffff", false} }, nil),
	jsonrpc("JSON-RPC eth_getCode of an empty account", "eth_getCode", func(localnet.Rollup) []any { return []any{fresh().Hex(), "latest"} }, func(v any) string { return fmt.Sprint(v) }),
	jsonrpc("JSON-RPC eth_getBalance at a block past the head", "eth_getBalance", func(localnet.Rollup) []any { return []any{fresh().Hex(), "0xffffff"} }, nil),
	jsonrpc("JSON-RPC eth_sendRawTransaction of garbage", "eth_sendRawTransaction", func(localnet.Rollup) []any { return []any{"0x1234"} }, nil),
	jsonrpc("JSON-RPC eth_mining", "eth_mining", noParams, func(v any) string { return fmt.Sprint(v) }),
	rest("REST bank balances of a 0x address", []vip.VM{vip.EVM}, func(r localnet.Rollup) string {
		return "/cosmos/bank/v1beta1/balances/" + common.HexToAddress(r.Funded()[0].Address).Hex()
	}, nil),
	rest("REST auth account of a 0x address", []vip.VM{vip.EVM}, func(r localnet.Rollup) string {
		return "/cosmos/auth/v1beta1/accounts/" + common.HexToAddress(r.Funded()[0].Address).Hex()
	}, nil),
	jsonrpc("JSON-RPC eth_call that reverts with a reason", "eth_call", func(localnet.Rollup) []any {
		return []any{map[string]any{"data": revertBoom}, "latest"}
	}, nil),
	jsonrpc("JSON-RPC eth_estimateGas that reverts", "eth_estimateGas", func(r localnet.Rollup) []any {
		return []any{map[string]any{"from": r.Funded()[0].Address, "data": "0x63deadbeef6000526004601cfd"}}
	}, nil),
	jsonrpc("JSON-RPC eth_feeHistory", "eth_feeHistory", func(localnet.Rollup) []any { return []any{"0x1", "latest", []any{50}} }, nil),
	evmProbe("JSON-RPC the base fee and fee history show eth_gasPrice", baseFeeIsGasPrice),
	evmProbe("JSON-RPC a WebSocket upgrade on the HTTP port", func(ctx context.Context, r localnet.Rollup) (answer, error) {
		return upgrade(ctx, r.Endpoints().JSONRPC)
	}),
	evmProbe("JSON-RPC a plain POST on the WebSocket port", func(ctx context.Context, r localnet.Rollup) (answer, error) {
		return post(ctx, "http"+strings.TrimPrefix(r.Endpoints().JSONRPCWS, "ws"))
	}),
	evmProbe("JSON-RPC a transfer's blocks", transfer(false)),
	evmProbe("JSON-RPC a transfer's gas and logs", transfer(true)),
	evmProbe("JSON-RPC a dynamic-fee transfer's price", dynamicFeePrice),
	evmSendRefusalsProbe,
	evmGasRefusalsProbe,
	evmProbe("JSON-RPC a tx sent again", sentAgain),
	evmProbe("JSON-RPC the prices a contract sees", pricesSeen),
}

// pricesSeen creates a contract whose init code stores GASPRICE and BASEFEE (a minievm's:
// the price the tx pays, and the chain's minimum gas price), then reports them beside the
// price sent and eth_gasPrice.
func pricesSeen(ctx context.Context, r localnet.Rollup) (answer, error) {
	// GASPRICE PUSH0 SSTORE BASEFEE PUSH1 1 SSTORE STOP
	initCode := common.FromHex("0x3a5f554860015500")
	c, tx, rc, err := sendFunded(ctx, r, nil, initCode, func(nonce, gas uint64, _, price *big.Int) types.TxData {
		return &types.LegacyTx{Nonce: nonce, GasPrice: new(big.Int).Mul(price, big.NewInt(2)), Gas: gas, Data: initCode}
	})
	if err != nil {
		return answer{}, err
	}
	defer c.Close()
	suggested, err := c.SuggestGasPrice(ctx)
	if err != nil {
		return answer{}, err
	}
	var seen [2]*big.Int
	for i := range seen {
		var v []byte
		err := afterTheLag(ctx, func() (err error) {
			v, err = c.StorageAt(ctx, rc.ContractAddress, common.BigToHash(big.NewInt(int64(i))), rc.BlockNumber)
			return err
		})
		if err != nil {
			return answer{}, err
		}
		seen[i] = new(big.Int).SetBytes(v)
	}
	return answer{Value: fmt.Sprintf("GASPRICE is the price sent: %v; BASEFEE is eth_gasPrice: %v, above zero: %v",
		seen[0].Cmp(tx.GasPrice()) == 0, seen[1].Cmp(suggested) == 0, seen[1].Sign() > 0)}, nil
}

// sentAgain sends a transfer, asks for it by hash at once (pending or in its block: known
// either way), sends the same bytes again at once and again after its receipt (a client's
// retry, vipctl's re-broadcast on resume), and reports each answer's code and words.
func sentAgain(ctx context.Context, r localnet.Rollup) (answer, error) {
	c, key, price, err := fundedSender(ctx, r)
	if err != nil {
		return answer{}, err
	}
	defer c.Close()
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := common.HexToAddress("0x00000000000000000000000000000000000000A3")
	nonce, chainID, gas, err := txParams(ctx, c, ethereumCall(from, to))
	if err != nil {
		return answer{}, err
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: gas, To: &to, Value: big.NewInt(1)})
	if err != nil {
		return answer{}, err
	}
	said := func(err error) string {
		if a, ok := sendAnswer(err); ok {
			return a
		}
		return "not a JSON-RPC answer: " + err.Error()
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		return answer{}, fmt.Errorf("the first send: %w", err)
	}
	_, _, lookErr := c.TransactionByHash(ctx, tx.Hash())
	again := said(c.SendTransaction(ctx, tx))
	for {
		if rc, _ := c.TransactionReceipt(ctx, tx.Hash()); rc != nil {
			break
		}
		select {
		case <-ctx.Done():
			return answer{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return answer{Value: fmt.Sprintf("known by hash at once: %v; sent again at once: %s; sent again after its receipt: %s",
		lookErr == nil, again, said(c.SendTransaction(ctx, tx)))}, nil
}

// dynamicFeePrice sends a type-2 transfer whose fee cap is 7 x eth_gasPrice with a tip of 1
// wei, and says which price the node reports (the tx's gasPrice, the receipt's
// effectiveGasPrice) and which it charged (the sender's balance less the value, per gas).
func dynamicFeePrice(ctx context.Context, r localnet.Rollup) (answer, error) {
	c, key, price, err := fundedSender(ctx, r)
	if err != nil {
		return answer{}, err
	}
	defer c.Close()
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := common.HexToAddress("0x00000000000000000000000000000000000000A2")
	feeCap := new(big.Int).Mul(price, big.NewInt(7))
	mk := func(nonce, gas uint64, chainID *big.Int) types.TxData {
		return &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: feeCap, Gas: gas, To: &to, Value: big.NewInt(1)}
	}
	before, err := c.BalanceAt(ctx, from, nil)
	if err != nil {
		return answer{}, err
	}
	tx, rc, err := sendAndWait(ctx, c, key, ethereumCall(from, to), mk)
	if err != nil {
		return answer{}, err
	}
	// The read-after-commit lag: the balance is read at the receipt's block.
	var after *big.Int
	err = afterTheLag(ctx, func() (err error) {
		after, err = c.BalanceAt(ctx, from, rc.BlockNumber)
		return err
	})
	if err != nil {
		return answer{}, err
	}
	var reported struct {
		GasPrice string `json:"gasPrice"`
	}
	if err := c.Client().CallContext(ctx, &reported, "eth_getTransactionByHash", tx.Hash()); err != nil {
		return answer{}, err
	}
	paid := new(big.Int).Sub(before, after)
	paid.Sub(paid, big.NewInt(1))
	charged := new(big.Int).Div(paid, new(big.Int).SetUint64(rc.GasUsed))
	reportedPrice, _ := new(big.Int).SetString(strings.TrimPrefix(reported.GasPrice, "0x"), 16)
	return answer{Value: fmt.Sprintf("gasPrice is the fee cap: %v; effectiveGasPrice is the fee cap: %v; charged at the fee cap: %v; charged at the minimum + tip: %v",
		reportedPrice != nil && reportedPrice.Cmp(feeCap) == 0, rc.EffectiveGasPrice != nil && rc.EffectiveGasPrice.Cmp(feeCap) == 0,
		charged.Cmp(feeCap) == 0, charged.Cmp(new(big.Int).Add(price, big.NewInt(1))) == 0)}, nil
}

// afterTheLag runs read (a read at a receipt's block) until its block's state can be
// queried: a minievm, and ours as one, makes a receipt known before the block's state
// commits, and a read at its height is refused as "in the future" until then.
func afterTheLag(ctx context.Context, read func() error) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		err := read()
		if err == nil || !strings.Contains(err.Error(), "height in the future") {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (still after %v)", err, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// fundedSender dials r's JSON-RPC and returns the client, the key of r's first funded
// account and the node's gas price.
func fundedSender(ctx context.Context, r localnet.Rollup) (*ethclient.Client, *ecdsa.PrivateKey, *big.Int, error) {
	c, err := ethclient.DialContext(ctx, r.Endpoints().JSONRPC)
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	if err == nil {
		var price *big.Int
		if price, err = c.SuggestGasPrice(ctx); err == nil {
			return c, key, price, nil
		}
	}
	c.Close()
	return nil, nil, nil, err
}

// sendAndWait signs the tx mk makes (nonce, estimated gas, chain id) from key, sends it and
// waits for its receipt.
func sendAndWait(ctx context.Context, c *ethclient.Client, key *ecdsa.PrivateKey, call ethereum.CallMsg,
	mk func(nonce, gas uint64, chainID *big.Int) types.TxData) (*types.Transaction, *types.Receipt, error) {
	nonce, chainID, gas, err := txParams(ctx, c, call)
	if err != nil {
		return nil, nil, err
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), mk(nonce, gas, chainID))
	if err != nil {
		return nil, nil, err
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		return nil, nil, err
	}
	for {
		if rc, _ := c.TransactionReceipt(ctx, tx.Hash()); rc != nil {
			return tx, rc, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// txParams are what a client asks before it signs call as a tx: call.From's pending nonce,
// the chain id and the estimated gas.
func txParams(ctx context.Context, c *ethclient.Client, call ethereum.CallMsg) (nonce uint64, chainID *big.Int, gas uint64, err error) {
	if nonce, err = c.PendingNonceAt(ctx, call.From); err != nil {
		return 0, nil, 0, err
	}
	if chainID, err = c.ChainID(ctx); err != nil {
		return 0, nil, 0, err
	}
	if gas, err = c.EstimateGas(ctx, call); err != nil {
		return 0, nil, 0, err
	}
	return nonce, chainID, gas, nil
}

// sendAnswer is how a node answered a send: "taken", or its JSON-RPC code and words
// (figures and addresses masked); false when the error is not a JSON-RPC answer.
func sendAnswer(err error) (string, bool) {
	var rpcErr gethrpc.Error
	switch {
	case err == nil:
		return "taken", true
	case errors.As(err, &rpcErr):
		return fmt.Sprintf("code %d %q", rpcErr.ErrorCode(), masked(rpcErr.Error())), true
	}
	return "", false
}

// revertBoom is init code that reverts with Error("boom").
const revertBoom = "0x6064600c60003960646000fd08c379a0" +
	"0000000000000000000000000000000000000000000000000000000000000020" +
	"0000000000000000000000000000000000000000000000000000000000000004" +
	"626f6f6d00000000000000000000000000000000000000000000000000000000"

func ethereumCall(from, to common.Address) ethereum.CallMsg {
	return ethereum.CallMsg{From: from, To: &to, Value: big.NewInt(1)}
}

// transferShapes sends a plain transfer and reports the shapes of what a client reads of it:
// the tx object, its receipt, the tx in its block (full) and its block's receipts (its logs,
// the fee token's on a minievm, are "a transfer's gas and logs").
func transferShapes(ctx context.Context, r localnet.Rollup) (answer, error) {
	to := shapesRecipient
	return sentShapes(ctx, r, func(nonce, gas uint64, _, price *big.Int) types.TxData {
		return &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: gas, To: &to, Value: big.NewInt(1)}
	})
}

var shapesRecipient = common.HexToAddress("0x00000000000000000000000000000000000000A2")

// dynamicFeeShapes is transferShapes for a dynamic-fee (type-2) transfer at twice the
// minimum, with a tip of 1.
func dynamicFeeShapes(ctx context.Context, r localnet.Rollup) (answer, error) {
	to := shapesRecipient
	return sentShapes(ctx, r, func(nonce, gas uint64, chainID, price *big.Int) types.TxData {
		return &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasFeeCap: new(big.Int).Mul(price, big.NewInt(2)), GasTipCap: big.NewInt(1),
			Gas: gas, To: &to, Value: big.NewInt(1)}
	})
}

func sentShapes(ctx context.Context, r localnet.Rollup, mk func(nonce, gas uint64, chainID, price *big.Int) types.TxData) (answer, error) {
	to := shapesRecipient
	c, tx, rc, err := sendFunded(ctx, r, &to, nil, mk)
	if err != nil {
		return answer{}, err
	}
	defer c.Close()
	var txObj, receipt, block map[string]any
	var receipts []map[string]any
	rpc := c.Client()
	for _, call := range []struct {
		out    any
		method string
		args   []any
	}{
		{&txObj, "eth_getTransactionByHash", []any{tx.Hash()}},
		{&receipt, "eth_getTransactionReceipt", []any{tx.Hash()}},
		{&block, "eth_getBlockByNumber", []any{hexutilBig(rc.BlockNumber), true}},
		{&receipts, "eth_getBlockReceipts", []any{hexutilBig(rc.BlockNumber)}},
	} {
		if err := rpc.CallContext(ctx, call.out, call.method, call.args...); err != nil {
			return answer{Message: head(err.Error())}, nil
		}
	}
	var inBlock any
	if txs, _ := block["transactions"].([]any); len(txs) > 0 {
		inBlock = txs[0]
	}
	var firstReceipt any
	if len(receipts) > 0 {
		firstReceipt = receipts[0]
	}
	return answer{Value: fmt.Sprintf("tx %s; receipt %s; in its block %s; block receipts %s",
		shape(txObj), shape(receipt), shape(inBlock), shape(firstReceipt))}, nil
}

func hexutilBig(n *big.Int) string { return fmt.Sprintf("%#x", n) }

// logShapes deploys a contract whose creation logs once (PUSH32 topic, PUSH1 0, PUSH1 0,
// LOG1, STOP) and reports the shape of that log in the receipt (the last log: a minievm's
// receipt holds the fee token's first), in eth_getLogs by the contract's address, and how
// many eth_getLogs finds.
func logShapes(ctx context.Context, r localnet.Rollup) (answer, error) {
	code := common.FromHex("0x7f" + strings.Repeat("ab", 32) + "60006000a100")
	c, tx, rc, err := sendFunded(ctx, r, nil, code, func(nonce, gas uint64, _, price *big.Int) types.TxData {
		return &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: gas, Data: code}
	})
	if err != nil {
		return answer{}, err
	}
	defer c.Close()
	var receipt map[string]any
	if err := c.Client().CallContext(ctx, &receipt, "eth_getTransactionReceipt", tx.Hash()); err != nil {
		return answer{Message: head(err.Error())}, nil
	}
	var inReceipt any
	if logs, _ := receipt["logs"].([]any); len(logs) > 0 {
		inReceipt = logs[len(logs)-1]
	}
	var found []any
	filter := map[string]any{"fromBlock": hexutilBig(rc.BlockNumber), "toBlock": hexutilBig(rc.BlockNumber), "address": rc.ContractAddress}
	if err := c.Client().CallContext(ctx, &found, "eth_getLogs", filter); err != nil {
		return answer{Message: head(err.Error())}, nil
	}
	var byFilter any
	if len(found) > 0 {
		byFilter = found[0]
	}
	return answer{Value: fmt.Sprintf("in the receipt %s; eth_getLogs finds %d, %s", shape(inReceipt), len(found), shape(byFilter))}, nil
}

// logNotification subscribes to logs of one topic over WebSocket, sends the creation that
// logs it, and reads the notification: its shape.
func logNotification(ctx context.Context, r localnet.Rollup) (answer, error) {
	ws := r.Endpoints().JSONRPCWS
	if ws == "" {
		return answer{Message: "no WebSocket endpoint"}, nil
	}
	sub, err := gethrpc.DialContext(ctx, ws)
	if err != nil {
		return answer{}, err
	}
	defer sub.Close()
	topic := "0x" + strings.Repeat("ab", 32)
	notes := make(chan json.RawMessage, 4)
	s, err := sub.EthSubscribe(ctx, notes, "logs", map[string]any{"topics": []any{topic}})
	if err != nil {
		return answer{Message: head(err.Error())}, nil
	}
	defer s.Unsubscribe()
	code := common.FromHex("0x7f" + topic[2:] + "60006000a100")
	c, _, _, err := sendFunded(ctx, r, nil, code, func(nonce, gas uint64, _, price *big.Int) types.TxData {
		return &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: gas, Data: code}
	})
	if err != nil {
		return answer{}, err
	}
	c.Close()
	select {
	case n := <-notes:
		var v any
		if err := json.Unmarshal(n, &v); err != nil {
			return answer{}, err
		}
		return answer{Value: "notified: " + shape(v)}, nil
	case err := <-s.Err():
		return answer{Message: fmt.Sprint(err)}, nil
	case <-ctx.Done():
		return answer{Value: "no notification"}, nil
	}
}

// sendFunded sends mk's tx (to, or a creation with data when to is nil; estimated as a call
// of value 1 to to) from the rollup's funded account at eth_gasPrice, and waits for its
// receipt; the caller reads on with the client and closes it.
func sendFunded(ctx context.Context, r localnet.Rollup, to *common.Address, data []byte,
	mk func(nonce, gas uint64, chainID, price *big.Int) types.TxData) (*ethclient.Client, *types.Transaction, *types.Receipt, error) {
	c, key, price, err := fundedSender(ctx, r)
	if err != nil {
		return nil, nil, nil, err
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	call := ethereum.CallMsg{From: from, Data: data}
	if to != nil {
		call = ethereumCall(from, *to)
	}
	tx, rc, err := sendAndWait(ctx, c, key, call, func(nonce, gas uint64, chainID *big.Int) types.TxData {
		return mk(nonce, gas, chainID, price)
	})
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	return c, tx, rc, nil
}
