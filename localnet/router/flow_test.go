package router

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/router"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// flowEnv is a stand-in linked to the shared embedded EVM chain, a client and a funded
// signer of its own.
type flowEnv struct {
	chain  *embedded.GethRollup
	s      *Server
	c      *api.Client
	signer *api.EVMSigner
}

func newFlow(t *testing.T, faults Faults, copts ...api.Option) *flowEnv {
	t.Helper()
	r, key := sharedEVM(t)
	s := startRouter(t, WithChain(r.ChainID(), r.Endpoints().JSONRPC), WithStepInterval(5*time.Millisecond), WithFaults(faults), WithSeed(42))
	return &flowEnv{chain: r, s: s, c: newClient(t, s, copts...), signer: evmSigner(t, r, key, hookAccounts(s))}
}

func (f *flowEnv) request(dstChain, dstDenom, amount string) api.TransferRequest {
	return api.TransferRequest{
		Route:     api.RouteRequest{AmountIn: amount, SourceAssetChainID: f.chain.ChainID(), SourceAssetDenom: evmNative, DestAssetChainID: dstChain, DestAssetDenom: dstDenom},
		Addresses: addressesFor(f.signer.Address(), dstChain),
	}
}

func (f *flowEnv) balance(t *testing.T, a string) *big.Int {
	t.Helper()
	b, err := f.chain.Client().BalanceAt(context.Background(), common.HexToAddress(a), nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTransferFlowCompletes(t *testing.T) {
	f := newFlow(t, Faults{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := f.balance(t, escrowEVM)
	req := f.request(nobleChain, ethOnNoble, "2500000000000000")
	var mu sync.Mutex
	var seen []string
	req.OnStatus = func(_ api.TrackRequest, st *api.StatusResponse) {
		mu.Lock()
		seen = append(seen, st.State)
		mu.Unlock()
	}
	res, err := f.c.Transfer(ctx, req, f.signer)
	if err != nil {
		t.Fatal(err)
	}
	final := res.Status()
	if final.State != api.StateCompletedSuccess || final.Status != api.StateCompleted {
		t.Fatalf("final %s / %s", final.State, final.Status)
	}
	if len(res.Txs) != 1 || res.Txs[0].ChainID != "3370758106842963" || res.Txs[0].TrackTries != 1 || res.OPHook != nil {
		t.Errorf("txs %+v", res.Txs)
	}
	if got := new(big.Int).Sub(f.balance(t, escrowEVM), before); got.String() != "2500000000000000" {
		t.Errorf("escrow received %s", got)
	}
	if *final.TransferAssetRelease.Amount != res.Route.AmountOut || len(final.TransferSequence) != 2 {
		t.Errorf("final %+v", final)
	}
	if !strings.HasPrefix(res.Txs[0].Tracked.ExplorerLink, "https://scan.example/3370758106842963/tx/") {
		t.Errorf("explorer link %q", res.Txs[0].Tracked.ExplorerLink)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 || seen[len(seen)-1] != api.StateCompletedSuccess {
		t.Errorf("status updates %v", seen)
	}
}

func TestTransferFlowFailingHop(t *testing.T) {
	f := newFlow(t, Faults{FailHop: Hop(1), FailMessage: "receiver rejected the packet"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := f.c.Transfer(ctx, f.request(nobleChain, ethOnNoble, "1000"), f.signer)
	var te *api.TransferError
	if !errors.As(err, &te) {
		t.Fatalf("want a TransferError, got %v", err)
	}
	if te.Status.State != api.StateCompletedError || te.Status.Status != api.StateFailed || !strings.Contains(err.Error(), "receiver rejected the packet") {
		t.Errorf("error %v / %+v", err, te.Status)
	}
	if res.Status() != te.Status || res.Status().TransferSequence[1].IBCTransfer.State != api.TransferFailure {
		t.Errorf("result %+v", res.Status())
	}
}

func TestTransferFlowRecoversLostTracks(t *testing.T) {
	f := newFlow(t, Faults{TrackNotFound: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := f.c.Transfer(ctx, f.request(l1Chain, ethOnL1, "1000"), f.signer)
	if err != nil {
		t.Fatal(err)
	}
	if res.Txs[0].TrackTries != 4 || res.Status().State != api.StateCompletedSuccess {
		t.Errorf("track tries %d, final %s", res.Txs[0].TrackTries, res.Status().State)
	}
	if n := f.s.Requests()[api.PathTrack]; n != 4 {
		t.Errorf("the stand-in saw %d tracks", n)
	}
}

func TestTransferFlowGivesUpTracking(t *testing.T) {
	f := newFlow(t, Faults{TrackNotFound: 100}, api.WithTrackAttempts(3))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := f.c.Transfer(ctx, f.request(l1Chain, ethOnL1, "1000"), f.signer)
	if !api.IsTxNotFound(err) || !strings.Contains(err.Error(), "gave up after 3") || len(res.Txs) != 1 {
		t.Fatalf("got %v", err)
	}
}

func TestTransferFlowWithOPHook(t *testing.T) {
	f := newFlow(t, Faults{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := f.c.Transfer(ctx, f.request(moveChain, ethOnMove, "7000"), f.signer)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Route.RequiredOPHook || res.OPHook == nil || res.OPHook.ChainID != l1Chain || len(res.OPHook.Hook) != 1 {
		t.Fatalf("op hook %+v", res.OPHook)
	}
	if !strings.Contains(res.OPHook.Hook[0].Msg, bech("init", recipient)) || !strings.Contains(res.OPHook.Hook[0].Msg, f.signer.CosmosAddress()) {
		t.Errorf("hook msg %s", res.OPHook.Hook[0].Msg)
	}
	data, _ := decodeHexForTest(res.Msgs.Txs[0].EVMTx.Data)
	vals, err := initiateArgs.Unpack(data[4:])
	if err != nil || !strings.Contains(vals[2].(string), `"op_hook"`) || vals[1].(string) != f.signer.CosmosAddress() {
		t.Errorf("calldata %v %v", vals, err)
	}
	final := res.Status()
	if final.State != api.StateCompletedSuccess || final.TransferSequence[1].OPInitTransfer.State != api.OPInitTransferReceived {
		t.Errorf("final %+v", final)
	}
}

func TestTransferFlowSurvivesInjectedErrors(t *testing.T) {
	f := newFlow(t, Faults{ErrorRate: 0.3, LatencyMS: 1}, api.WithRetries(12))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := f.c.Transfer(ctx, f.request(nobleChain, ethOnNoble, "1000"), f.signer)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status().State != api.StateCompletedSuccess {
		t.Errorf("final %s", res.Status().State)
	}
}

func TestTransferFlowCancelStopsPolling(t *testing.T) {
	f := newFlow(t, Faults{StuckHop: Hop(0)})
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := f.c.Transfer(ctx, f.request(l1Chain, ethOnL1, "1000"), f.signer)
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want DeadlineExceeded, got %v", err)
	}
	if took > 2*time.Second {
		t.Errorf("Transfer returned %v after the deadline", took)
	}
	if len(res.Txs) != 1 || res.Txs[0].Tracked == nil {
		t.Fatalf("the transfer did not get to polling: %+v", res.Txs)
	}
	time.Sleep(50 * time.Millisecond) // a request already on the wire may still land
	polls := f.s.Requests()[api.PathStatus]
	if polls == 0 {
		t.Fatal("no status polls")
	}
	time.Sleep(150 * time.Millisecond)
	if after := f.s.Requests()[api.PathStatus]; after != polls {
		t.Errorf("status polled %d more times after Transfer returned", after-polls)
	}
}

func TestEVMSignerRefusesForeignTxs(t *testing.T) {
	r, key := sharedEVM(t)
	s := evmSigner(t, r, key)
	ctx := context.Background()
	cases := map[string]api.Tx{
		"cosmos tx":   {CosmosTx: &api.CosmosTx{ChainID: l1Chain}},
		"other chain": {EVMTx: &api.EVMTx{ChainID: "1", To: escrowEVM, Value: "1"}},
		"other signer": {EVMTx: &api.EVMTx{ChainID: r.ChainID(), To: escrowEVM, Value: "1",
			SignerAddress: "0x00000000000000000000000000000000000000ff"}},
		"bad value": {EVMTx: &api.EVMTx{ChainID: r.ChainID(), To: escrowEVM, Value: "1.5"}},
		"bad data":  {EVMTx: &api.EVMTx{ChainID: r.ChainID(), To: escrowEVM, Value: "1", Data: "zz"}},
	}
	for name, tx := range cases {
		if _, _, err := s.SignAndBroadcast(ctx, tx); err == nil {
			t.Errorf("%s: signed", name)
		}
	}
	// an approval goes out before the transaction itself
	h, chain, err := s.SignAndBroadcast(ctx, api.Tx{EVMTx: &api.EVMTx{ChainID: r.ChainID(), To: escrowEVM, Value: "1", Data: "0xabcd",
		RequiredERC20Approvals: []api.ERC20Approval{{TokenContract: "0x00000000000000000000000000000000000000e2", Spender: escrowEVM, Amount: "5"}}}})
	if err != nil || chain != r.ChainID() {
		t.Fatal(err)
	}
	tx, _, err := r.Client().TransactionByHash(ctx, common.HexToHash(h))
	if err != nil || tx.Nonce() == 0 {
		t.Fatalf("tx %v nonce %d: the approval did not go first", err, tx.Nonce())
	}
}
