package ethrpc_test

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	bind "github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/minitia/xevm"
)

const mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

// evmNode is a started EVM minitia with a JSON-RPC client and the funded key's transactor.
type evmNode struct {
	n    *minitia.Node
	c    *ethclient.Client
	opts *bind.TransactOpts
}

// startEVM starts an EVM minitia with cfg's home settings (the rest is the tests' own) and
// dials its JSON-RPC; the test stops both.
func startEVM(ctx context.Context, t *testing.T, cfg minitia.Config) *evmNode {
	t.Helper()
	cfg.VM, cfg.Mnemonics, cfg.GeneratedAccounts, cfg.MinGasPrice = vip.EVM, []string{mnemonic}, 1, "14"
	n, err := minitia.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	c, err := ethclient.DialContext(ctx, n.JSONRPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	chainID, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.ToECDSA(n.Funded()[0].Key.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	opts := bind.NewKeyedTransactor(key, chainID)
	opts.Context = ctx
	return &evmNode{n: n, c: c, opts: opts}
}

// The scoring life cycle through go-ethereum's own client and the abigen bindings, against
// the EVM minitia's JSON-RPC: every tx an Ethereum tx in its Cosmos wrapping.
func TestScoringThroughGoEthereumsClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := startEVM(ctx, t, minitia.Config{})
	n, c, opts := node.n, node.c, node.opts
	if chainID, err := c.ChainID(ctx); err != nil || chainID.Cmp(xevm.EVMChainID(n.ChainID())) != 0 {
		t.Fatalf("chain id %s (%v), want %s", chainID, err, xevm.EVMChainID(n.ChainID()))
	}
	score := vipscore.NewVipScore()
	addr, deployTx, err := bind.DeployContract(opts, common.FromHex(vipscore.VipScoreMetaData.Bin), c, score.PackConstructor(7))
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	got, err := bind.WaitDeployed(ctx, c, deployTx.Hash())
	if err != nil {
		t.Fatalf("wait deployed: %v", err)
	}
	if got != addr {
		t.Fatalf("deployed at %s, the receipt says %s", addr, got)
	}
	inst := score.Instance(c, addr)
	a, b := common.HexToAddress("0xaa"), common.HexToAddress("0xbb")
	tx, err := bind.Transact(inst, opts, score.PackUpdateScores(7, []common.Address{a, b}, []uint64{10, 20}))
	if err != nil {
		t.Fatalf("updateScores: %v", err)
	}
	receipt, err := bind.WaitMined(ctx, c, tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	// As on a minievm, the fee token's Transfer logs (the fee paid, then the unused gas's
	// refund) surround the contract's.
	transfer := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	var scores, fees int
	for _, l := range receipt.Logs {
		switch {
		case l.Address == addr:
			scores++
		case len(l.Topics) == 3 && l.Topics[0] == transfer:
			fees++
		}
	}
	if receipt.Status != types.ReceiptStatusSuccessful || scores != 2 || fees != 2 || len(receipt.Logs) != 4 {
		t.Fatalf("receipt status %d with %d logs (%d of the contract, %d fee transfers), want success, two UpdateScore logs and the fee's payment and refund",
			receipt.Status, len(receipt.Logs), scores, fees)
	}
	if receipt.GasUsed <= 21_000 {
		t.Fatalf("gas used %d: Cosmos gas is above the EVM's alone", receipt.GasUsed)
	}
	// Reads can lag a receipt by a block (the index is fed before the state commits).
	var out vipscore.ScoresOutput
	for i := 0; i < 50; i++ {
		if out, err = bind.Call(inst, &bind.CallOpts{Context: ctx}, score.PackScores(7, b), score.UnpackScores); err == nil && out.Amount == 20 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out.Amount != 20 {
		t.Fatalf("score of b %d (%v), want 20", out.Amount, err)
	}
	logs, err := c.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(1), Addresses: []common.Address{addr}})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 3 { // CreateStage at deploy, then two UpdateScore
		t.Fatalf("%d logs of the contract, want 3", len(logs))
	}
	block, err := c.BlockByNumber(ctx, receipt.BlockNumber)
	if err != nil {
		t.Fatalf("block %s: %v", receipt.BlockNumber, err)
	}
	if block.Hash() != receipt.BlockHash || block.Transactions().Len() != 1 || block.Transactions()[0].Hash() != tx.Hash() {
		t.Fatalf("block %s (%d txs) is not the receipt's %s", block.Hash(), block.Transactions().Len(), receipt.BlockHash)
	}

	// A finalized stage's update reverts: eth_call and eth_estimateGas say so, as a minievm does.
	finalize, err := bind.Transact(inst, opts, score.PackFinalizeStage(7))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitMined(ctx, c, finalize.Hash()); err != nil {
		t.Fatal(err)
	}
	var callErr error
	for i := 0; i < 50; i++ {
		_, callErr = c.CallContract(ctx, ethereum.CallMsg{From: opts.From, To: &addr, Data: score.PackUpdateScore(7, a, 1)}, nil)
		if callErr != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var rpcErr rpc.Error
	if !errors.As(callErr, &rpcErr) || rpcErr.ErrorCode() != -32000 || callErr.Error() != "Reverted" {
		t.Fatalf("call on a finalized stage: %v, want -32000 Reverted", callErr)
	}
	if _, err := c.EstimateGas(ctx, ethereum.CallMsg{From: opts.From, To: &addr, Data: score.PackUpdateScore(7, a, 1)}); err == nil || !strings.Contains(err.Error(), "Reverted") {
		t.Fatalf("estimate on a finalized stage: %v, want Reverted", err)
	}
}

// Subscriptions over the WebSocket port, polled filters over HTTP, and the HTTP port's
// refusal of an upgrade, as a minievm serves them.
func TestSubscriptionsAndFilters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := startEVM(ctx, t, minitia.Config{})
	n, c, opts := node.n, node.c, node.opts
	ws, err := ethclient.DialContext(ctx, n.JSONRPCWSURL())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	heads := make(chan *types.Header, 16)
	sub, err := ws.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	logs := make(chan types.Log, 16)
	logSub, err := ws.SubscribeFilterLogs(ctx, ethereum.FilterQuery{}, logs)
	if err != nil {
		t.Fatal(err)
	}
	defer logSub.Unsubscribe()
	var filterID string
	if err := c.Client().CallContext(ctx, &filterID, "eth_newBlockFilter"); err != nil {
		t.Fatal(err)
	}

	score := vipscore.NewVipScore()
	_, tx, err := bind.DeployContract(opts, common.FromHex(vipscore.VipScoreMetaData.Bin), c, score.PackConstructor(3))
	if err != nil {
		t.Fatal(err)
	}
	receipt, err := bind.WaitMined(ctx, c, tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-logs:
		if l.TxHash != tx.Hash() {
			t.Fatalf("log of tx %s, want the deploy's %s", l.TxHash, tx.Hash())
		}
	case err := <-logSub.Err():
		t.Fatal(err)
	case <-ctx.Done():
		t.Fatal("no log notification")
	}
	seen := false
	for !seen {
		select {
		case h := <-heads:
			seen = h.Number.Cmp(receipt.BlockNumber) == 0 && h.Hash() == receipt.BlockHash
		case err := <-sub.Err():
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatal("no head notification of the deploy's block")
		}
	}
	var changes []common.Hash
	if err := c.Client().CallContext(ctx, &changes, "eth_getFilterChanges", filterID); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(changes, receipt.BlockHash) {
		t.Fatalf("block filter changes %v lack the deploy's block %s", changes, receipt.BlockHash)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.JSONRPCURL(), nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("an upgrade on the HTTP port answered %d, want 405", res.StatusCode)
	}
}

// A kept chain resumes with its Ethereum blocks and receipts: the index is fed again from
// CometBFT's stores, and gives the same blocks, hashes and all.
func TestAResumedChainKeepsItsEthereumBlocks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := minitia.Config{Home: t.TempDir(), Persist: true}
	first := startEVM(ctx, t, cfg)
	_, tx, err := bind.DeployContract(first.opts, common.FromHex(vipscore.VipScoreMetaData.Bin), first.c, vipscore.NewVipScore().PackConstructor(3))
	if err != nil {
		t.Fatal(err)
	}
	before, err := bind.WaitMined(ctx, first.c, tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	first.c.Close()
	if err := first.n.Close(); err != nil {
		t.Fatal(err)
	}

	c := startEVM(ctx, t, cfg).c
	after, err := c.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		t.Fatalf("the deploy's receipt after the restart: %v", err)
	}
	if after.BlockHash != before.BlockHash || after.ContractAddress != before.ContractAddress || len(after.Logs) != len(before.Logs) {
		t.Fatalf("after the restart the receipt is in block %s at %s with %d logs; before: %s at %s with %d",
			after.BlockHash, after.ContractAddress, len(after.Logs), before.BlockHash, before.ContractAddress, len(before.Logs))
	}
	block1, err := c.HeaderByNumber(ctx, big.NewInt(1))
	if err != nil || block1.Number.Uint64() != 1 {
		t.Fatalf("block 1 after the restart: %v %v", block1, err)
	}
	code, err := c.CodeAt(ctx, before.ContractAddress, nil)
	if err != nil || len(code) == 0 {
		t.Fatalf("the contract's code after the restart: %d bytes, %v", len(code), err)
	}
}
