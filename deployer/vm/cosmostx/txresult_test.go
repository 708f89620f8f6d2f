package cosmostx

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/deployer/push"
)

func TestDecodeTxResponseSkipsTxAndEvents(t *testing.T) {
	events := make([]abci.Event, 500)
	for i := range events {
		events[i] = abci.Event{Type: "wasm", Attributes: []abci.EventAttribute{{Key: "addr", Value: fmt.Sprintf("a%d", i)}}}
	}
	for _, want := range []sdk.TxResponse{
		{Height: 42, Code: 0, GasWanted: 3_000_000, GasUsed: 2_246_240},
		{Height: 7, Codespace: "wasm", Code: 5, RawLog: "execute wasm contract failed: stage finalized", GasWanted: 900_000, GasUsed: 123_456},
		{Height: 1},
	} {
		in := want
		in.TxHash, in.Events = "AB", events
		bz, err := (&txtypes.GetTxResponse{TxResponse: &in}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeTxResponse(bz)
		if err != nil {
			t.Fatal(err)
		}
		if got.Height != want.Height || got.Code != want.Code || got.Codespace != want.Codespace || got.RawLog != want.RawLog ||
			got.GasWanted != want.GasWanted || got.GasUsed != want.GasUsed {
			t.Errorf("decoded %+v, want %+v", got, want)
		}
	}
	for _, bad := range [][]byte{{0x12, 0x05, 0x08}, {0xff}, {}} {
		if _, err := decodeTxResponse(bad); err == nil {
			t.Errorf("decodeTxResponse(%x): no error", bad)
		}
	}
}

// A node without the tx service on its query router is asked through the tx endpoint, once it
// has said so, and not asked over abci_query again.
func TestTxResultFallsBackToTheTxEndpoint(t *testing.T) {
	const hash = "E011ED10E391C5DF5C7E635D321C0E7BE5D26BCA9A84E686A8E39D6410CE9110"
	var queries, endpoint int
	c := cometFake(t, func(method string, params map[string]any) string {
		switch method {
		case "abci_query":
			queries++
			if params["path"] != getTxPath {
				t.Errorf("abci_query path %q", params["path"])
			}
			return `{"jsonrpc":"2.0","id":-1,"result":{"response":{"code":6,"log":"unknown query path: unknown request","codespace":"sdk"}}}`
		case "tx":
			endpoint++
			if got, _ := base64.StdEncoding.DecodeString(fmt.Sprint(params["hash"])); fmt.Sprintf("%X", got) != hash {
				t.Errorf("tx hash %q", params["hash"])
			}
			return `{"jsonrpc":"2.0","id":-1,"result":{"height":"12","tx_result":{"code":0,"gas_used":"3657707","events":[{"type":"wasm"}]}}}`
		}
		return ""
	})
	for range 2 {
		res, err := c.txResult(t.Context(), hash)
		if err != nil {
			t.Fatal(err)
		}
		if res == nil || res.Height != 12 || res.GasUsed != 3_657_707 || res.Code != 0 {
			t.Fatalf("result %+v", res)
		}
	}
	if queries != 1 || endpoint != 2 {
		t.Fatalf("abci_query asked %d times, tx endpoint %d times; want 1 and 2", queries, endpoint)
	}
}

// The GetTx request is the upper-case hash as field 1, and a hash the node has not indexed
// reads as nil.
func TestQueryTxResultNotFound(t *testing.T) {
	c := cometFake(t, func(method string, params map[string]any) string {
		data, _ := hex.DecodeString(fmt.Sprint(params["data"]))
		var req txtypes.GetTxRequest
		if err := req.Unmarshal(data); err != nil || method != "abci_query" || req.Hash != "00AA" {
			t.Errorf("%s GetTx request %q: %v", method, req.Hash, err)
		}
		reply, _ := json.Marshal(map[string]any{"result": map[string]any{"response": map[string]any{
			"code": 22, "codespace": "sdk", "log": "rpc error: code = NotFound desc = tx not found: 00AA: key not found"}}})
		return string(reply)
	})
	res, err := c.txResult(t.Context(), "00aa")
	if err != nil || res != nil {
		t.Fatalf("txResult of an unknown hash: %+v, %v", res, err)
	}
}

func TestRestartRefusal(t *testing.T) {
	sigFail := &TxError{Phase: PhaseCheck, Codespace: "sdk", Code: 4,
		RawLog: "signature verification failed; please verify account number (0), sequence (12) and chain-id (vip-wasmd-1): unauthorized"}
	for _, c := range []struct {
		name    string
		err     error
		account uint64
		want    bool
	}{
		{"height-0 check of account 7", push.Rejected(sigFail), 7, true},
		{"account 0 really fails", push.Rejected(sigFail), 0, false},
		{"another account number", push.Rejected(&TxError{Phase: PhaseCheck, Codespace: "sdk", Code: 4, RawLog: "signature verification failed; please verify account number (3)"}), 7, false},
		{"wrong sequence", push.Rejected(&TxError{Phase: PhaseCheck, Codespace: "sdk", Code: 32, RawLog: "account sequence mismatch"}), 7, false},
		{"failed in a block", push.Rejected(&TxError{Phase: PhaseDeliver, Codespace: "sdk", Code: 4, RawLog: sigFail.RawLog}), 7, false},
		{"not a refusal", sigFail, 7, false},
		{"no error", nil, 7, false},
	} {
		if got := restartRefusal(c.err, c.account); got != c.want {
			t.Errorf("%s: restartRefusal = %v, want %v", c.name, got, c.want)
		}
	}
}

// Simulate over abci_query: the gas is read and the result's events skipped; a failed run
// is a simulate-phase TxError with the node's log; "unknown query path" is no tx service.
func TestQuerySimulate(t *testing.T) {
	events := make([]abci.Event, 300)
	for i := range events {
		events[i] = abci.Event{Type: "move", Attributes: []abci.EventAttribute{{Key: "data", Value: fmt.Sprintf("{\"account\":\"a%d\"}", i)}}}
	}
	ok, err := (&txtypes.SimulateResponse{GasInfo: &sdk.GasInfo{GasWanted: 200_000, GasUsed: 171_234}, Result: &sdk.Result{Events: events}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	const failLog = "rpc error: code = Unknown desc = failed to execute message; message index: 0: VM aborted: code=65537 with gas used: '52311': unknown request"
	replies := map[string]string{
		"ok":      fmt.Sprintf(`{"jsonrpc":"2.0","id":-1,"result":{"response":{"code":0,"value":%q}}}`, base64.StdEncoding.EncodeToString(ok)),
		"fail":    fmt.Sprintf(`{"jsonrpc":"2.0","id":-1,"result":{"response":{"code":6,"codespace":"sdk","log":%q}}}`, failLog),
		"none":    `{"jsonrpc":"2.0","id":-1,"result":{"response":{"code":6,"log":"unknown query path: unknown request","codespace":"sdk"}}}`,
		"garbled": fmt.Sprintf(`{"jsonrpc":"2.0","id":-1,"result":{"response":{"code":0,"value":%q}}}`, base64.StdEncoding.EncodeToString([]byte{0x0a, 0x05, 0x08})),
	}
	var reply string
	c := cometFake(t, func(method string, params map[string]any) string {
		if method != "abci_query" || params["path"] != simulatePath {
			return ""
		}
		// SimulateRequest{tx_bytes: 2} carrying the tx
		if data := params["data"]; data != hex.EncodeToString([]byte{0x12, 0x03, 1, 2, 3}) {
			t.Errorf("request data %s", data)
		}
		return replies[reply]
	})

	reply = "ok"
	res, err := c.querySimulate(t.Context(), []byte{1, 2, 3})
	if err != nil || res.GasInfo.GasUsed != 171_234 || res.GasInfo.GasWanted != 200_000 {
		t.Fatalf("ok: %+v %v", res, err)
	}
	reply = "fail"
	_, err = c.querySimulate(t.Context(), []byte{1, 2, 3})
	var te *TxError
	if !errors.As(err, &te) || te.Phase != PhaseSimulate || te.RawLog != failLog || te.Code != 6 {
		t.Fatalf("fail: %v", err)
	}
	reply = "none"
	if _, err = c.querySimulate(t.Context(), []byte{1, 2, 3}); !errors.Is(err, errNoTxService) {
		t.Fatalf("none: %v", err)
	}
	reply = "garbled"
	if _, err = c.querySimulate(t.Context(), []byte{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "decode") {
		t.Fatalf("garbled: %v", err)
	}
}

// A node started with indexer = "null" says so on both lookup paths; the push is refused
// the lookup (asking again cannot help), and CheckTxIndex names it before anything is sent.
func TestTxIndexDisabled(t *testing.T) {
	for _, path := range []string{"query", "endpoint"} {
		t.Run(path, func(t *testing.T) {
			c := cometFake(t, func(method string, _ map[string]any) string {
				switch {
				case method == "abci_query" && path == "query":
					return `{"jsonrpc":"2.0","id":-1,"result":{"response":{"code":6,"codespace":"sdk","log":"rpc error: code = Unknown desc = transaction indexing is disabled: unknown request"}}}`
				case method == "abci_query":
					return `{"jsonrpc":"2.0","id":-1,"result":{"response":{"code":6,"codespace":"sdk","log":"unknown query path: unknown request"}}}`
				case method == "tx":
					return `{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error","data":"transaction indexing is disabled"}}`
				}
				return ""
			})
			if err := c.CheckTxIndex(t.Context()); !errors.Is(err, ErrTxIndexDisabled) || !strings.Contains(err.Error(), `indexer = "kv"`) {
				t.Fatalf("CheckTxIndex: %v", err)
			}
			_, err := (&PushChain{C: c}).Lookup(t.Context(), strings.Repeat("AB", 32))
			if !errors.Is(err, ErrTxIndexDisabled) || !push.IsRejected(err) {
				t.Fatalf("Lookup: %v, want a refusal naming the index", err)
			}
		})
	}
}

// A simulation refused for its sequence (the account's txs still in the mempool) names the
// sequence the chain expects; other refusals do not.
func TestExpectedSequence(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want uint64
		ok   bool
	}{
		{&TxError{Phase: PhaseSimulate, RawLog: "rpc error: code = Unknown desc = account sequence mismatch, expected 4, got 2: incorrect account sequence"}, 4, true},
		{&TxError{Phase: PhaseCheck, RawLog: "account sequence mismatch, expected 4, got 2"}, 0, false},
		{&TxError{Phase: PhaseSimulate, RawLog: "Address is not allowed"}, 0, false},
		{nil, 0, false},
	} {
		if got, ok := expectedSequence(tc.err); got != tc.want || ok != tc.ok {
			t.Errorf("%v: %d %v, want %d %v", tc.err, got, ok, tc.want, tc.ok)
		}
	}
}

// cometFake is a Client whose CometBFT RPC is reply: the JSON-RPC reply body to a POSTed
// method and its params ("": an HTTP 404, as for a method the node lacks).
func cometFake(t *testing.T, reply func(method string, params map[string]any) string) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "want a JSON-RPC POST", http.StatusBadRequest)
			return
		}
		body := reply(req.Method, req.Params)
		if body == "" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return &Client{Node: cosmosnode.New("", srv.URL, srv.Client()), http: srv.Client()}
}
