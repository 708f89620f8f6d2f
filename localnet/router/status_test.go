package router

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/router"
)

// stepper drives one transfer through a stand-in with a fake clock, one step at a time.
type stepper struct {
	t     *testing.T
	s     *Server
	c     *api.Client
	clock *fakeClock
	chain *memChain
	key   *ecdsa.PrivateKey
	route *api.RouteResponse
	req   api.TrackRequest
}

func newStepper(t *testing.T, chain *memChain, key *ecdsa.PrivateKey, opts ...Option) *stepper {
	clock := newFakeClock()
	s := startRouter(t, append([]Option{WithTxSource(evmChain, chain), WithClock(clock.Now), WithStepInterval(time.Second)}, opts...)...)
	return &stepper{t: t, s: s, c: newClient(t, s, api.WithRetries(0)), clock: clock, chain: chain, key: key}
}

// send routes, builds and broadcasts a transfer to dst and tracks it.
func (st *stepper) send(dstChain, dstDenom, amount string) {
	t := st.t
	ctx := context.Background()
	signer := memSignerKey(t, st.chain, st.key, hookAccounts(st.s))
	addrs := addressesFor(signer.Address(), dstChain)
	route, err := st.c.Route(ctx, api.RouteRequest{AmountIn: amount, SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: dstChain, DestAssetDenom: dstDenom})
	if err != nil {
		t.Fatal(err)
	}
	st.route = route
	mreq := api.MsgsRequest{SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: dstChain, DestAssetDenom: dstDenom,
		AmountIn: route.AmountIn, AmountOut: route.AmountOut, Operations: route.Operations, SlippageTolerancePercent: "1"}
	for _, c := range route.RequiredChainAddresses {
		mreq.AddressList = append(mreq.AddressList, addrs[c])
	}
	if route.RequiredOPHook {
		hook, err := st.c.OPHook(ctx, api.OPHookRequest{SourceAddress: addrs[l1Chain], SourceAssetChainID: evmChain, SourceAssetDenom: evmNative,
			DestAddress: addrs[dstChain], DestAssetChainID: dstChain, DestAssetDenom: dstDenom})
		if err != nil {
			t.Fatal(err)
		}
		signed, err := signer.SignOPHook(ctx, *hook)
		if err != nil {
			t.Fatal(err)
		}
		mreq.SignedOPHook = &signed
	}
	msgs, err := st.c.Msgs(ctx, mreq)
	if err != nil {
		t.Fatal(err)
	}
	hash, chainID, err := signer.SignAndBroadcast(ctx, msgs.Txs[0])
	if err != nil {
		t.Fatal(err)
	}
	st.req = api.TrackRequest{TxHash: hash, ChainID: chainID}
	if _, err := st.c.Track(ctx, st.req); err != nil {
		t.Fatal(err)
	}
}

func (st *stepper) status() *api.StatusResponse {
	st.t.Helper()
	r, err := st.c.Status(context.Background(), st.req)
	if err != nil {
		st.t.Fatal(err)
	}
	return r
}

// run steps until the status is terminal (at most max steps) and returns every status.
func (st *stepper) run(max int) []*api.StatusResponse {
	st.t.Helper()
	var all []*api.StatusResponse
	for i := 0; i <= max; i++ {
		r := st.status()
		all = append(all, r)
		if r.Terminal() {
			return all
		}
		st.clock.Advance(time.Second)
	}
	st.t.Fatalf("not terminal after %d steps: %+v", max, all[len(all)-1])
	return nil
}

func states(all []*api.StatusResponse) string {
	var out []string
	for _, r := range all {
		if len(out) == 0 || out[len(out)-1] != r.State {
			out = append(out, r.State)
		}
	}
	return strings.Join(out, " > ")
}

func hopStates(all []*api.StatusResponse, i int) string {
	var out []string
	for _, r := range all {
		if len(r.TransferSequence) > i {
			s := r.TransferSequence[i].HopState()
			if len(out) == 0 || out[len(out)-1] != s {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, " > ")
}

func TestTransferMovesThroughHopStates(t *testing.T) {
	key, _ := newKey(t)
	st := newStepper(t, newMemChain(3370758106842963), key)
	st.send(nobleChain, ethOnNoble, "1000000")
	all := st.run(20)

	if got := states(all); got != "STATE_SUBMITTED > STATE_PENDING > STATE_COMPLETED_SUCCESS" {
		t.Errorf("states: %s", got)
	}
	for i, want := range []string{"TRANSFER_PENDING > TRANSFER_RECEIVED > TRANSFER_SUCCESS", "TRANSFER_PENDING > TRANSFER_RECEIVED > TRANSFER_SUCCESS"} {
		if got := hopStates(all, i); got != want {
			t.Errorf("hop %d: %s, want %s", i, got, want)
		}
	}
	first, final := all[0], all[len(all)-1]
	if first.Status != api.StateSubmitted || len(first.TransferSequence) != 0 {
		t.Errorf("first status %+v", first)
	}
	if final.Status != api.StateCompleted || !final.Succeeded() || final.Error != nil {
		t.Errorf("final %+v", final)
	}
	rel := final.TransferAssetRelease
	if rel == nil || rel.ChainID != nobleChain || rel.Denom != ethOnNoble || *rel.Amount != st.route.AmountOut || !rel.Released {
		t.Errorf("release %+v", rel)
	}
	h0, h1 := final.TransferSequence[0].IBCTransfer, final.TransferSequence[1].IBCTransfer
	if h0.PacketTxs.SendTx.TxHash != st.req.TxHash || h0.PacketTxs.SendTx.ChainID != evmChain {
		t.Errorf("hop 0 send_tx %+v, want the tracked tx", h0.PacketTxs.SendTx)
	}
	if h1.PacketTxs.SendTx.TxHash != h0.PacketTxs.ReceiveTx.TxHash || h1.FromChainID != l1Chain || h1.ToChainID != nobleChain {
		t.Errorf("hop 1 is not forwarded by hop 0's receive tx: %+v / %+v", h0, h1)
	}
	if !strings.HasPrefix(h0.PacketTxs.SendTx.ExplorerLink, "https://scan.example/3370758106842963/tx/0x") || h0.PacketTxs.AcknowledgeTx.ChainID != evmChain {
		t.Errorf("hop 0 txs %+v", h0.PacketTxs)
	}
	if len(final.Transfers) != 1 || final.Transfers[0].State != final.State || len(final.Transfers[0].TransferSequence) != 2 {
		t.Errorf("transfers %+v", final.Transfers)
	}
	// while pending, next_blocking_transfer points at the hop not yet received
	for _, r := range all {
		if r.State == api.StatePending && r.NextBlockingTransfer == nil {
			t.Errorf("pending without next_blocking_transfer: %+v", r)
		}
	}
	// a repeated track is idempotent and does not restart the transfer
	if _, err := st.c.Track(context.Background(), st.req); err != nil {
		t.Fatal(err)
	}
	if again := st.status(); again.State != api.StateCompletedSuccess || st.s.TransferCount() != 1 {
		t.Errorf("after re-track: %s, %d transfers", again.State, st.s.TransferCount())
	}
}

func TestFailingIBCHop(t *testing.T) {
	key, _ := newKey(t)
	st := newStepper(t, newMemChain(3370758106842963), key, WithFaults(Faults{FailHop: Hop(1), FailMessage: "ack error: insufficient funds"}))
	st.send(nobleChain, ethOnNoble, "1000000")
	all := st.run(20)
	if got := states(all); got != "STATE_SUBMITTED > STATE_PENDING > STATE_PENDING_ERROR > STATE_COMPLETED_ERROR" {
		t.Errorf("states: %s", got)
	}
	if got := hopStates(all, 1); got != "TRANSFER_PENDING > TRANSFER_FAILURE" {
		t.Errorf("hop 1: %s", got)
	}
	final := all[len(all)-1]
	if final.Status != api.StateFailed || final.Succeeded() || final.Error == nil || final.Error.Type != api.StatusErrorTransfer || final.Error.Message != "ack error: insufficient funds" {
		t.Errorf("final %+v", final)
	}
	h1 := final.TransferSequence[1].IBCTransfer
	if h1.PacketTxs.Error == nil || h1.PacketTxs.Error.Type != api.PacketErrorAcknowledgement || h1.PacketTxs.AcknowledgeTx == nil {
		t.Errorf("hop 1 packet %+v", h1.PacketTxs)
	}
	rel := final.TransferAssetRelease
	if rel == nil || rel.ChainID != l1Chain || rel.Denom != ethOnL1 || *rel.Amount != st.route.Operations[1].AmountIn {
		t.Errorf("refund release %+v", rel)
	}
	for _, r := range all {
		if r.State == api.StatePendingError && r.Status != api.StatePending {
			t.Errorf("pending error has high-level status %s", r.Status)
		}
	}
}

func TestFailingOPHookHop(t *testing.T) {
	key, _ := newKey(t)
	st := newStepper(t, newMemChain(3370758106842963), key, WithFaults(Faults{FailHop: Hop(9)})) // past the end: the last hop
	st.send(moveChain, ethOnMove, "5000")
	all := st.run(20)
	final := all[len(all)-1]
	if final.State != api.StateCompletedError || final.Status != api.StateFailed {
		t.Fatalf("final %+v", final)
	}
	if got := hopStates(all, 0); got != "TRANSFER_PENDING > TRANSFER_RECEIVED > TRANSFER_SUCCESS" {
		t.Errorf("hop 0: %s", got)
	}
	op := final.TransferSequence[1].OPInitTransfer
	if op == nil || op.State != api.OPInitTransferUnknown || op.Txs.SendTx != nil {
		t.Errorf("op hop %+v", op)
	}
	if rel := final.TransferAssetRelease; rel == nil || rel.ChainID != l1Chain || rel.Denom != ethOnL1 {
		t.Errorf("release %+v", rel)
	}
}

func TestOPHookRouteCompletes(t *testing.T) {
	key, _ := newKey(t)
	st := newStepper(t, newMemChain(3370758106842963), key)
	st.send(moveChain, ethOnMove, "5000")
	all := st.run(20)
	if got := hopStates(all, 1); got != "OPINIT_TRANSFER_SENT > OPINIT_TRANSFER_RECEIVED" {
		t.Errorf("op hop: %s", got)
	}
	final := all[len(all)-1]
	op := final.TransferSequence[1].OPInitTransfer
	if final.State != api.StateCompletedSuccess || op.Txs.SendTx.ChainID != l1Chain || op.Txs.ReceiveTx.ChainID != moveChain {
		t.Errorf("final %+v / %+v", final, op)
	}
}

func TestStuckHopIsAbandoned(t *testing.T) {
	key, _ := newKey(t)
	st := newStepper(t, newMemChain(3370758106842963), key, WithFaults(Faults{StuckHop: Hop(0)}), WithAbandonAfter(10*time.Second))
	st.send(l1Chain, ethOnL1, "100")
	all := st.run(30)
	if got := states(all); got != "STATE_SUBMITTED > STATE_PENDING > STATE_ABANDONED" {
		t.Errorf("states: %s", got)
	}
	if n := len(all); n != 12 { // submitted at 0, hop sent at 1, abandoned at 1+10
		t.Errorf("abandoned after %d polls, want 12", n)
	}
	pending := all[5]
	if pending.NextBlockingTransfer == nil || pending.NextBlockingTransfer.TransferSequenceIndex != 0 || hopStates(all, 0) != "TRANSFER_PENDING" {
		t.Errorf("stuck pending %+v", pending)
	}
	if final := all[len(all)-1]; final.Status != api.StateFailed || final.Error == nil {
		t.Errorf("final %+v", final)
	}
}

func TestTxNotMatchingItsRouteFails(t *testing.T) {
	chain := newMemChain(3370758106842963)
	key, _ := newKey(t)
	st := newStepper(t, chain, key)
	ctx := context.Background()
	signer := memSignerKey(t, chain, key)
	addrs := addressesFor(signer.Address(), l1Chain)
	route, err := st.c.Route(ctx, api.RouteRequest{AmountIn: "100", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: l1Chain, DestAssetDenom: ethOnL1})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.c.Msgs(ctx, api.MsgsRequest{SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: l1Chain, DestAssetDenom: ethOnL1,
		AmountIn: "100", AddressList: []string{addrs[evmChain], addrs[l1Chain]}, Operations: route.Operations})
	if err != nil {
		t.Fatal(err)
	}
	tx := *msgs.Txs[0].EVMTx
	tx.Value = "99" // not what the route needs
	hash, _, err := signer.SignAndBroadcast(ctx, api.Tx{EVMTx: &tx})
	if err != nil {
		t.Fatal(err)
	}
	st.req = api.TrackRequest{TxHash: hash, ChainID: evmChain}
	if _, err := st.c.Track(ctx, st.req); err != nil {
		t.Fatal(err)
	}
	final := st.run(5)[1]
	if final.State != api.StateCompletedError || final.Error == nil || final.Error.Type != api.StatusErrorTransactionExecution || !strings.Contains(final.Error.Message, "amount_in 100") {
		t.Errorf("final %+v", final)
	}
}

func TestForeignTxCompletesWithoutTransfers(t *testing.T) {
	chain := newMemChain(3370758106842963)
	key, _ := newKey(t)
	st := newStepper(t, chain, key)
	signer := memSignerKey(t, chain, key)
	hash, _, err := signer.SignAndBroadcast(context.Background(), api.Tx{EVMTx: &api.EVMTx{ChainID: evmChain, To: recipient.Hex(), Value: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	st.req = api.TrackRequest{TxHash: hash, ChainID: evmChain}
	if _, err := st.c.Track(context.Background(), st.req); err != nil {
		t.Fatal(err)
	}
	all := st.run(3)
	if final := all[len(all)-1]; final.State != api.StateCompletedSuccess || len(final.TransferSequence) != 0 {
		t.Errorf("final %+v", final)
	}
}

func TestTrackRefusesFailedTx(t *testing.T) {
	chain := newMemChain(3370758106842963)
	h := common.HexToHash("0x" + strings.Repeat("cd", 32))
	chain.txs[h] = ChainTx{Hash: h.Hex(), Success: false}
	s := startRouter(t, WithTxSource(evmChain, chain))
	status, e, raw := do(t, http.MethodPost, s.URL()+api.PathTrack, `{"tx_hash":"`+h.Hex()+`","chain_id":"3370758106842963"}`)
	if status != 400 || e.Code != api.CodeInvalidArgument || e.Message != "tx is invalid on chain" {
		t.Fatalf("%d %s", status, raw)
	}
}

func TestSameSeedSameAnswers(t *testing.T) {
	key, _ := newKey(t)
	run := func(seed uint64) []string {
		st := newStepper(t, newMemChain(3370758106842963), key, WithSeed(seed))
		st.send(moveChain, ethOnMove, "4242")
		var out []string
		for _, r := range st.run(20) {
			b, _ := json.Marshal(r)
			out = append(out, string(b))
		}
		return out
	}
	a, b := run(7), run(7)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("seed 7 gave two histories:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	differs := false
	for seed := uint64(8); seed < 16 && !differs; seed++ {
		differs = strings.Join(run(seed), "\n") != strings.Join(a, "\n")
	}
	if !differs {
		t.Error("eight other seeds all gave seed 7's history")
	}
}

func TestInjectedErrorsAreSeeded(t *testing.T) {
	pattern := func(seed uint64) string {
		s := startRouter(t, WithSeed(seed), WithFaults(Faults{ErrorRate: 0.5}))
		var b strings.Builder
		for range 40 {
			status, e, _ := do(t, http.MethodGet, s.URL()+api.PathStatus+"?tx_hash=x&chain_id=3370758106842963", "")
			if status == http.StatusServiceUnavailable {
				if e.Code != api.CodeUnavailable {
					t.Fatalf("503 with code %d", e.Code)
				}
				b.WriteByte('E')
			} else {
				b.WriteByte('.')
			}
		}
		return b.String()
	}
	a := pattern(3)
	if a != pattern(3) {
		t.Fatal("same seed, different error pattern")
	}
	if n := strings.Count(a, "E"); n < 8 || n > 32 {
		t.Errorf("error rate 0.5 gave %d of 40: %s", n, a)
	}
}

func TestControlEndpoint(t *testing.T) {
	chain := newMemChain(3370758106842963)
	s := startRouter(t, WithTxSource(evmChain, chain))
	raw := postRaw(t, s.URL()+PathFaults, `{"latency_ms":40,"track_not_found":2,"fail_hop":1,"fail_message":"boom"}`, 200)
	var f Faults
	if err := json.Unmarshal(raw, &f); err != nil || f.LatencyMS != 40 || f.TrackNotFound != 2 || f.FailHop == nil || *f.FailHop != 1 {
		t.Fatalf("POST answered %s", raw)
	}
	if got := s.Faults(); got.FailMessage != "boom" {
		t.Fatalf("faults %+v", got)
	}
	// latency applies to API calls
	start := time.Now()
	do(t, http.MethodGet, s.URL()+api.PathStatus+"?tx_hash=x&chain_id=3370758106842963", "")
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("answer after %v despite latency_ms 40", d)
	}
	// the lost-track budget counts down, then tracking works again
	key, _ := newKey(t)
	signer := memSignerKey(t, chain, key)
	hash, _, err := signer.SignAndBroadcast(context.Background(), api.Tx{EVMTx: &api.EVMTx{ChainID: evmChain, To: recipient.Hex(), Value: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"tx_hash":"` + hash + `","chain_id":"3370758106842963"}`
	for i := 0; i < 2; i++ {
		if status, e, _ := do(t, http.MethodPost, s.URL()+api.PathTrack, body); status != 404 || e.Message != "tx not found" || len(e.Details) != 0 {
			t.Fatalf("track %d: %d", i, status)
		}
	}
	postRaw(t, s.URL()+api.PathTrack, body, 200)
	if s.Faults().TrackNotFound != 0 {
		t.Errorf("budget left: %+v", s.Faults())
	}
	// DELETE clears
	status, _, raw := do(t, http.MethodDelete, s.URL()+PathFaults, "")
	if status != 200 || s.Faults() != (Faults{}) {
		t.Errorf("DELETE: %d %s", status, raw)
	}
	status, _, raw = do(t, http.MethodGet, s.URL()+PathFaults, "")
	if status != 200 || !strings.Contains(string(raw), `"error_rate":0`) {
		t.Errorf("GET: %d %s", status, raw)
	}
}

// signRaw signs an arbitrary tx for the mem chain (used where the signer would refuse).
func signRaw(t *testing.T, chain *memChain, key *ecdsa.PrivateKey, to common.Address, value int64, data []byte) string {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, _ := chain.PendingNonceAt(context.Background(), from)
	tx, err := types.SignNewTx(key, chain.signer, &types.DynamicFeeTx{ChainID: chain.id, Nonce: nonce, Gas: 100_000,
		GasFeeCap: big.NewInt(10), GasTipCap: big.NewInt(1), To: &to, Value: big.NewInt(value), Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if err := chain.SendTransaction(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
	return tx.Hash().Hex()
}

func TestTrackChecksTheSender(t *testing.T) {
	chain := newMemChain(3370758106842963)
	key, _ := newKey(t)
	st := newStepper(t, chain, key)
	ctx := context.Background()
	sender := crypto.PubkeyToAddress(key.PublicKey)
	addrs := addressesFor(sender, l1Chain)
	route, _ := st.c.Route(ctx, api.RouteRequest{AmountIn: "100", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: l1Chain, DestAssetDenom: ethOnL1})
	msgs, err := st.c.Msgs(ctx, api.MsgsRequest{SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: l1Chain, DestAssetDenom: ethOnL1,
		AmountIn: "100", AddressList: []string{addrs[evmChain], addrs[l1Chain]}, Operations: route.Operations})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := decodeHexForTest(msgs.Txs[0].EVMTx.Data)
	intruder, _ := newKey(t)
	st.req = api.TrackRequest{TxHash: signRaw(t, chain, intruder, common.HexToAddress(escrowEVM), 100, data), ChainID: evmChain}
	if _, err := st.c.Track(ctx, st.req); err != nil {
		t.Fatal(err)
	}
	final := st.run(3)[1]
	if final.State != api.StateCompletedError || !strings.Contains(final.Error.Message, "route's sender") {
		t.Errorf("final %+v", final.Error)
	}
}

func decodeHexForTest(s string) ([]byte, error) {
	return common.FromHex("0x" + strings.TrimPrefix(s, "0x")), nil
}

func TestCloseStopsEverything(t *testing.T) {
	tr := &http.Transport{}
	hc := &http.Client{Transport: tr}
	before := runtime.NumGoroutine()
	for range 3 {
		s, err := Start(context.Background(), WithTxSource(evmChain, newMemChain(3370758106842963)), WithFaults(Faults{LatencyMS: 1}))
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			resp, err := hc.Post(s.URL()+api.PathRoute, "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if _, err := hc.Get(s.URL() + "/health"); err == nil {
			t.Fatal("server still answers after Close")
		}
	}
	tr.CloseIdleConnections()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before, %d after", before, n)
	}
}
