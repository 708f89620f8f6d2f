package cometrpc

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	errorsmod "cosmossdk.io/errors"
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
	if status, out := get(bare.URL(), "/abci_query?path=%22/echo%22"); status != http.StatusNotFound || out["error"] == nil {
		t.Errorf("abci_query without a Query: HTTP %d %v, want CometBFT's method not found", status, out)
	}
	if out := post(`{"jsonrpc":"2.0","id":1,"method":"status","params":[]}`); out["result"] == nil {
		t.Errorf("status with array params: %v", out)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
