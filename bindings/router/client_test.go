package router

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

func fastClient(t *testing.T, url string, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(url, append([]Option{WithPollBackoff(time.Millisecond, 5*time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewClientChecksTheURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:8080", "ftp://x", "http://"} {
		if _, err := NewClient(u); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
	c, err := NewClient("https://router-api.initia.xyz/")
	if err != nil || c.BaseURL() != "https://router-api.initia.xyz" {
		t.Fatalf("%v %v", c, err)
	}
}

func TestOperationJSONKeepsUnknownKinds(t *testing.T) {
	in := `[{"transfer":{"port":"transfer","channel":"channel-0","from_chain_id":"a","to_chain_id":"b","pfm_enabled":true,"supports_memo":true,"denom_in":"x","denom_out":"y","bridge_id":"IBC","smart_relay":false},"tx_index":0,"amount_in":"5","amount_out":"5"},
	{"op_init_transfer":{"from_chain_id":"b","to_chain_id":"c","denom_in":"y","denom_out":"z","op_init_bridge_id":"14","bridge_id":"OPINIT","smart_relay":false},"tx_index":0,"amount_in":"5","amount_out":"4"},
	{"swap":{"swap_in":{"swap_venue":{"name":"initia-dex"}},"chain_id":"c"},"tx_index":1,"amount_in":"4","amount_out":"3"}]`
	var ops []Operation
	if err := json.Unmarshal([]byte(in), &ops); err != nil {
		t.Fatal(err)
	}
	if ops[0].Kind() != "transfer" || ops[0].Transfer.Channel != "channel-0" || !ops[0].Transfer.PFMEnabled {
		t.Errorf("op 0 %+v", ops[0])
	}
	if ops[1].Kind() != "op_init_transfer" || ops[1].OPInitTransfer.OPInitBridgeID != "14" || ops[1].AmountOut != "4" {
		t.Errorf("op 1 %+v", ops[1])
	}
	if ops[2].Kind() != "swap" || ops[2].TxIndex != 1 || !strings.Contains(string(ops[2].Other["swap"]), "initia-dex") {
		t.Errorf("op 2 %+v", ops[2])
	}
	out, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal([]byte(in), &a)
	_ = json.Unmarshal(out, &b)
	if ja, jb := mustJSON(a), mustJSON(b); ja != jb {
		t.Errorf("round trip changed the operations:\n%s\n%s", ja, jb)
	}
	var bad Operation
	if err := json.Unmarshal([]byte(`{"transfer":{"channel":5}}`), &bad); err == nil {
		t.Error("a transfer with a numeric channel decoded")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestAPIErrorIsDecoded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case PathRoute:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"code":3,"message":"invalid amount_in: must be a positive integer","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","field_violations":[{"field":"amount_in","description":"must be a positive integer"}]}]}`))
		case PathMsgs:
			w.WriteHeader(502)
			_, _ = w.Write([]byte("bad gateway"))
		case PathTrack:
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"code":5,"message":"chain ID not supported","details":[]}`))
		}
	}))
	defer srv.Close()
	c := fastClient(t, srv.URL, WithRetries(0))
	_, err := c.Route(context.Background(), RouteRequest{})
	e, ok := AsAPIError(err)
	if !ok || e.HTTPStatus != 400 || e.Code != CodeInvalidArgument || e.Field() != "amount_in" || !IsInvalidArgument(err) || IsTransient(err) {
		t.Fatalf("route error %#v", err)
	}
	if !strings.Contains(err.Error(), "POST /v2/fungible/route: 400") {
		t.Errorf("message %q", err)
	}
	_, err = c.Msgs(context.Background(), MsgsRequest{})
	if e, ok := AsAPIError(err); !ok || e.Code != CodeUnavailable || e.Message != "bad gateway" || !IsTransient(err) {
		t.Fatalf("msgs error %#v", err)
	}
	_, err = c.Track(context.Background(), TrackRequest{TxHash: "0x1", ChainID: "x"})
	if !IsNotFound(err) || IsTxNotFound(err) {
		t.Fatalf("an unsupported chain is not a missing tx: %v", err)
	}
}

func TestTransientErrorsAreRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			w.WriteHeader(503)
			_, _ = w.Write([]byte(`{"code":14,"message":"unavailable","details":[]}`))
			return
		}
		var req RouteRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		_ = json.NewEncoder(w).Encode(RouteResponse{AmountIn: req.AmountIn, AmountOut: req.AmountIn})
	}))
	defer srv.Close()
	r, err := fastClient(t, srv.URL).Route(context.Background(), RouteRequest{AmountIn: "9"})
	if err != nil || r.AmountOut != "9" || n.Load() != 3 {
		t.Fatalf("%+v %v after %d requests", r, err, n.Load())
	}
	n.Store(0)
	if _, err := fastClient(t, srv.URL, WithRetries(1)).Route(context.Background(), RouteRequest{}); !IsTransient(err) || n.Load() != 2 {
		t.Fatalf("%v after %d requests", err, n.Load())
	}
}

func TestWaitTrackedRetriesOnlyTxNotFound(t *testing.T) {
	var n atomic.Int32
	reason := ReasonTxNotFound
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 3 {
			w.WriteHeader(404)
			_ = json.NewEncoder(w).Encode(APIError{Code: 5, Message: "tx not found", Details: []ErrorDetail{{Type: TypeErrorInfo, Reason: reason}}})
			return
		}
		_ = json.NewEncoder(w).Encode(TrackResponse{TxHash: "0xab", ExplorerLink: "https://x/0xab"})
	}))
	defer srv.Close()
	res, tries, err := fastClient(t, srv.URL).WaitTracked(context.Background(), TrackRequest{TxHash: "0xab", ChainID: "1"})
	if err != nil || tries != 4 || res.ExplorerLink != "https://x/0xab" {
		t.Fatalf("%+v %d %v", res, tries, err)
	}
	n.Store(0)
	reason = ReasonChainNotSupported
	_, tries, err = fastClient(t, srv.URL).WaitTracked(context.Background(), TrackRequest{TxHash: "0xab", ChainID: "1"})
	if err == nil || tries != 1 {
		t.Fatalf("unsupported chain retried: %d %v", tries, err)
	}
}

func TestWaitStatusHonoursContext(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Query().Get("tx_hash") != "0xab" || r.URL.Query().Get("chain_id") != "1" {
			w.WriteHeader(400)
			return
		}
		_ = json.NewEncoder(w).Encode(StatusResponse{State: StatePending, Status: StatePending})
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	updates := 0
	last, err := fastClient(t, srv.URL).WaitStatus(ctx, StatusRequest{TxHash: "0xab", ChainID: "1"}, func(*StatusResponse) { updates++ })
	if !errors.Is(err, context.DeadlineExceeded) || last == nil || last.State != StatePending || updates != 1 {
		t.Fatalf("%+v %v, %d updates", last, err, updates)
	}
	time.Sleep(20 * time.Millisecond) // a request already on the wire may still land
	polls := n.Load()
	time.Sleep(30 * time.Millisecond)
	if n.Load() != polls || polls < 2 {
		t.Errorf("%d polls, then %d", polls, n.Load())
	}
}

func TestTerminalStates(t *testing.T) {
	cases := []struct {
		state, status       string
		terminal, succeeded bool
	}{
		{StateSubmitted, "", false, false},
		{StatePending, StatePending, false, false},
		{StatePendingError, StatePending, false, false},
		{StateCompletedSuccess, StateCompleted, true, true},
		{StateCompletedSuccess, "", true, true},
		{StateCompletedError, StateFailed, true, false},
		{StateAbandoned, "", true, false},
		{"", StateCompleted, true, true},
		{"", StateFailed, true, false},
		{StateFailed, "", true, false},
	}
	for _, c := range cases {
		s := &StatusResponse{State: c.state, Status: c.status}
		if s.Terminal() != c.terminal || s.Succeeded() != c.succeeded {
			t.Errorf("%s/%s: terminal %v succeeded %v", c.state, c.status, s.Terminal(), s.Succeeded())
		}
	}
}

func TestTransferNeedsEveryAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(RouteResponse{AmountIn: "1", AmountOut: "1", RequiredChainAddresses: []string{"a", "b"}, ChainIDs: []string{"a", "b"}})
	}))
	defer srv.Close()
	_, err := fastClient(t, srv.URL).Transfer(context.Background(), TransferRequest{Addresses: map[string]string{"a": "x"}}, nopSigner{})
	if err == nil || !strings.Contains(err.Error(), "no address for chain b") {
		t.Fatal(err)
	}
}

type nopSigner struct{}

func (nopSigner) SignAndBroadcast(context.Context, Tx) (string, string, error) { return "", "", nil }
func (nopSigner) SignOPHook(context.Context, OPHookResponse) (SignedOPHook, error) {
	return SignedOPHook{}, nil
}

// stubBackend is a chain that knows only its id; enough to sign OP hooks.
type stubBackend struct{ EVMBackend }

func (stubBackend) ChainID(context.Context) (*big.Int, error) { return big.NewInt(1337), nil }
func (stubBackend) TransactionReceipt(context.Context, common.Hash) (*types.Receipt, error) {
	return nil, ethereum.NotFound
}

func TestEVMSignerSignsOPHooks(t *testing.T) {
	key, _ := crypto.GenerateKey()
	s, err := NewEVMSigner(context.Background(), stubBackend{}, "0x"+hex.EncodeToString(crypto.FromECDSA(key)))
	if err != nil {
		t.Fatal(err)
	}
	hook := OPHookResponse{ChainID: "initiation-2", Hook: []CosmosMsg{{MsgTypeURL: MsgInitiateTokenDepositURL,
		Msg: `{"sender":"init1x","bridge_id":"2","to":"init1y","amount":{"amount":"0","denom":"uinit"}}`}}}
	if _, err := s.SignOPHook(context.Background(), hook); err == nil || !strings.Contains(err.Error(), "WithHookAccounts") {
		t.Fatalf("signed without an account lookup: %v", err)
	}
	WithHookAccounts(func(_ context.Context, chainID, addr string) (uint64, uint64, error) {
		if chainID != hook.ChainID || addr != s.CosmosAddress() {
			return 0, 0, fmt.Errorf("asked for %s on %s", addr, chainID)
		}
		return 42, 7, nil
	})(s)
	signed, err := s.SignOPHook(context.Background(), hook)
	if err != nil {
		t.Fatal(err)
	}
	hrp, b, err := bech32.DecodeAndConvert(signed.Signer)
	if err != nil || hrp != "init" || common.BytesToAddress(b) != s.Address() {
		t.Fatalf("signer %s", signed.Signer)
	}
	tx, err := DecodeHookTx(signed.Hook)
	if err != nil || tx.Sequence != 7 || tx.SignMode != signing.SignMode_SIGN_MODE_EIP_191 || len(tx.Msgs) != 1 || tx.Msgs[0].BridgeID != "2" {
		t.Fatalf("%+v %v", tx, err)
	}
	if key, err := tx.Signer(); err != nil || common.BytesToAddress(key) != s.Address() {
		t.Fatalf("tx key %x %v", key, err)
	}
	if err := tx.Verify(hook.ChainID, 42); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		chain string
		num   uint64
	}{{"minimove-1", 42}, {hook.ChainID, 41}} {
		if err := tx.Verify(bad.chain, bad.num); err == nil {
			t.Errorf("verified for %s account %d", bad.chain, bad.num)
		}
	}
	if _, err := DecodeHookTx("bm90IGEgdHg="); err == nil {
		t.Error("decoded a non-tx")
	}
	if _, err := s.SignOPHook(context.Background(), OPHookResponse{}); err == nil {
		t.Error("signed an empty hook")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.SignAndBroadcast(ctx, Tx{EVMTx: &EVMTx{ChainID: "1", To: "0x00000000000000000000000000000000000000aa"}}); err == nil {
		t.Error("signed for another chain")
	}
}

func TestApproveCalldata(t *testing.T) {
	b, err := approveCall(ERC20Approval{TokenContract: "0x00000000000000000000000000000000000000e2", Spender: "0x00000000000000000000000000000000000000aa", Amount: "258"})
	if err != nil {
		t.Fatal(err)
	}
	want := "095ea7b3" + strings.Repeat("0", 62) + "aa" + strings.Repeat("0", 60) + "0102"
	if hex.EncodeToString(b) != want {
		t.Errorf("calldata %x", b)
	}
	if _, err := approveCall(ERC20Approval{TokenContract: "x", Spender: "0x00000000000000000000000000000000000000aa", Amount: "1"}); err == nil {
		t.Error("bad token accepted")
	}
}

// The amino sign doc is written as cosmjs's serializeSignDoc writes it: keys sorted at every
// level, numbers as strings, <, > and & escaped.
func TestAminoSignDocIsSortedJSON(t *testing.T) {
	got := string(AminoSignDoc("initiation-2", 10, 3, nil, 1, "a<b", []TokenDeposit{{Sender: "init1s", BridgeID: "2", To: "init1t", Amount: Coin{Amount: "0", Denom: "uinit"}}}))
	want := `{"account_number":"10","chain_id":"initiation-2","fee":{"amount":[],"gas":"1"},"memo":"a\u003cb","msgs":[{"type":"ophost/MsgInitiateTokenDeposit","value":{"amount":{"amount":"0","denom":"uinit"},"bridge_id":"2","sender":"init1s","to":"init1t"}}],"sequence":"3"}`
	if got != want {
		t.Fatalf("sign doc\n%s\nwant\n%s", got, want)
	}
}
