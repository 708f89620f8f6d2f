package indexer

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"

	api "github.com/vipharness/vipharness/bindings/indexer"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// loggerInitCode deploys a contract that emits, on every call, LOG2 with topic0 = pingID,
// topic1 = the first 32 bytes of calldata, and the calldata as data. Hand-assembled:
//
//	runtime: CALLDATASIZE PUSH1 0 PUSH1 0 CALLDATACOPY   memory[0:] = calldata
//	         PUSH1 0 CALLDATALOAD                         topic1
//	         PUSH32 pingID                                topic0
//	         CALLDATASIZE PUSH1 0 LOG2 STOP               log(memory[0:size], topic0, topic1)
//	init:    PUSH1 len PUSH1 12 PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN
func loggerInitCode() []byte {
	runtime := []byte{0x36, 0x60, 0x00, 0x60, 0x00, 0x37, 0x60, 0x00, 0x35, 0x7f}
	runtime = append(runtime, pingID.Bytes()...)
	runtime = append(runtime, 0x36, 0x60, 0x00, 0xa2, 0x00)
	return initCode(runtime)
}

// reverterInitCode deploys a contract whose every call reverts: PUSH1 0 PUSH1 0 REVERT.
func reverterInitCode() []byte { return initCode([]byte{0x60, 0x00, 0x60, 0x00, 0xfd}) }

func initCode(runtime []byte) []byte {
	n := byte(len(runtime))
	return append([]byte{0x60, n, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xf3}, runtime...)
}

// liveChain is an embedded EVM chain with a funded key and a nonce counter.
type liveChain struct {
	t      testing.TB
	r      *embedded.GethRollup
	c      *ethclient.Client
	key    *ecdsa.PrivateKey
	from   common.Address
	nonce  uint64
	chain  *big.Int
	feeCap *big.Int
}

func startLive(t testing.TB) *liveChain {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := embedded.StartGeth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	key, err := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Client()
	chainID, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return &liveChain{t: t, r: r, c: c, key: key, from: crypto.PubkeyToAddress(key.PublicKey), chain: chainID, feeCap: big.NewInt(100_000_000_000)}
}

func (l *liveChain) send(to *common.Address, value int64, data []byte, gas uint64) common.Hash {
	l.t.Helper()
	tx, err := types.SignNewTx(l.key, types.LatestSignerForChainID(l.chain), &types.DynamicFeeTx{
		ChainID: l.chain, Nonce: l.nonce, GasTipCap: big.NewInt(params.GWei), GasFeeCap: l.feeCap, Gas: gas, To: to, Value: big.NewInt(value), Data: data,
	})
	if err != nil {
		l.t.Fatal(err)
	}
	if err := l.c.SendTransaction(context.Background(), tx); err != nil {
		l.t.Fatalf("send nonce %d: %v", l.nonce, err)
	}
	l.nonce++
	return tx.Hash()
}

func (l *liveChain) receipt(h common.Hash) *types.Receipt {
	l.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := l.c.TransactionReceipt(context.Background(), h)
		if err == nil {
			return r
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("receipt %s: %v", h, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLiveChainEndToEnd(t *testing.T) {
	live := startLive(t)
	recipients := []common.Address{common.HexToAddress("0x00000000000000000000000000000000000000a1"), common.HexToAddress("0x00000000000000000000000000000000000000a2")}
	topicAddr := common.HexToAddress("0x7091c000000000000000000000000000000000aa") // appears only in log topics
	var sent []common.Hash
	for i := range 5 {
		sent = append(sent, live.send(&recipients[i%2], int64(i+1), nil, 21000))
	}
	deploy := live.send(nil, 0, loggerInitCode(), 200_000)
	sent = append(sent, deploy)
	logger := live.receipt(deploy).ContractAddress
	calldata := append(common.LeftPadBytes(topicAddr.Bytes(), 32), []byte("hello")...)
	for range 3 {
		sent = append(sent, live.send(&logger, 0, calldata, 60_000))
	}
	revDeploy := live.send(nil, 0, reverterInitCode(), 200_000)
	sent = append(sent, revDeploy)
	reverter := live.receipt(revDeploy).ContractAddress
	failed := live.send(&reverter, 0, nil, 50_000)
	sent = append(sent, failed)
	last := live.receipt(failed)
	if last.Status != types.ReceiptStatusFailed {
		t.Fatal("the reverting call succeeded")
	}

	ix, err := New(t.Context(), live.r.Endpoints().JSONRPC, WithPollInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	waitHeight(t, ix, last.BlockNumber.Uint64())

	// Every tx is served exactly as the node's eth_getBlockReceipts has it, restricted to the
	// service's fields.
	byHash := map[string]api.EVMTx{}
	for _, h := range sent {
		r := get(t, ix.URL(), "/indexer/tx/v1/evm-txs/"+h.Hex())
		if r.status != 200 {
			t.Fatalf("tx %s: %d %s", h, r.status, r.body)
		}
		var tr api.TxResponse
		if err := json.Unmarshal([]byte(r.body), &tr); err != nil {
			t.Fatal(err)
		}
		byHash[h.Hex()] = tr.Tx
		rcpt := live.receipt(h)
		var raw []json.RawMessage
		if err := live.c.Client().CallContext(t.Context(), &raw, "eth_getBlockReceipts", rcpt.BlockHash.Hex()); err != nil {
			t.Fatal(err)
		}
		var node api.EVMTx
		if err := json.Unmarshal(raw[rcpt.TransactionIndex], &node); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(api.TxResponse{Tx: node})
		if r.body != string(want) {
			t.Fatalf("tx %s:\n got %s\nwant %s", h, r.body, want)
		}
	}
	dep := byHash[deploy.Hex()]
	if dep.To != "" || dep.ContractAddress == nil || !strings.EqualFold(*dep.ContractAddress, logger.Hex()) || !strings.Contains(mustJSON(dep), `"to":""`) {
		t.Fatalf("deploy tx: to=%q contract=%v", dep.To, dep.ContractAddress)
	}
	call := byHash[sent[6].Hex()]
	if len(call.Logs) != 1 || len(call.Logs[0].Topics) != 2 || call.Logs[0].Topics[0] != pingID.Hex() ||
		common.HexToAddress(call.Logs[0].Topics[1]) != topicAddr || call.Logs[0].Data != hexutil.Encode(calldata) || !call.Succeeded() {
		t.Fatalf("logged call: %s", mustJSON(call))
	}
	if f := byHash[failed.Hex()]; f.Status != "0x0" || f.Succeeded() {
		t.Fatalf("failed call status %s", f.Status)
	}
	if h, _ := byHash[sent[0].Hex()].Height(); h == 0 || byHash[sent[0].Hex()].From != strings.ToLower(live.from.Hex()) {
		t.Fatalf("transfer: %s", mustJSON(byHash[sent[0].Hex()]))
	}

	// Every endpoint.
	all, _ := walk(t, ix.URL(), "/indexer/tx/v1/evm-txs", url.Values{"pagination.reverse": {"false"}}, 3)
	wantAll := make([]string, len(sent))
	for i, h := range sent {
		wantAll[i] = h.Hex()
	}
	if !slices.Equal(hashes(all), wantAll) {
		t.Fatalf("all: %v\nwant %v", hashes(all), wantAll)
	}
	desc, _ := walk(t, ix.URL(), "/indexer/tx/v1/evm-txs", url.Values{}, 4)
	if !slices.Equal(hashes(desc), reversed(wantAll)) {
		t.Fatal("descending walk differs")
	}
	accounts := []struct {
		name string
		a    common.Address
		want []common.Hash
	}{
		{"sender", live.from, sent},
		{"recipient", recipients[1], []common.Hash{sent[1], sent[3]}},
		{"created and called contract", logger, append([]common.Hash{deploy}, sent[6:9]...)},
		{"address in a log topic", topicAddr, sent[6:9]},
		{"reverter", reverter, []common.Hash{revDeploy, failed}},
	}
	for _, c := range accounts {
		got, _ := walk(t, ix.URL(), "/indexer/tx/v1/evm-txs/by_account/"+c.a.Hex(), url.Values{"pagination.reverse": {"false"}}, 2)
		var want []string
		for _, h := range c.want {
			want = append(want, h.Hex())
		}
		if !slices.Equal(hashes(got), want) {
			t.Fatalf("%s: %v\nwant %v", c.name, hashes(got), want)
		}
	}
	for _, h := range sent {
		rc := live.receipt(h)
		p := getPage(t, ix.URL(), fmt.Sprintf("/indexer/tx/v1/evm-txs/by_height/%d?pagination.limit=1000", rc.BlockNumber))
		if !slices.Contains(hashes(p.Txs), h.Hex()) {
			t.Fatalf("by_height %d misses %s", rc.BlockNumber, h)
		}
	}
	if p := getPage(t, ix.URL(), "/indexer/tx/v1/evm-txs"); p.Pagination.Total != fmt.Sprint(len(sent)) {
		t.Fatalf("total %s, want %d", p.Pagination.Total, len(sent))
	}
	if r := get(t, ix.URL(), "/indexer/tx/v1/evm-txs/0x"+strings.Repeat("00", 32)); r.status != 404 || r.body != "tx not found" {
		t.Fatalf("unknown hash: %d %s", r.status, r.body)
	}

	// The indexer keeps following the live chain.
	more := live.send(&recipients[0], 9, nil, 21000)
	waitHeight(t, ix, live.receipt(more).BlockNumber.Uint64())
	if r := get(t, ix.URL(), "/indexer/tx/v1/evm-txs/"+more.Hex()); r.status != 200 {
		t.Fatalf("new tx: %d", r.status)
	}
	if ix.Count() != len(sent)+1 {
		t.Fatalf("count %d", ix.Count())
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestNewFailsOnUnreachableChain(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := New(ctx, "http://127.0.0.1:1"); err == nil {
		t.Fatal("New succeeded without a chain")
	}
}
