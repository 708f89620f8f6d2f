package embedded

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	gethpebble "github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
)

// evmSender signs and sends txs from the rollup's funded account, one nonce after another.
type evmSender struct {
	t       *testing.T
	c       *ethclient.Client
	key     *ecdsa.PrivateKey
	chainID *big.Int
	nonce   uint64
}

func newSender(t *testing.T, r *GethRollup) *evmSender {
	t.Helper()
	c, err := ethclient.Dial(r.Endpoints().JSONRPC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	key, err := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return &evmSender{t: t, c: c, key: key, chainID: r.chainID}
}

// send signs inner with the next nonce and sends it; a refused tx does not use the nonce.
func (s *evmSender) send(ctx context.Context, inner types.TxData) (*types.Transaction, error) {
	switch tx := inner.(type) {
	case *types.DynamicFeeTx:
		tx.Nonce, tx.ChainID = s.nonce, s.chainID
	case *types.LegacyTx:
		tx.Nonce = s.nonce
	}
	tx, err := types.SignNewTx(s.key, types.LatestSignerForChainID(s.chainID), inner)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.c.SendTransaction(ctx, tx); err != nil {
		return nil, err
	}
	s.nonce++
	return tx, nil
}

// mined waits for tx's receipt.
func (s *evmSender) mined(ctx context.Context, tx *types.Transaction) *types.Receipt {
	s.t.Helper()
	for {
		rc, err := s.c.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			return rc
		}
		if !errors.Is(err, ethereum.NotFound) {
			s.t.Fatalf("receipt of %s: %v", tx.Hash(), err)
		}
		select {
		case <-ctx.Done():
			s.t.Fatalf("tx %s (fee cap %s, tip %s) not mined: %v", tx.Hash(), tx.GasFeeCap(), tx.GasTipCap(), ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

var sink = common.HexToAddress("0x00000000000000000000000000000000000000bb")

func transfer(feeCap, tip int64) *types.DynamicFeeTx {
	return &types.DynamicFeeTx{GasFeeCap: big.NewInt(feeCap), GasTipCap: big.NewInt(tip), Gas: 21_000, To: &sink, Value: big.NewInt(1)}
}

// The fee rules a minievm applies: eth_gasPrice is the minimum gas price, the tip suggestion
// is 0, a tx that meets the minimum is mined whatever its tip (none, Foundry's 1 wei, a
// large one; legacy or EIP-1559), one below it is refused at send naming both fees; the
// base fee never moves, also in the fee history, and an empty block only follows one with txs.
func TestEVMFeeRulesAreMinievms(t *testing.T) {
	r := startEVM(t)
	s := newSender(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	price, err := s.c.SuggestGasPrice(ctx)
	if err != nil || price.Int64() != EVMMinGasPrice {
		t.Fatalf("eth_gasPrice = %v, %v; want the minimum gas price %d", price, err, EVMMinGasPrice)
	}
	tip, err := s.c.SuggestGasTipCap(ctx)
	if err != nil || tip.Sign() != 0 {
		t.Fatalf("eth_maxPriorityFeePerGas = %v, %v; want 0", tip, err)
	}
	head, err := s.c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// What wallets derive from the head: ethers 2 x base fee + 0; Foundry 2 x base fee + 1 wei.
	ethers, foundry := 2*head.BaseFee.Int64(), 2*head.BaseFee.Int64()+1
	for _, tc := range []struct {
		name string
		tx   types.TxData
	}{
		{"ethers' defaults", transfer(ethers, 0)},
		{"Foundry's 1 wei tip", transfer(foundry, 1)},
		{"the minimum, no tip", transfer(EVMMinGasPrice, 0)},
		{"a tip as large as the fee cap", transfer(EVMMinGasPrice, EVMMinGasPrice)},
		{"a large fee cap and tip", transfer(1_000_000_000, 1_000_000)},
		{"legacy at eth_gasPrice", &types.LegacyTx{GasPrice: price, Gas: 21_000, To: &sink, Value: big.NewInt(1)}},
	} {
		tx, err := s.send(ctx, tc.tx)
		if err != nil {
			t.Fatalf("%s: send: %v", tc.name, err)
		}
		if rc := s.mined(ctx, tx); rc.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("%s: tx failed", tc.name)
		}
	}

	// Refused as minievm's fee check words it: the fee (fee cap x gas, +1) and the one required.
	_, err = s.send(ctx, transfer(EVMMinGasPrice-1, 0))
	var rpcErr rpc.Error
	if err == nil || !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != -32000 || err.Error() != "insufficient fees; got: 273001umin required: 294000umin: insufficient fee" {
		t.Fatalf("a fee cap of 13 wei: err = %v; want minievm's refusal naming 273001umin and 294000umin", err)
	}
	_, err = s.send(ctx, &types.LegacyTx{GasPrice: big.NewInt(1), Gas: 21_000, To: &sink})
	if err == nil || err.Error() != "insufficient fees; got: 21001umin required: 294000umin: insufficient fee" {
		t.Fatalf("a legacy gas price of 1 wei: err = %v; want minievm's refusal naming both fees", err)
	}
	// The refused txs never enter the pool (the mined ones leave it when the pool catches up
	// with the chain, which it does on its own goroutine).
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		pending, queued := r.eth.TxPool().Stats()
		if pending+queued == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pool holds %d pending and %d queued txs after the refusals", pending, queued)
		}
	}

	// Six txs in six blocks, each at the same base fee; an empty block only follows a
	// block with txs (minievm's proof block), but for the start block (1, which block 0
	// answers as, as on a minievm).
	n, err := s.c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	withTxs := 0
	for h := int64(0); h <= int64(n); h++ {
		b, err := s.c.BlockByNumber(ctx, big.NewInt(h))
		if err != nil {
			t.Fatal(err)
		}
		if b.BaseFee().Int64() != EVMBaseFee {
			t.Fatalf("block %d: base fee %s, want %d", h, b.BaseFee(), EVMBaseFee)
		}
		if len(b.Transactions()) > 0 {
			withTxs++
			continue
		}
		if h > 1 {
			parent, err := s.c.BlockByNumber(ctx, big.NewInt(h-1))
			if err != nil {
				t.Fatal(err)
			}
			if len(parent.Transactions()) == 0 {
				t.Fatalf("block %d is empty after the empty block %d", h, h-1)
			}
		}
	}
	if withTxs != 6 {
		t.Fatalf("%d blocks with txs after 6 mined txs, want 6", withTxs)
	}
	// The fee history reports the same base fee for every block and the next one.
	var hist struct {
		BaseFee     []*hexutil.Big `json:"baseFeePerGas"`
		BlobBaseFee []*hexutil.Big `json:"baseFeePerBlobGas"`
	}
	if err := s.c.Client().CallContext(ctx, &hist, "eth_feeHistory", "0x4", "latest", []float64{50}); err != nil {
		t.Fatal(err)
	}
	if len(hist.BaseFee) != 5 {
		t.Fatalf("eth_feeHistory of 4 blocks: %d base fees, want 5", len(hist.BaseFee))
	}
	for i, f := range hist.BaseFee {
		if f.ToInt().Int64() != EVMBaseFee {
			t.Fatalf("eth_feeHistory base fee %d is %s, want %d", i, f.ToInt(), EVMBaseFee)
		}
	}
	if len(hist.BlobBaseFee) != 5 {
		t.Fatalf("eth_feeHistory of 4 blocks: %d blob base fees, want 5", len(hist.BlobBaseFee))
	}
	for i, f := range hist.BlobBaseFee {
		if f.ToInt().Sign() != 0 {
			t.Fatalf("eth_feeHistory blob base fee %d is %s, want 0 (no blobs on a minievm)", i, f.ToInt())
		}
	}
}

// Blocks come as a minievm's default configuration makes them: one within moments of a
// tx, one more (empty) block_interval after a block with txs, then, while the chain is idle,
// an empty block every create_empty_blocks_interval (1 s here, a minute by default). Each
// block carries the wall clock's second, as a minievm block carries CometBFT's time, so a
// block may share its parent's second.
func TestEVMMakesBlocksAsMinievm(t *testing.T) {
	r := startEVM(t, WithEmptyBlockInterval(time.Second))
	s := newSender(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The chain is idle from its start: an empty block within the interval.
	deadline := time.Now().Add(3 * time.Second)
	for {
		n, err := s.c.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no empty block after 3 s of an idle chain with a 1 s empty-block interval")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var hashes []common.Hash
	start := time.Now()
	for range 20 {
		tx, err := s.send(ctx, transfer(EVMMinGasPrice, 0))
		if err != nil {
			t.Fatal(err)
		}
		rc := s.mined(ctx, tx)
		hashes = append(hashes, rc.BlockHash)
	}
	// Each tx came right after the block before it: its block waits out the block
	// interval since that one, as on a minievm (receipts 100-150 ms apart there).
	if took := time.Since(start); took < 19*EVMBlockInterval {
		t.Fatalf("20 txs, each sent after the receipt of the one before, mined in %s; want at least %s", took, 19*EVMBlockInterval)
	}
	time.Sleep(3 * EVMBlockInterval)
	last, err := s.c.BlockByHash(ctx, hashes[len(hashes)-1])
	if err != nil {
		t.Fatal(err)
	}
	next, err := s.c.BlockByNumber(ctx, new(big.Int).Add(last.Number(), common.Big1))
	if err != nil {
		t.Fatalf("no block after the last tx's block %d within %s: %v", last.NumberU64(), 3*EVMBlockInterval, err)
	}
	if len(next.Transactions()) != 0 {
		t.Fatalf("block %d after the last tx's: %d txs, want empty", next.NumberU64(), len(next.Transactions()))
	}
	// 20 txs sent one after another's receipt: blocks within the same second share it, and
	// none is ahead of the wall clock.
	wall := uint64(time.Now().Unix())
	for n := uint64(1); n <= next.NumberU64(); n++ {
		b, err := s.c.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		if b.Time > wall || b.Time+30 < wall {
			t.Fatalf("block %d at %d, the wall clock at %d: want the wall clock's second", n, b.Time, wall)
		}
	}
	if next.Time() > wall {
		t.Fatalf("the empty block after the txs is at %d, ahead of the wall clock %d", next.Time(), wall)
	}
	// Idle again: the next empty block comes after the interval, not before.
	time.Sleep(500 * time.Millisecond)
	if n, err := s.c.BlockNumber(ctx); err != nil || n != next.NumberU64() {
		t.Fatalf("head %d, %v half a second after block %d; want no block before the empty-block interval", n, err, next.NumberU64())
	}
	time.Sleep(time.Second)
	if n, err := s.c.BlockNumber(ctx); err != nil || n != next.NumberU64()+1 {
		t.Fatalf("head %d, %v 1.5 s after block %d; want one empty block after the interval", n, err, next.NumberU64())
	}
	// On an idle chain a tx's block comes EVMConsensusDelay after it, not at once: its
	// receipt is not there at the first read after the send (Hardhat's chai matchers read
	// it once), as on a minievm (~25 ms after the send answered).
	time.Sleep(2 * EVMBlockInterval)
	sent := time.Now()
	tx, err := s.send(ctx, transfer(EVMMinGasPrice, 0))
	if err != nil {
		t.Fatal(err)
	}
	s.mined(ctx, tx)
	if took := time.Since(sent); took < EVMConsensusDelay {
		t.Fatalf("a tx on an idle chain was mined %s after it was sent; want at least %s", took, EVMConsensusDelay)
	}
}

// A reverting call answers as a minievm answers it: -32000 "Reverted" without the revert
// data (an Error(string) reason in the message), from eth_call and eth_estimateGas alike
// (the estimate in the SDK's words for a failed message); overrides are refused.
func TestEVMAnswersRevertsAsMinievm(t *testing.T) {
	r, c, ctx := dialEVM(t, 10*time.Second)
	from := r.Funded()[0].Address
	// Init code that reverts with 0xdeadbeef; and init code that reverts with Error("boom").
	bare := "0x63deadbeef6000526004601cfd"
	reason := "0x6064600c60003960646000fd08c379a0" +
		"0000000000000000000000000000000000000000000000000000000000000020" +
		"0000000000000000000000000000000000000000000000000000000000000004" +
		"626f6f6d00000000000000000000000000000000000000000000000000000000"
	for _, tc := range []struct {
		method, data, want string
	}{
		{"eth_call", bare, "Reverted"},
		{"eth_call", reason, "revert: boom: Reverted"},
		{"eth_estimateGas", bare, "failed to execute message; message index: 0: Reverted"},
		{"eth_estimateGas", reason, "failed to execute message; message index: 0: revert: boom: Reverted"},
	} {
		params := []any{map[string]any{"from": from, "data": tc.data}}
		if tc.method == "eth_call" {
			params = append(params, "latest")
		}
		var out any
		err := c.CallContext(ctx, &out, tc.method, params...)
		var rpcErr rpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != -32000 || err.Error() != tc.want {
			t.Fatalf("%s of %s: %v; want -32000 %q", tc.method, tc.data[:12], err, tc.want)
		}
		var dataErr rpc.DataError
		if errors.As(err, &dataErr) && dataErr.ErrorData() != nil {
			t.Fatalf("%s: revert data %v; minievm returns none", tc.method, dataErr.ErrorData())
		}
	}
	// A call that succeeds still answers its output: init code returning 0x2a in 32 bytes.
	var out hexutil.Bytes
	if err := c.CallContext(ctx, &out, "eth_call", map[string]any{"data": "0x602a60005260206000f3"}, "latest"); err != nil || len(out) != 32 || out[31] != 0x2a {
		t.Fatalf("eth_call of init code returning 42: %x, %v", out, err)
	}
	var ignored any
	err := c.CallContext(ctx, &ignored, "eth_call", map[string]any{"data": "0x00"}, "latest", map[string]any{from: map[string]any{"balance": "0x1"}})
	if err == nil || err.Error() != "state overrides are not supported" {
		t.Fatalf("eth_call with a state override: %v; want minievm's refusal", err)
	}
}

// HTTP and WebSocket are on ports of their own, as a minievm serves them: the HTTP port
// answers a WebSocket upgrade (any GET) with 405, the WebSocket port a plain POST with 400.
func TestEVMServesWebSocketOnItsOwnPort(t *testing.T) {
	r := startEVM(t)
	ep := r.Endpoints()
	httpPort, wsPort := ep.JSONRPC[strings.LastIndex(ep.JSONRPC, ":"):], ep.JSONRPCWS[strings.LastIndex(ep.JSONRPCWS, ":"):]
	if httpPort == wsPort || !strings.HasPrefix(ep.JSONRPCWS, "ws://127.0.0.1:") {
		t.Fatalf("HTTP %s and WebSocket %s: want two loopback ports", ep.JSONRPC, ep.JSONRPCWS)
	}
	req, err := http.NewRequest(http.MethodGet, ep.JSONRPC, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("a WebSocket upgrade on the HTTP port: %s, want 405", resp.Status)
	}
	resp, err = http.Post("http"+strings.TrimPrefix(ep.JSONRPCWS, "ws"), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a plain POST on the WebSocket port: %s, want 400", resp.Status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, err := ethclient.DialContext(ctx, ep.JSONRPCWS)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.BlockNumber(ctx); err != nil {
		t.Fatalf("eth_blockNumber over WebSocket: %v", err)
	}
}

// eth_syncing is false and the receipt of a tx the chain never saw is null, on a fresh
// chain as a minievm answers them (geth: its tx indexer's progress, and an error).
func TestEVMAnswersSyncingAndUnknownReceiptsAsMinievm(t *testing.T) {
	_, c, ctx := dialEVM(t, 10*time.Second)
	var syncing any
	if err := c.CallContext(ctx, &syncing, "eth_syncing"); err != nil || syncing != false {
		t.Fatalf("eth_syncing = %v, %v; want false", syncing, err)
	}
	var rc map[string]any
	if err := c.CallContext(ctx, &rc, "eth_getTransactionReceipt", common.HexToHash("0x01")); err != nil || rc != nil {
		t.Fatalf("receipt of an unknown tx = %v, %v; want null", rc, err)
	}
}

// Every block's state stays readable: after more blocks than geth keeps state for (128),
// eth_getBalance and eth_call at earliest and at each early block still answer.
func TestEVMKeepsTheStateOfEveryBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("140 blocks")
	}
	r := startEVM(t)
	s := newSender(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for range 140 {
		tx, err := s.send(ctx, transfer(EVMMinGasPrice, 0))
		if err != nil {
			t.Fatal(err)
		}
		s.mined(ctx, tx)
	}
	// Block 1 is the chain's start block (empty); the i-th transfer is in block i+1.
	for h, want := range map[int64]int64{0: 0, 1: 0, 2: 1, 6: 5} {
		bal, err := s.c.BalanceAt(ctx, sink, big.NewInt(h))
		if err != nil {
			t.Fatalf("balance at block %d: %v", h, err)
		}
		if bal.Int64() != want {
			t.Fatalf("balance at block %d is %s, want %d", h, bal, want)
		}
	}
	var out hexutil.Bytes
	if err := s.c.Client().CallContext(ctx, &out, "eth_call", map[string]any{"to": sink}, "earliest"); err != nil {
		t.Fatalf("eth_call at earliest: %v", err)
	}
}

// logEmitter is the creation code of a contract whose every call emits one log with topic
// logTopic (PUSH32 topic, PUSH1 0, PUSH1 0, LOG1, STOP), behind the usual copy-and-return.
var (
	logTopic   = crypto.Keccak256Hash([]byte("vipharness.embedded.ping"))
	logEmitter = append(common.FromHex("0x6027"+"80"+"600b"+"6000"+"39"+"6000"+"f3"+"7f"), append(logTopic.Bytes(), common.FromHex("0x60006000a100")...)...)
)

// The WebSocket endpoint serves eth_subscribe as minievm does: newHeads, logs (by topic)
// and newPendingTransactions.
func TestEVMServesSubscriptionsOverWebSocket(t *testing.T) {
	r := startEVM(t)
	ws := r.Endpoints().JSONRPCWS
	if !strings.HasPrefix(ws, "ws://127.0.0.1:") {
		t.Fatalf("websocket endpoint %q, want ws://127.0.0.1:port", ws)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rc, err := rpc.DialContext(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	c := ethclient.NewClient(rc)
	s := newSender(t, r)

	deploy, err := s.send(ctx, &types.DynamicFeeTx{GasFeeCap: big.NewInt(EVMMinGasPrice), Gas: 100_000, Data: logEmitter})
	if err != nil {
		t.Fatal(err)
	}
	emitter := s.mined(ctx, deploy).ContractAddress

	heads := make(chan *types.Header, 8)
	headSub, err := c.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatalf("subscribe newHeads: %v", err)
	}
	defer headSub.Unsubscribe()
	logs := make(chan types.Log, 8)
	logSub, err := c.SubscribeFilterLogs(ctx, ethereum.FilterQuery{Topics: [][]common.Hash{{logTopic}}}, logs)
	if err != nil {
		t.Fatalf("subscribe logs: %v", err)
	}
	defer logSub.Unsubscribe()
	pending := make(chan common.Hash, 8)
	pendingSub, err := rc.EthSubscribe(ctx, pending, "newPendingTransactions")
	if err != nil {
		t.Fatalf("subscribe newPendingTransactions: %v", err)
	}
	defer pendingSub.Unsubscribe()

	call, err := s.send(ctx, &types.DynamicFeeTx{GasFeeCap: big.NewInt(EVMMinGasPrice), Gas: 50_000, To: &emitter})
	if err != nil {
		t.Fatal(err)
	}
	mined := s.mined(ctx, call)
	for got := 0; got < 3; {
		select {
		case h := <-pending:
			if h != call.Hash() {
				t.Fatalf("pending tx %s, want %s", h, call.Hash())
			}
			got++
		case l := <-logs:
			if l.Address != emitter || l.TxHash != call.Hash() {
				t.Fatalf("log %+v, want one from %s in %s", l, emitter, call.Hash())
			}
			got++
		case h := <-heads:
			if h.Number.Cmp(mined.BlockNumber) != 0 {
				t.Fatalf("new head %s, want %s", h.Number, mined.BlockNumber)
			}
			got++
		case err := <-headSub.Err():
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatalf("%d of 3 notifications", got)
		}
	}
}

// The chain's database is a temporary folder that Stop removes; WithDataDir keeps it.
func TestEVMDatabaseFolder(t *testing.T) {
	ctx := context.Background()
	r, err := StartGeth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tmp := r.tempDir
	if _, err := os.Stat(tmp); tmp == "" || err != nil {
		t.Fatalf("database folder %q: %v", tmp, err)
	}
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("database folder %s after Stop: %v, want it removed", tmp, err)
	}

	kept := t.TempDir()
	r, err = StartGeth(ctx, WithDataDir(kept))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(kept); err != nil || len(entries) == 0 {
		t.Fatalf("WithDataDir folder after Stop: %v entries, %v; want the database kept", len(entries), err)
	}
}

// minievm's limits where it sets them (jsonrpc/config): log filters of at most 100
// The state of every sealed block reaches the database by Stop, though the sealer flushes
// it only when idle: the database left in a WithDataDir folder holds the head's whole state
// trie, for a block sealed with txs and an empty one sealed after it (Commit: no idle flush).
func TestEVMFlushesSealedStateByStop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	r, err := StartGeth(ctx, WithDataDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	s := newSender(t, r)
	tx, err := s.send(ctx, transfer(EVMMinGasPrice, 0))
	if err != nil {
		t.Fatal(err)
	}
	s.mined(ctx, tx)
	r.Commit()
	head := r.BlockChain().CurrentBlock()
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	var chaindata string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "chaindata" {
			chaindata = path
		}
		return err
	})
	kv, err := gethpebble.New(chaindata, 16, 16, "", true)
	if err != nil {
		t.Fatalf("open the kept database %q: %v", chaindata, err)
	}
	defer kv.Close()
	db := rawdb.NewDatabase(kv)
	if got := rawdb.ReadHeadBlockHash(db); got != head.Hash() {
		t.Fatalf("head %s in the database, want block %d %s", got, head.Number, head.Hash())
	}
	tr, err := trie.NewStateTrie(trie.StateTrieID(head.Root), triedb.NewDatabase(db, triedb.HashDefaults))
	if err != nil {
		t.Fatalf("state of block %d: %v", head.Number, err)
	}
	it, err := tr.NodeIterator(nil)
	if err != nil {
		t.Fatal(err)
	}
	nodes := 0
	for it.Next(true) {
		nodes++
	}
	if it.Error() != nil || nodes == 0 {
		t.Fatalf("state trie of block %d: %d nodes, %v", head.Number, nodes, it.Error())
	}
	acc, err := tr.GetAccount(sink)
	if err != nil || acc == nil || acc.Balance.Uint64() != 1 {
		t.Fatalf("the transfer's recipient in the kept state: %+v, %v; want 1 wei", acc, err)
	}
}

// addresses, batches of at most 1,000 requests.
func TestEVMServesMinievmsLimits(t *testing.T) {
	_, c, ctx := dialEVM(t, 20*time.Second)
	addrs := func(n int) []common.Address {
		out := make([]common.Address, n)
		for i := range out {
			out[i] = common.BigToAddress(big.NewInt(int64(i + 1)))
		}
		return out
	}
	var logs []types.Log
	if err := c.CallContext(ctx, &logs, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest", "address": addrs(100)}); err != nil {
		t.Fatalf("eth_getLogs with 100 addresses: %v", err)
	}
	if err := c.CallContext(ctx, &logs, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest", "address": addrs(101)}); err == nil {
		t.Fatal("eth_getLogs with 101 addresses answered; minievm refuses more than 100")
	}
	batch := func(n int) error {
		elems := make([]rpc.BatchElem, n)
		for i := range elems {
			elems[i] = rpc.BatchElem{Method: "eth_blockNumber", Result: new(hexutil.Uint64)}
		}
		if err := c.BatchCallContext(ctx, elems); err != nil {
			return err
		}
		for _, e := range elems {
			if e.Error != nil {
				return e.Error
			}
		}
		return nil
	}
	if err := batch(1000); err != nil {
		t.Fatalf("a batch of 1,000: %v", err)
	}
	if err := batch(1001); err == nil {
		t.Fatal("a batch of 1,001 answered; minievm refuses more than 1,000")
	}
}

// JSON-RPC replies go uncompressed, as a minievm sends them, even to a client that accepts
// gzip (geth's node compressed a chunk's 300 KB receipt for every Go client), and the web3
// namespace the node used to serve is still answered.
func TestEVMServesJSONRPCUncompressed(t *testing.T) {
	r := startEVM(t)
	for _, tc := range []struct{ method, want string }{
		{"web3_clientVersion", `"`},
		{"web3_sha3", `"0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8"`}, // keccak256("hello")
		{"eth_blockNumber", `"0x`},
	} {
		t.Run(tc.method, func(t *testing.T) {
			params := "[]"
			if tc.method == "web3_sha3" {
				params = `["0x68656c6c6f"]`
			}
			req, _ := http.NewRequest(http.MethodPost, r.Endpoints().JSONRPC,
				strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":`+params+`}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept-Encoding", "gzip")
			resp, err := http.DefaultTransport.RoundTrip(req) // the transport leaves Content-Encoding as sent
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if enc := resp.Header.Get("Content-Encoding"); enc != "" {
				t.Fatalf("Content-Encoding %q, want none", enc)
			}
			if !strings.Contains(string(body), `"result":`+tc.want) {
				t.Fatalf("reply %s, want a result starting %s", body, tc.want)
			}
		})
	}
}

// The receipts the minievm face answers from what the sealer kept are byte for byte what
// geth reads back from its database and encodes: a transfer (no logs), a creation that logs
// without topics, one with a topic and data, a tx that reverts, and three txs sealed in one
// block (log positions run across the block); the in-process readers' receipts of each block
// equal geth's own.
func TestEVMEncodesReceiptsAsGeth(t *testing.T) {
	r := startEVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newSender(t, r)
	logger := func() types.TxData {
		return &types.DynamicFeeTx{GasFeeCap: big.NewInt(EVMMinGasPrice), Gas: 100_000, Data: common.FromHex("0x602a60005260ff60206000a100")}
	}
	var txs []*types.Transaction
	for _, tc := range []struct {
		name string
		tx   types.TxData
		logs int
	}{
		{"transfer", transfer(EVMMinGasPrice, 0), 0},
		{"log0 creation", &types.DynamicFeeTx{GasFeeCap: big.NewInt(EVMMinGasPrice), Gas: 100_000, Data: common.FromHex("0x60006000a000")}, 1},
		{"log1 with data", logger(), 1},
		{"revert", &types.DynamicFeeTx{GasFeeCap: big.NewInt(EVMMinGasPrice), Gas: 100_000, Data: common.FromHex("0x60006000fd")}, 0},
	} {
		tx, err := s.send(ctx, tc.tx)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if rc := s.mined(ctx, tx); len(rc.Logs) != tc.logs {
			t.Fatalf("%s: %d logs, want %d", tc.name, len(rc.Logs), tc.logs)
		}
		txs = append(txs, tx)
	}
	// Three at once into the pool: one block.
	var batch []*types.Transaction
	for range 3 {
		inner := logger().(*types.DynamicFeeTx)
		inner.Nonce, inner.ChainID = s.nonce, s.chainID
		tx, err := types.SignNewTx(s.key, types.LatestSignerForChainID(s.chainID), inner)
		if err != nil {
			t.Fatal(err)
		}
		s.nonce++
		batch = append(batch, tx)
	}
	for i, err := range r.eth.TxPool().Add(batch, false) {
		if err != nil {
			t.Fatalf("batch tx %d: %v", i, err)
		}
	}
	last := s.mined(ctx, batch[2])
	if first := s.mined(ctx, batch[0]); first.BlockHash != last.BlockHash || last.Logs[0].Index != 2 {
		t.Fatalf("the batch went into blocks %d and %d (last log index %d); want one block", first.BlockNumber, last.BlockNumber, last.Logs[0].Index)
	}
	txs = append(txs, batch...)

	api := r.minievm
	blocks := map[common.Hash]bool{}
	for i, tx := range txs {
		if _, _, kept := r.sealer.sealed.tx(tx.Hash()); !kept {
			t.Fatalf("tx %d: not among the sealed receipts kept", i)
		}
		fields, err := api.tx.GetTransactionReceipt(ctx, tx.Hash())
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(fields)
		if err != nil {
			t.Fatal(err)
		}
		// A minievm's logs have no blockTimestamp (geth's addition); all else is geth's.
		want = logTimestamp.ReplaceAll(want, nil)
		got, err := api.GetTransactionReceipt(ctx, tx.Hash())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("tx %d: answered\n%s\ngeth reads back\n%s", i, got, want)
		}
		blocks[fields["blockHash"].(common.Hash)] = true
	}
	chain := r.SealedChain()
	for hash := range blocks {
		got, err := json.Marshal(chain.GetReceiptsByHash(hash))
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(r.BlockChain().GetReceiptsByHash(hash))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("block %s: kept receipts\n%s\ngeth's\n%s", hash, got, want)
		}
	}
	if got, err := api.GetTransactionReceipt(ctx, common.Hash{1}); err != nil || got != nil {
		t.Fatalf("unknown tx: %s, %v; want null", got, err)
	}
}

// sealedReceipts keeps the newest blocks up to its bound of logs (the newest always), and a
// block it let go is no longer answered from memory.
func TestSealedReceiptsKeepTheNewestBlocks(t *testing.T) {
	c := newSealedReceipts()
	signer := types.LatestSignerForChainID(big.NewInt(1))
	key, _ := crypto.GenerateKey()
	block := func(n uint64, logs int) *types.Block {
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(1), Nonce: n, GasFeeCap: big.NewInt(14), Gas: 21_000, To: &sink})
		if err != nil {
			t.Fatal(err)
		}
		rc := &types.Receipt{Status: types.ReceiptStatusSuccessful, Logs: make([]*types.Log, logs)}
		for i := range rc.Logs {
			rc.Logs[i] = &types.Log{}
		}
		b := types.NewBlock(&types.Header{Number: new(big.Int).SetUint64(n), BaseFee: big.NewInt(7)}, &types.Body{Transactions: types.Transactions{tx}}, []*types.Receipt{rc}, trie.NewStackTrie(nil))
		c.add(b, types.Receipts{rc}, signer)
		return b
	}
	for _, tc := range []struct {
		name      string
		wantKept  []uint64
		wantGone  []uint64
		blockLogs []int
	}{
		{name: "under the bound", blockLogs: []int{10, 10, 10}, wantKept: []uint64{1, 2, 3}},
		{name: "over it: the oldest go", blockLogs: []int{sealedLogsKept / 2, sealedLogsKept / 2, 10}, wantKept: []uint64{2, 3}, wantGone: []uint64{1}},
		{name: "one block over it stays", blockLogs: []int{10, sealedLogsKept + 1}, wantKept: []uint64{2}, wantGone: []uint64{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c = newSealedReceipts()
			blocks := map[uint64]*types.Block{}
			for i, logs := range tc.blockLogs {
				n := uint64(i + 1)
				blocks[n] = block(n, logs)
			}
			for _, n := range tc.wantKept {
				b := blocks[n]
				if rs, ok := c.receipts(b.Hash()); !ok || rs[0].BlockHash != b.Hash() || rs[0].EffectiveGasPrice.Int64() != 7 {
					t.Fatalf("block %d: kept %v, receipts %v; want kept with derived fields", n, ok, rs)
				}
				if sb, i, ok := c.tx(b.Transactions()[0].Hash()); !ok || sb.block != b || i != 0 {
					t.Fatalf("block %d: its tx not found", n)
				}
			}
			for _, n := range tc.wantGone {
				b := blocks[n]
				if _, ok := c.receipts(b.Hash()); ok {
					t.Fatalf("block %d still kept", n)
				}
				if _, _, ok := c.tx(b.Transactions()[0].Hash()); ok {
					t.Fatalf("block %d: its tx still kept", n)
				}
			}
		})
	}
}

// The methods served are a minievm's: go-ethereum's extras answer -32601 as missing methods
// (viem fills a tx with eth_fillTransaction where a node has it), minievm's own answer, and
// the debug namespace is minievm's four methods.
func TestEVMServesMinievmsMethods(t *testing.T) {
	r, c, ctx := dialEVM(t, 20*time.Second)
	for _, m := range []string{"eth_fillTransaction", "eth_accounts", "eth_sendTransaction", "eth_sign", "eth_signTransaction",
		"eth_createAccessList", "eth_simulateV1", "eth_blobBaseFee", "eth_baseFee", "eth_getProof", "eth_config", "eth_capabilities",
		"eth_getHeaderByNumber", "eth_getHeaderByHash", "eth_getStorageValues", "eth_resend", "eth_getRawTransactionByBlockNumberAndIndex",
		"debug_setHead", "debug_getRawBlock", "debug_dbGet", "debug_traceCall", "debug_traceChain", "debug_intermediateRoots"} {
		var out any
		err := c.CallContext(ctx, &out, m, map[string]any{})
		var re rpc.Error
		if !errors.As(err, &re) || re.ErrorCode() != -32601 || err.Error() != "the method "+m+" does not exist/is not available" {
			t.Errorf("%s: %v, %v; want -32601, a missing method", m, out, err)
		}
	}
	var hashrate string
	var mining bool
	if err := c.CallContext(ctx, &hashrate, "eth_hashrate"); err != nil || hashrate != "0x0" {
		t.Errorf("eth_hashrate = %q, %v; want 0x0", hashrate, err)
	}
	if err := c.CallContext(ctx, &mining, "eth_mining"); err != nil || mining {
		t.Errorf("eth_mining = %v, %v; want false", mining, err)
	}
	s := newSender(t, r)
	tx, err := s.send(ctx, transfer(EVMMinGasPrice, 0))
	if err != nil {
		t.Fatal(err)
	}
	rc := s.mined(ctx, tx)
	var trace map[string]any
	if err := c.CallContext(ctx, &trace, "debug_traceTransaction", tx.Hash(), map[string]any{"tracer": "callTracer"}); err != nil || trace["type"] != "CALL" {
		t.Errorf("debug_traceTransaction with callTracer = %v, %v; want a CALL", trace, err)
	}
	var traces []any
	if err := c.CallContext(ctx, &traces, "debug_traceBlockByNumber", hexutil.Uint64(rc.BlockNumber.Uint64()), map[string]any{"tracer": "callTracer"}); err != nil || len(traces) != 1 {
		t.Errorf("debug_traceBlockByNumber = %v, %v; want one trace", traces, err)
	}
	if err := c.CallContext(ctx, &traces, "debug_traceBlockByHash", rc.BlockHash, map[string]any{"tracer": "callTracer"}); err != nil || len(traces) != 1 {
		t.Errorf("debug_traceBlockByHash = %v, %v; want one trace", traces, err)
	}
	var missing any
	err = c.CallContext(ctx, &missing, "debug_traceTransaction", common.HexToHash("0x01"))
	if err == nil {
		t.Errorf("debug_traceTransaction of an unknown tx answered %v", missing)
	}
}

// With a read lag, state reads at "latest" right after a receipt see the state before the
// tx, as on a minievm whose indexer serves the receipt before the state commits, and the
// new state after the lag; reads at the block's number see it at once.
func TestEVMReadLagShowsTheOldStateAfterAReceipt(t *testing.T) {
	const lag = 400 * time.Millisecond
	r := startEVM(t, WithReadLag(lag))
	s := newSender(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	before, err := s.c.BalanceAt(ctx, sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := s.send(ctx, transfer(EVMMinGasPrice, 0))
	if err != nil {
		t.Fatal(err)
	}
	rc := s.mined(ctx, tx)
	seen := time.Now()
	now, err := s.c.BalanceAt(ctx, sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(seen) < lag/2 && now.Cmp(before) != 0 {
		t.Fatalf("balance at latest right after the receipt: %s, want the old %s", now, before)
	}
	at, err := s.c.BalanceAt(ctx, sink, rc.BlockNumber)
	if err != nil || at.Cmp(new(big.Int).Add(before, big.NewInt(1))) != 0 {
		t.Fatalf("balance at the receipt's block: %s, %v; want %s + 1", at, err, before)
	}
	var nonce hexutil.Uint64
	if err := s.c.Client().CallContext(ctx, &nonce, "eth_getTransactionCount", crypto.PubkeyToAddress(s.key.PublicKey), "pending"); err != nil || uint64(nonce) != s.nonce {
		t.Fatalf("pending nonce %d, %v; want %d (the pool's, never lagging)", nonce, err, s.nonce)
	}
	time.Sleep(lag)
	now, err = s.c.BalanceAt(ctx, sink, nil)
	if err != nil || now.Cmp(at) != 0 {
		t.Fatalf("balance at latest after the lag: %s, %v; want %s", now, err, at)
	}
}

// dialEVM starts an embedded EVM and dials its JSON-RPC; the client and a context of the
// given timeout end with the test.
func dialEVM(t *testing.T, timeout time.Duration) (*GethRollup, *rpc.Client, context.Context) {
	t.Helper()
	r := startEVM(t)
	c, err := rpc.Dial(r.Endpoints().JSONRPC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return r, c, ctx
}

// A fresh chain's blocks are a minievm's: it starts at block 1, made at start, which block 0
// answers as (and every named block as the latest); each header is Shanghai-shaped (no
// blob gas, beacon root or requests hash) and its hash is the RLP hash of what the reply
// shows, which ethclient recomputes; BLOBBASEFEE is 0 in a call, as in minievm's block
// context.
func TestEVMBlocksAreMinievms(t *testing.T) {
	r, c, ctx := dialEVM(t, 20*time.Second)
	var head hexutil.Uint64
	if err := c.CallContext(ctx, &head, "eth_blockNumber"); err != nil || head != 1 {
		t.Fatalf("eth_blockNumber of a fresh chain = %d, %v; want 1", head, err)
	}
	for _, number := range []string{"0x0", "0x1", "latest", "earliest", "pending"} {
		var block map[string]any
		if err := c.CallContext(ctx, &block, "eth_getBlockByNumber", number, false); err != nil {
			t.Fatalf("eth_getBlockByNumber %s: %v", number, err)
		}
		if block["number"] != "0x1" {
			t.Fatalf("eth_getBlockByNumber %s answers block %v, want 0x1", number, block["number"])
		}
		for _, field := range []string{"blobGasUsed", "excessBlobGas", "parentBeaconBlockRoot", "requestsHash"} {
			if _, ok := block[field]; ok {
				t.Fatalf("block %s has %s, which a minievm block has not", number, field)
			}
		}
		if block["withdrawalsRoot"] != types.EmptyWithdrawalsHash.Hex() {
			t.Fatalf("block %s: withdrawalsRoot %v", number, block["withdrawalsRoot"])
		}
	}
	// ethclient decodes the header and checks nothing; its hash must be the reply's.
	h, err := r.Client().HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		Hash common.Hash `json:"hash"`
	}
	if err := c.CallContext(ctx, &reply, "eth_getBlockByNumber", "latest", false); err != nil {
		t.Fatal(err)
	}
	if h.Hash() != reply.Hash {
		t.Fatalf("the header's RLP hash %s, the reply's hash %s", h.Hash(), reply.Hash)
	}
	// BLOBBASEFEE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN, as creation code.
	from := crypto.PubkeyToAddress(r.devKey.PublicKey)
	var out hexutil.Bytes
	if err := c.CallContext(ctx, &out, "eth_call", map[string]any{"from": from, "data": "0x4a60005260206000f3"}, "latest"); err != nil {
		t.Fatalf("eth_call of BLOBBASEFEE: %v", err)
	}
	if len(out) != 32 || new(big.Int).SetBytes(out).Sign() != 0 {
		t.Fatalf("BLOBBASEFEE in a call = %x, want 0", out)
	}
	var gas hexutil.Uint64
	if err := c.CallContext(ctx, &gas, "eth_estimateGas", map[string]any{"from": from, "data": "0x4a60005260206000f3"}); err != nil || gas == 0 {
		t.Fatalf("eth_estimateGas of BLOBBASEFEE = %d, %v", gas, err)
	}
}

// The Cosmos face's bank supply is the fee denom's: what the genesis allocated less the base
// fees burnt, which is what every account holds (the funded ones, the recipient and the
// coinbase that took the tips), after txs with and without a tip.
func TestEVMSupplyIsWhatTheAccountsHold(t *testing.T) {
	r := startEVM(t)
	s := newSender(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tip := range []int64{0, 7, 0, 100} {
		tx, err := s.send(ctx, transfer(EVMMinGasPrice+tip, tip))
		if err != nil {
			t.Fatal(err)
		}
		s.mined(ctx, tx)
	}
	head, err := s.c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	held := new(big.Int)
	accounts := []common.Address{sink, head.Coinbase}
	for _, f := range r.Funded() {
		accounts = append(accounts, common.HexToAddress(f.Address))
	}
	for _, a := range accounts {
		bal, err := s.c.BalanceAt(ctx, a, head.Number)
		if err != nil {
			t.Fatal(err)
		}
		held.Add(held, bal)
	}
	res, err := http.Get(r.Endpoints().REST + "/cosmos/bank/v1beta1/supply/by_denom?denom=" + EVMFeeDenom)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var supply struct {
		Amount struct {
			Denom  string `json:"denom"`
			Amount string `json:"amount"`
		} `json:"amount"`
	}
	if err := json.NewDecoder(res.Body).Decode(&supply); err != nil {
		t.Fatal(err)
	}
	if supply.Amount.Denom != EVMFeeDenom || supply.Amount.Amount != held.String() {
		t.Fatalf("supply %+v, the accounts hold %s", supply.Amount, held)
	}
}

// A tx object is minievm's RPCTransaction: no blockTimestamp, and both fee caps on every
// tx (a legacy one's are its gas price).
func TestMinievmTxObject(t *testing.T) {
	for _, tc := range []struct{ name, geth, want string }{
		{"a legacy tx", `{"type":"0x0","gasPrice":"0xe","blockTimestamp":"0x5"}`,
			`{"gasPrice":"0xe","maxFeePerGas":"0xe","maxPriorityFeePerGas":"0xe","type":"0x0"}`},
		{"a dynamic-fee tx", `{"type":"0x2","gasPrice":"0xe","maxFeePerGas":"0x1c","maxPriorityFeePerGas":"0x1","blockTimestamp":"0x5"}`,
			`{"gasPrice":"0xe","maxFeePerGas":"0x1c","maxPriorityFeePerGas":"0x1","type":"0x2"}`},
		{"no tx", `null`, `null`},
		{"a hash (a block's txs, not full)", `"0xab"`, `"0xab"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(minievmTx(json.RawMessage(tc.geth))); got != tc.want {
				t.Fatalf("%s, want %s", got, tc.want)
			}
		})
	}
}

// logTimestamp is geth's blockTimestamp field of a log, in its JSON.
var logTimestamp = regexp.MustCompile(`,"blockTimestamp":"0x[0-9a-f]+"`)

// Logs read by eth_getLogs, a log filter's changes and its logs are minievm's: the log's
// fields without geth's blockTimestamp; a block filter's changes are block hashes.
func TestEVMLogReadsAreMinievms(t *testing.T) {
	r := startEVM(t)
	s := newSender(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rpcc := s.c.Client()
	var logFilter, blockFilter string
	if err := rpcc.CallContext(ctx, &logFilter, "eth_newFilter", map[string]any{"topics": []any{logTopic}}); err != nil {
		t.Fatal(err)
	}
	if err := rpcc.CallContext(ctx, &blockFilter, "eth_newBlockFilter"); err != nil {
		t.Fatal(err)
	}
	tx, err := s.send(ctx, &types.DynamicFeeTx{GasFeeCap: big.NewInt(EVMMinGasPrice), Gas: 200_000, Data: logEmitter})
	if err != nil {
		t.Fatal(err)
	}
	rc := s.mined(ctx, tx)
	if _, err := s.send(ctx, &types.DynamicFeeTx{GasFeeCap: big.NewInt(EVMMinGasPrice), Gas: 100_000, To: &rc.ContractAddress}); err != nil {
		t.Fatal(err)
	}
	var changes []map[string]any
	for len(changes) == 0 {
		if err := rpcc.CallContext(ctx, &changes, "eth_getFilterChanges", logFilter); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var byFilter, byRange []map[string]any
	if err := rpcc.CallContext(ctx, &byFilter, "eth_getFilterLogs", logFilter); err != nil {
		t.Fatal(err)
	}
	if err := rpcc.CallContext(ctx, &byRange, "eth_getLogs", map[string]any{"fromBlock": "0x1", "toBlock": "latest", "address": rc.ContractAddress}); err != nil {
		t.Fatal(err)
	}
	for name, logs := range map[string][]map[string]any{"eth_getFilterChanges": changes, "eth_getFilterLogs": byFilter, "eth_getLogs": byRange} {
		if len(logs) == 0 {
			t.Fatalf("%s: no logs", name)
		}
		for _, l := range logs {
			if _, ok := l["blockTimestamp"]; ok || l["address"] == nil || l["logIndex"] == nil {
				t.Fatalf("%s: log %v, want minievm's fields", name, l)
			}
		}
	}
	var hashes []common.Hash
	if err := rpcc.CallContext(ctx, &hashes, "eth_getFilterChanges", blockFilter); err != nil || len(hashes) == 0 {
		t.Fatalf("block filter changes %v, %v", hashes, err)
	}
}

// Reads at a block the chain does not have answer as minievm's: a number past the head
// "requested height is greater than the latest block height" (-32000), an unknown hash its
// internal error (-32603), for state reads, eth_call and eth_getBlockByHash.
func TestEVMRefusesBlocksItDoesNotHaveAsMinievm(t *testing.T) {
	_, c, ctx := dialEVM(t, 10*time.Second)
	unknown := "0x" + strings.Repeat("11", 32)
	for _, tc := range []struct {
		method string
		args   []any
		code   int
		msg    string
	}{
		{"eth_getBalance", []any{sink, "0xffff"}, -32000, "requested height is greater than the latest block height"},
		{"eth_getCode", []any{sink, "0xffff"}, -32000, "requested height is greater than the latest block height"},
		{"eth_getStorageAt", []any{sink, "0x0", "0xffff"}, -32000, "requested height is greater than the latest block height"},
		{"eth_call", []any{map[string]any{"to": sink}, "0xffff"}, -32000, "requested height is greater than the latest block height"},
		{"eth_getBalance", []any{sink, map[string]any{"blockHash": unknown}}, -32603, "internal jsonrpc error: failed to get block number by hash"},
		{"eth_getBlockByHash", []any{unknown, false}, -32603, "internal jsonrpc error: failed to get block number by hash"},
	} {
		var out any
		err := c.CallContext(ctx, &out, tc.method, tc.args...)
		var rpcErr rpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != tc.code || err.Error() != tc.msg {
			t.Errorf("%s %v: %v, want %d %q", tc.method, tc.args, err, tc.code, tc.msg)
		}
	}
	// The head and below answer.
	var bal hexutil.Big
	if err := c.CallContext(ctx, &bal, "eth_getBalance", sink, "0x1"); err != nil {
		t.Fatalf("eth_getBalance at block 1: %v", err)
	}
}

// A raw tx is refused in minievm's order and words before the pool sees it (as a real
// minievm v1.2.18 answered each): another chain's id in geth's words without "invalid
// sender", a sender with no account by its bech32 address, a nonce the account has used as
// the SDK's sequence mismatch, a fee cap under the minimum as the fee check words it; a tx
// sent again while it waits is the pool's "already known", which clients read as sent.
func TestEVMRefusesRawTxsAsMinievm(t *testing.T) {
	r := startEVM(t)
	s := newSender(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first, err := s.send(ctx, transfer(EVMMinGasPrice, 0))
	if err != nil {
		t.Fatal(err)
	}
	s.mined(ctx, first)
	broke, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	brokeAddr, err := bech32.ConvertAndEncode("init", crypto.PubkeyToAddress(broke.PublicKey).Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sign := func(key *ecdsa.PrivateKey, chainID *big.Int, nonce uint64, value int64) *types.Transaction {
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce,
			GasFeeCap: big.NewInt(EVMMinGasPrice), Gas: 21_000, To: &sink, Value: big.NewInt(value)})
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	other := new(big.Int).Add(s.chainID, big.NewInt(1))
	for _, tc := range []struct {
		name string
		tx   *types.Transaction
		want string
	}{
		{"another chain's id", sign(s.key, other, s.nonce, 1), fmt.Sprintf("invalid chain id for signer: have %d want %d", other, s.chainID)},
		{"a sender with no account", sign(broke, s.chainID, 0, 1), "account " + brokeAddr + " does not exist: unknown address"},
		{"a used nonce", sign(s.key, s.chainID, s.nonce-1, 2), fmt.Sprintf("account sequence mismatch, expected %d, got %d: incorrect account sequence", s.nonce, s.nonce-1)},
	} {
		err := s.c.SendTransaction(ctx, tc.tx)
		var rpcErr rpc.Error
		if err == nil || !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != -32000 || err.Error() != tc.want {
			t.Errorf("%s: err = %v; want -32000 %q", tc.name, err, tc.want)
		}
	}
	// The same tx sent again (pooled or mined by then) is the pool's to answer, never a
	// sequence mismatch: a client that resends a tx reads "already known" as sent.
	again := sign(s.key, s.chainID, s.nonce, 3)
	if err := s.c.SendTransaction(ctx, again); err != nil {
		t.Fatal(err)
	}
	if err := s.c.SendTransaction(ctx, again); err != nil && strings.Contains(err.Error(), "sequence mismatch") {
		t.Fatalf("the same tx again: %v; want the pool's answer", err)
	}
}
