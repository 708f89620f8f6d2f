package embedded

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/cosmos/cosmos-sdk/types/bech32"

	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

func startEVM(t *testing.T, opts ...EVMOption) *GethRollup {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := StartGeth(ctx, opts...)
	if err != nil {
		t.Fatalf("start evm: %v", err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	return r
}

func TestEVMServesLoopbackJSONRPCAndMinesOnSend(t *testing.T) {
	r := startEVM(t)
	ep := r.Endpoints()
	if !strings.HasPrefix(ep.JSONRPC, "http://127.0.0.1:") || !strings.HasPrefix(ep.CometRPC, "http://127.0.0.1:") {
		t.Fatalf("endpoints not on loopback: %+v", ep)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := ethclient.DialContext(ctx, ep.JSONRPC)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	chainID, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if chainID.String() != r.ChainID() {
		t.Fatalf("chain id %s, rollup says %s", chainID, r.ChainID())
	}
	key, err := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if head.GasLimit != DefaultEVMBlockGasLimit {
		t.Fatalf("block gas limit %d, want %d", head.GasLimit, DefaultEVMBlockGasLimit)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	// Pipelined nonces: all three are mined without any explicit commit.
	var hashes []common.Hash
	for nonce := uint64(0); nonce < 3; nonce++ {
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
			ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21000, To: &to, Value: big.NewInt(7),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send nonce %d from %s: %v", nonce, from, err)
		}
		hashes = append(hashes, tx.Hash())
	}
	for _, h := range hashes {
		for {
			rc, err := c.TransactionReceipt(ctx, h)
			if err == nil {
				if rc.Status != types.ReceiptStatusSuccessful {
					t.Fatalf("tx %s failed", h)
				}
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("tx %s not mined: %v", h, err)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	bal, err := c.BalanceAt(ctx, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bal.Int64() != 21 {
		t.Fatalf("balance %s, want 21", bal)
	}
}

func TestEVMAnswersABCIInfo(t *testing.T) {
	r := startEVM(t, WithVersion("v9.9.9"))
	for _, tc := range []struct {
		name, method, path, body string
	}{
		{"jsonrpc post", http.MethodPost, "/", `{"jsonrpc":"2.0","id":1,"method":"abci_info","params":{}}`},
		{"post to method path", http.MethodPost, "/abci_info", ``},
		{"uri get", http.MethodGet, "/abci_info", ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, r.Endpoints().CometRPC+tc.path, bytes.NewBufferString(tc.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var raw map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(raw)
			result, _ := raw["result"].(map[string]any)
			info, _ := result["response"].(map[string]any)
			if info["version"] != "v9.9.9" || info["last_block_height"] == nil || info["data"] != "minitia" {
				t.Fatalf("abci_info = %s", b)
			}
		})
	}
}

func TestEVMUnknownCometMethod(t *testing.T) {
	r := startEVM(t)
	resp, err := http.Post(r.Endpoints().CometRPC, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"nope"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d, want 404", resp.StatusCode)
	}
}

// A long run of pipelined sends, never waiting in between, must all be mined: the sealer
// once stopped reading the pool's feed while sealing and deadlocked past 256 notifications.
func TestEVMMinesSustainedPipelinedSends(t *testing.T) {
	r := startEVM(t)
	sendPipelined(t, r, 1500, 1)
}

// TestEVMMinesPipelinedSendsUnderContention is the stall that once failed `make test` on a
// loaded machine: when the pool's promotion loop lagged behind a sender, more than 64 of its
// txs waited in geth's queue; a block sealed then made the pool re-read the sender's nonce from
// state, find nothing promotable above the txs still pending, and cut the queue to
// AccountQueue (64), leaving a nonce gap that no block could ever fill. Batched sends beside
// busy loops grow the queue fast enough to hit it within a few rounds.
func TestEVMMinesPipelinedSendsUnderContention(t *testing.T) {
	if testing.Short() {
		t.Skip("rounds of 1,500 txs beside busy loops")
	}
	var stop atomic.Bool
	var busy sync.WaitGroup
	for range 4 {
		busy.Go(func() {
			for n := 0; !stop.Load(); n++ { // spin: the CPU contention of a loaded machine
			}
		})
	}
	defer func() { stop.Store(true); busy.Wait() }()
	r := startEVM(t)
	for round := range 6 {
		sendPipelined(t, r, 1500, 100)
		t.Logf("round %d: mined", round)
	}
}

// sendPipelined sends n transfers from the funded account with consecutive nonces, batch at
// a time in one JSON-RPC request, and waits for the last to be mined. On a stall it reports
// what the pool holds.
func sendPipelined(t *testing.T, r *GethRollup, n, batch int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := r.Client()
	key, _ := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	from := crypto.PubkeyToAddress(key.PublicKey)
	chainID, _ := c.ChainID(ctx)
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	signer := types.LatestSignerForChainID(chainID)
	var last *types.Transaction
	var calls []rpc.BatchElem
	for i := range n {
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce + uint64(i),
			GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e11), Gas: 21_000, To: &to, Value: big.NewInt(1)})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := tx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Encode(raw)}, Result: new(common.Hash)})
		last = tx
		if len(calls) == batch || i == n-1 {
			if err := c.Client().BatchCallContext(ctx, calls); err != nil {
				t.Fatalf("send batch ending at %d: %v", i, err)
			}
			for _, call := range calls {
				if call.Error != nil {
					t.Fatalf("send batch ending at %d: %v", i, call.Error)
				}
			}
			calls = calls[:0]
		}
	}
	for {
		if rc, err := c.TransactionReceipt(ctx, last.Hash()); err == nil && rc.Status == types.ReceiptStatusSuccessful {
			return
		}
		select {
		case <-ctx.Done():
			pending, queued := r.eth.TxPool().Stats()
			mined, _ := c.NonceAt(context.Background(), from, nil)
			t.Fatalf("the last of %d pipelined txs (nonces %d..%d) was never mined: the chain is at nonce %d, the pool holds %d pending and %d queued",
				n, nonce, nonce+uint64(n)-1, mined, pending, queued)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// The embedded EVM rollup shows the faces a minievm shows: a Cosmos chain id with the EVM
// chain id derived from it, node_info naming minievm, the init prefix, the fee params, and
// the fee denom's balances read from the EVM.
func TestEVMLooksLikeAMinievm(t *testing.T) {
	r := startEVM(t, WithVersion("v1.2.3"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := &probe.Client{REST: r.Endpoints().REST, JSONRPC: r.Endpoints().JSONRPC}
	ni, err := c.NodeInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if vm, ok := vip.ByNodeName(ni.Name); !ok || vm != vip.EVM || ni.Network != DefaultEVMCosmosChainID || ni.AppName != "minitiad" || ni.Version != "v1.2.3" {
		t.Fatalf("node_info %+v", ni)
	}
	id, err := c.EVMChainID(ctx)
	if err != nil || id != probe.DeriveEVMChainID(DefaultEVMCosmosChainID) || r.ChainID() != fmt.Sprint(id) {
		t.Fatalf("evm chain id %d (%v), rollup says %s", id, err, r.ChainID())
	}
	if prefix, err := c.Bech32Prefix(ctx); err != nil || prefix != "init" {
		t.Fatalf("prefix %q, %v", prefix, err)
	}
	prices, err := c.MinGasPrices(ctx)
	if err != nil || len(prices) != 1 || prices[0].Denom != EVMFeeDenom || !prices[0].Amount.IsPositive() {
		t.Fatalf("min gas prices %v, %v", prices, err)
	}
	var params struct {
		Params struct {
			MinGasPrices []struct{ Denom, Amount string } `json:"min_gas_prices"`
		} `json:"params"`
	}
	if err := c.GetJSON(ctx, "/opinit/opchild/v1/params", &params); err != nil || len(params.Params.MinGasPrices) != 1 || params.Params.MinGasPrices[0].Denom != EVMFeeDenom {
		t.Fatalf("opchild params %+v, %v", params, err)
	}
	dev := common.HexToAddress(r.Funded()[0].Address)
	onCosmos, err := bech32.ConvertAndEncode("init", dev.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	bal, err := c.Balance(ctx, onCosmos, EVMFeeDenom)
	want, _ := r.Client().BalanceAt(ctx, dev, nil)
	if err != nil || bal.Amount.BigInt().Cmp(want) != 0 || want.Sign() <= 0 {
		t.Fatalf("balance %v (%v), the EVM holds %s", bal, err, want)
	}
	var status struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := c.GetJSON(ctx, "/cosmos/bank/v1beta1/balances/init1notbech32/by_denom?denom=umin", &status); err == nil {
		t.Fatal("a malformed address was answered")
	}
}

// TestEVMClockJumpsWhileSendsArriveThenStops is the flake an e2e policy spec met under load:
// the auto-miner's pool Sync ran beside the beacon's (AdjustTime's) and geth's pool answered
// only one of them, so the miner waited for ever: nothing was mined after the clock jump and
// Stop hung on the miner. Clock jumps beside a stream of sends must each succeed, every send
// must be mined, and Stop must return within its bound.
func TestEVMClockJumpsWhileSendsArriveThenStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r, err := StartGeth(ctx)
	if err != nil {
		t.Fatalf("start evm: %v", err)
	}
	stopped := make(chan error, 1)
	stop := func() {
		go func() { stopped <- r.Stop(context.Background()) }()
		select {
		case err := <-stopped:
			if err != nil {
				t.Errorf("stop: %v", err)
			}
		case <-time.After(stopWait + 10*time.Second):
			t.Fatal("Stop hung")
		}
	}
	c := r.Client()
	start, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	chainID, _ := c.ChainID(ctx)
	signer := types.LatestSignerForChainID(chainID)
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	const sends, jumps = 400, 12
	sent := make(chan error, 1)
	var last common.Hash
	go func() {
		for i := range sends {
			tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: uint64(i),
				GasFeeCap: big.NewInt(EVMMinGasPrice), Gas: 21_000, To: &to, Value: big.NewInt(1)})
			if err == nil {
				err = c.SendTransaction(ctx, tx)
			}
			if err != nil {
				sent <- fmt.Errorf("send nonce %d: %w", i, err)
				return
			}
			last = tx.Hash()
		}
		sent <- nil
	}()
	for i := range jumps {
		if err := r.AdjustTime(time.Hour); err != nil {
			stop()
			t.Fatalf("clock jump %d while sends arrive: %v", i, err)
		}
	}
	if err := <-sent; err != nil {
		stop()
		t.Fatal(err)
	}
	for {
		rc, err := c.TransactionReceipt(ctx, last)
		if err == nil && rc.Status == types.ReceiptStatusSuccessful {
			break
		}
		select {
		case <-ctx.Done():
			pending, queued := r.eth.TxPool().Stats()
			stop()
			t.Fatalf("the last of %d sends was not mined after %d clock jumps (pool: %d pending, %d queued)", sends, jumps, pending, queued)
		case <-time.After(10 * time.Millisecond):
		}
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if minTime := start.Time + jumps*3600; head.Time < minTime {
		t.Errorf("head time %d, want at least %d (%d jumps of an hour)", head.Time, minTime, jumps)
	}
	stop()
}

// The sealer runs each block's txs once and writes the block with the state it computed,
// skipping geth's import. Its blocks must be what geth's import would accept but for the
// header's shape (a minievm's, Shanghai's): geth's engine accepts each header with Cancun's
// fields added, and geth's state processor runs each block to its state root, receipts and
// gas, across multi-tx blocks, a contract creation that logs, a clock jump and an empty
// block.
func TestEVMSealedBlocksRunInGethToTheirRoots(t *testing.T) {
	r := startEVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sendPipelined(t, r, 300, 50)
	s := newSender(t, r)
	var err error
	if s.nonce, err = s.c.PendingNonceAt(ctx, crypto.PubkeyToAddress(s.key.PublicKey)); err != nil {
		t.Fatal(err)
	}
	// Init code that logs once (LOG0 of no data) and deploys nothing.
	create, err := s.send(ctx, &types.DynamicFeeTx{GasFeeCap: big.NewInt(EVMMinGasPrice), Gas: 100_000, Data: common.FromHex("0x60006000a000")})
	if err != nil {
		t.Fatal(err)
	}
	if rc := s.mined(ctx, create); rc.Status != types.ReceiptStatusSuccessful || len(rc.Logs) != 1 {
		t.Fatalf("contract creation: %+v", rc)
	}
	if err := r.AdjustTime(time.Hour); err != nil {
		t.Fatal(err)
	}
	sendPipelined(t, r, 100, 100)
	r.Commit() // an empty block

	src := r.BlockChain()
	head := src.CurrentBlock()
	// A sealed header is Shanghai-shaped, as a minievm's, which geth's import refuses under
	// Cancun's rules (it wants their header fields), so each block is checked as the import
	// checks it, in two parts: its header, a copy with Cancun's fields (no blob gas, the zero
	// beacon root, no requests), by geth's consensus engine (but for minievm's time and base
	// fee, minievmTimeAndFee); and the block as sealed, run by geth's state processor on its
	// parent's state, which must come to the block's state root, receipts and gas.
	engine := minievmTimeAndFee{src.Engine()}
	processor := core.NewStateProcessor(src)
	empty, full := 0, 0
	for n := uint64(1); n <= head.Number.Uint64(); n++ {
		b := src.GetBlockByNumber(n)
		if len(b.Transactions()) == 0 {
			empty++
		} else {
			full++
		}
		h := b.Header()
		if h.BlobGasUsed != nil || h.ExcessBlobGas != nil || h.ParentBeaconRoot != nil || h.RequestsHash != nil || h.WithdrawalsHash == nil {
			t.Fatalf("sealed block %d is not Shanghai-shaped: %+v", n, h)
		}
		if err := engine.VerifyHeader(src, withCancunFields(h)); err != nil {
			t.Fatalf("geth's engine refused sealed header %d: %v", n, err)
		}
		parent := src.GetHeaderByNumber(n - 1)
		statedb, err := src.StateAt(parent.Root, parent.Number, parent.Time)
		if err != nil {
			t.Fatal(err)
		}
		res, err := processor.Process(context.Background(), b, statedb, nil, nil, vm.Config{}, nil)
		if err != nil {
			t.Fatalf("geth's state processor refused sealed block %d: %v", n, err)
		}
		root := statedb.IntermediateRoot(src.Config().Rules(b.Number(), true, b.Time()))
		receipts := types.DeriveSha(res.Receipts, trie.NewStackTrie(nil))
		if root != b.Root() || receipts != b.ReceiptHash() || res.GasUsed != b.GasUsed() {
			t.Fatalf("block %d run by geth: root %s receipts %s gas %d; sealed: %s %s %d", n, root, receipts, res.GasUsed, b.Root(), b.ReceiptHash(), b.GasUsed())
		}
	}
	if empty < 2 || full < 3 {
		t.Fatalf("%d blocks, %d empty: want the clock jump's, Commit's (and the trailing) empty blocks and the txs' blocks", empty+full, empty)
	}
}

// withCancunFields is a copy of a Shanghai-shaped header with the fields Cancun and Prague
// add, as the sealer's execution has them: no blob gas, the zero beacon root, no requests.
func withCancunFields(h *types.Header) *types.Header {
	c := types.CopyHeader(h)
	c.BlobGasUsed, c.ExcessBlobGas, c.ParentBeaconRoot = new(uint64), new(uint64), new(common.Hash)
	c.RequestsHash = &types.EmptyRequestsHash
	return c
}

// minievmTimeAndFee is geth's consensus engine but for the two header rules a minievm's
// blocks (and so the embedded chain's) break: a block may share its parent's second, and
// the base fee stays the minimum gas price. It verifies a copy of each header with the
// timestamp and base fee geth's rules expect, chained by the copies' hashes; the import
// still runs every block as sealed (its base fee, its time) and checks its roots.
type minievmTimeAndFee struct{ consensus.Engine }

func (e minievmTimeAndFee) VerifyHeader(chain consensus.ChainHeaderReader, header *types.Header) error {
	parent := chain.GetHeader(header.ParentHash, header.Number.Uint64()-1)
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	return e.Engine.VerifyHeader(chain, gethRules(chain.Config(), parent, header))
}

func (e minievmTimeAndFee) VerifyHeaders(chain consensus.ChainHeaderReader, headers []*types.Header) (chan<- struct{}, <-chan error) {
	copies := make([]*types.Header, len(headers))
	for i, h := range headers {
		var parent *types.Header
		if i == 0 {
			parent = chain.GetHeader(h.ParentHash, h.Number.Uint64()-1)
		} else {
			parent = copies[i-1]
		}
		if parent == nil {
			copies[i] = h // the engine reports the missing ancestor
			continue
		}
		c := gethRules(chain.Config(), parent, h)
		c.ParentHash = parent.Hash()
		copies[i] = c
	}
	return e.Engine.VerifyHeaders(chain, copies)
}

// gethRules is header with the time and base fee geth's rules give it after parent.
func gethRules(cfg *params.ChainConfig, parent, header *types.Header) *types.Header {
	c := types.CopyHeader(header)
	if c.Time <= parent.Time {
		c.Time = parent.Time + 1
	}
	c.BaseFee = eip1559.CalcBaseFee(cfg, parent)
	return c
}
