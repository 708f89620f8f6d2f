package nodehttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// rpcNode answers eth_chainId, abci_info's error and a reply without a result.
func rpcNode(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     int64  `json:"id"`
			Method string `json:"method"`
		}
		b, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || json.Unmarshal(b, &req) != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want a JSON-RPC POST", http.StatusBadRequest)
			return
		}
		switch req.Method {
		case "eth_chainId":
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"0x2a"}`))
		case "eth_call":
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted","data":"0x5699f3ef"}}`))
		default:
			w.Write([]byte(`{"jsonrpc":"2.0","id":1}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCall(t *testing.T) {
	c := New(rpcNode(t).URL+"/", nil)
	ctx := context.Background()
	var id string
	if err := c.Call(ctx, "eth_chainId", nil, &id); err != nil || id != "0x2a" {
		t.Fatalf("eth_chainId = %q, %v", id, err)
	}
	err := c.Call(ctx, "eth_call", []any{map[string]string{"to": "0x01"}, "latest"}, &id)
	var re *RPCError
	if !errors.As(err, &re) || re.Code != 3 || string(re.Data) != `"0x5699f3ef"` || !strings.Contains(err.Error(), "execution reverted: 0x5699f3ef") {
		t.Errorf("eth_call error = %v, want the RPC error with its data", err)
	}
	if err := c.Call(ctx, "eth_blockNumber", nil, &id); err == nil || !strings.Contains(err.Error(), "holds no result") {
		t.Errorf("a reply without a result: %v", err)
	}
}

func TestGetJSONAndDo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Write([]byte(`{"bech32_prefix":"init"}`))
		case "/bad":
			w.Write([]byte(`<html>`))
		default:
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"code":2,"message":"collections: not found: key"}`))
		}
	}))
	defer srv.Close()
	c := New(srv.URL, nil)
	ctx := context.Background()
	var out struct {
		Prefix string `json:"bech32_prefix"`
	}
	for _, tc := range []struct {
		path     string
		wantErr  string
		notFound bool
	}{
		{"/ok", "", false},
		{"/bad", "malformed reply", false},
		{"/missing", "HTTP 500: code 2: collections: not found", true},
	} {
		err := c.GetJSON(ctx, tc.path, &out)
		if tc.wantErr == "" {
			if err != nil || out.Prefix != "init" {
				t.Errorf("GET %s = %+v, %v", tc.path, out, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) || NotFound(err) != tc.notFound {
			t.Errorf("GET %s: %v, want %q (not found %v)", tc.path, err, tc.wantErr, tc.notFound)
		}
	}
	if _, err := New("", nil).Do(ctx, http.MethodGet, "/x", nil); err == nil || !strings.Contains(err.Error(), "no URL") {
		t.Errorf("no URL: %v", err)
	}
	srv.Close()
	if _, err := c.Do(ctx, http.MethodGet, "/ok", nil); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("a stopped node: %v", err)
	}
}
