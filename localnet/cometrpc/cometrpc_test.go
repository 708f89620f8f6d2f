package cometrpc

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	errorsmod "cosmossdk.io/errors"
	cmted25519 "github.com/cometbft/cometbft/crypto/ed25519"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
)

// abci_query answers as CometBFT does, by GET and by POST: the app's value in base64 at the
// head's height, or its refusal's codespace, code and log; without a Query the method is
// absent, and other methods still take any params.
func TestABCIQuery(t *testing.T) {
	query := func(_ context.Context, path string, data []byte) ([]byte, error) {
		if path == "/echo" {
			return append([]byte("got:"), data...), nil
		}
		return nil, errorsmod.Wrap(sdkerrors.ErrUnknownRequest, "unknown query path")
	}
	head := func(context.Context) (uint64, []byte, error) { return 7, []byte{1}, nil }
	s, err := Start(Info{App: "minitia", Network: "vip-evm-1", Head: head, Query: query})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	bare, err := Start(Info{App: "geth-dev", Network: "evm-1337", Head: head})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bare.Close() })

	get := func(base, path string) (int, map[string]any) {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, out
	}
	post := func(body string) map[string]any {
		res, err := http.Post(s.URL(), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	response := func(out map[string]any) string {
		r, _ := out["result"].(map[string]any)["response"].(map[string]any)
		return r["codespace"].(string) + "/" + jsonText(r["code"]) + "/" + r["log"].(string) + "/" + jsonText(r["value"]) + "/" + r["height"].(string)
	}
	for _, tc := range []struct{ name, got, want string }{
		{"GET a value", func() string {
			_, out := get(s.URL(), "/abci_query?path="+url.QueryEscape(`"/echo"`)+"&data=0x6869")
			return response(out)
		}(), `/0//"Z290Omhp"/7`},
		{"POST a value", response(post(`{"jsonrpc":"2.0","id":1,"method":"abci_query","params":{"path":"/echo","data":"6869","height":"0","prove":false}}`)), `/0//"Z290Omhp"/7`},
		{"an unknown path", func() string {
			_, out := get(s.URL(), "/abci_query?path="+url.QueryEscape(`"/nothing"`))
			return response(out)
		}(), `sdk/6/unknown query path: unknown request/null/0`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, tc.got, tc.want)
		}
	}
	// Without a Query there is no abci_query: a GET of its path is the mux's 404 (in text),
	// a POST CometBFT's method not found.
	if res, err := http.Get(bare.URL() + "/abci_query?path=%22/echo%22"); err != nil || res.StatusCode != http.StatusNotFound || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("GET abci_query without a Query: %v %v, want a 404 in text", res, err)
	}
	res, err := http.Post(bare.URL(), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"abci_query","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusNotFound || out["error"].(map[string]any)["code"] != -32601.0 {
		t.Errorf("POST abci_query without a Query: HTTP %d %v %v, want -32601", res.StatusCode, out, err)
	}
	res.Body.Close()
	if out := post(`{"jsonrpc":"2.0","id":1,"method":"status","params":[]}`); out["result"] == nil {
		t.Errorf("status with array params: %v", out)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The node's other reads: its one validator (CometBFT's address and key type, power 1), a
// node with no peers, the txs waiting; an unknown path is the mux's 404.
func TestNodeReads(t *testing.T) {
	key := make([]byte, 32)
	head := func(context.Context) (uint64, []byte, error) { return 9, []byte{1}, nil }
	s, err := Start(Info{App: "minitia", Network: "vip-evm-1", Head: head, Validator: key, Unconfirmed: func() (int, int) { return 2, 300 }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	// CometBFT's own address of the key.
	addr := cmted25519.PubKey(key).Address().String()
	for path, want := range map[string]string{
		"/validators":          `{"block_height":"9","count":"1","total":"1","validators":[{"address":"` + addr + `","proposer_priority":"0","pub_key":{"type":"tendermint/PubKeyEd25519","value":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},"voting_power":"1"}]}`,
		"/validators?height=4": `{"block_height":"4","count":"1","total":"1","validators":[{"address":"` + addr + `","proposer_priority":"0","pub_key":{"type":"tendermint/PubKeyEd25519","value":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},"voting_power":"1"}]}`,
		"/net_info":            `{"listeners":["Listener(@)"],"listening":true,"n_peers":"0","peers":[]}`,
		"/num_unconfirmed_txs": `{"n_txs":"2","total":"2","total_bytes":"300","txs":null}`,
	} {
		res, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Result json.RawMessage `json:"result"`
		}
		err = json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		if err != nil || string(out.Result) != want {
			t.Errorf("%s: %s %v, want %s", path, out.Result, err, want)
		}
	}
	// A height past the head, in CometBFT's words.
	res, err := http.Get(s.URL() + "/validators?height=10")
	if err != nil {
		t.Fatal(err)
	}
	var failed struct {
		Error struct {
			Code int    `json:"code"`
			Data string `json:"data"`
		} `json:"error"`
	}
	err = json.NewDecoder(res.Body).Decode(&failed)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusInternalServerError || failed.Error.Code != -32603 ||
		failed.Error.Data != "height 10 must be less than or equal to the current blockchain height 9" {
		t.Errorf("validators past the head: HTTP %d %+v %v", res.StatusCode, failed, err)
	}
	if res, err := http.Get(s.URL() + "/no_such_method"); err != nil || res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown path: %v %v, want 404", res, err)
	}
}
