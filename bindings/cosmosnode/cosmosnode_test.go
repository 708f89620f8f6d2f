package cosmosnode

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestABCIInfo(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    Version
		problem string
	}{
		{"ok", `{"jsonrpc":"2.0","id":1,"result":{"response":{"data":"minievm","version":"v1.1.0","last_block_height":"42","last_block_app_hash":"AQI="}}}`,
			Version{App: "minievm", Version: "v1.1.0", LastBlockHeight: 42, AppHash: []byte{1, 2}}, ""},
		{"rpc error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, Version{}, "Method not found"},
		{"malformed", `<html>`, Version{}, "malformed reply"},
		{"bad height", `{"result":{"response":{"last_block_height":"x"}}}`, Version{}, "last_block_height"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct{ Method string }
				if b, _ := io.ReadAll(r.Body); r.Method != http.MethodPost || json.Unmarshal(b, &req) != nil || req.Method != "abci_info" {
					t.Errorf("%s %s, want a JSON-RPC POST of abci_info", r.Method, r.URL.Path)
				}
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			got, err := New("", srv.URL, nil).ABCIInfo(context.Background())
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("error = %v, want %q", err, tt.problem)
				}
				return
			}
			if err != nil || got.App != tt.want.App || got.Version != tt.want.Version || got.LastBlockHeight != tt.want.LastBlockHeight || string(got.AppHash) != string(tt.want.AppHash) {
				t.Fatalf("ABCIInfo = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
