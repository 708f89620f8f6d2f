package cosmosnode

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"
	"github.com/cometbft/cometbft/types"
)

// TestTxSearchDecodesCometBFTsReply serves replies that CometBFT's own encoder writes (a
// ResultTxSearch in a JSON-RPC response) and checks that the one-pass decoder reads what
// CometBFT's client reads, and that it sends the parameters a node accepts.
func TestTxSearchDecodesCometBFTsReply(t *testing.T) {
	tx := types.Tx("a tx")
	res := &ctypes.ResultTxSearch{TotalCount: 7, Txs: []*ctypes.ResultTx{
		{Hash: tx.Hash(), Height: 12, Index: 3, Tx: tx, TxResult: abci.ExecTxResult{Code: 0, GasUsed: 5, Events: []abci.Event{
			{Type: "tx", Attributes: []abci.EventAttribute{{Key: "acc_seq", Value: "init1xyz/4", Index: true}}},
			{Type: "move", Attributes: []abci.EventAttribute{{Key: "type_tag", Value: "0x1::a::B"}, {Key: "data", Value: `{"x":"1"}`}}},
			{Type: "empty"},
		}}},
		{Hash: tx.Hash(), Height: 13, Index: 0, Tx: tx, TxResult: abci.ExecTxResult{Code: 5, Codespace: "sdk", Log: "out of gas"}},
	}}
	tests := []struct {
		name    string
		reply   rpctypes.RPCResponse
		wantErr string
	}{
		{name: "result", reply: rpctypes.NewRPCSuccessResponse(rpctypes.JSONRPCIntID(1), res)},
		{name: "error", reply: rpctypes.NewRPCErrorResponse(rpctypes.JSONRPCIntID(1), -32603, "Internal error", "page should be within [1, 1] range, given 2"), wantErr: "error -32603: Internal error: page should be within [1, 1] range, given 2"},
		{name: "no result", reply: rpctypes.RPCResponse{JSONRPC: "2.0", ID: rpctypes.JSONRPCIntID(1)}, wantErr: "holds no result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var params map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req rpctypes.RPCRequest
				if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "tx_search" {
					http.Error(w, "bad request", http.StatusBadRequest)
					return
				}
				_ = json.Unmarshal(req.Params, &params)
				_ = json.NewEncoder(w).Encode(tc.reply)
			}))
			defer srv.Close()
			got, err := New("", srv.URL, srv.Client()).TxSearch(context.Background(), "tx.height >= 1 AND tx.height <= 20", 2, 100)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"query": "tx.height >= 1 AND tx.height <= 20", "prove": false, "page": "2", "per_page": "100", "order_by": "asc"}
			if len(params) != len(want) {
				t.Fatalf("params %v, want %v", params, want)
			}
			for k, v := range want {
				if params[k] != v {
					t.Errorf("param %s = %v, want %v", k, params[k], v)
				}
			}
			if got.TotalCount != 7 || len(got.Txs) != 2 {
				t.Fatalf("total %d, %d txs", got.TotalCount, len(got.Txs))
			}
			for i, rt := range res.Txs {
				g := &got.Txs[i]
				h, err := g.HashBytes()
				if err != nil || string(h) != string(rt.Hash) {
					t.Errorf("tx %d: hash %x (%v), want %x", i, h, err, rt.Hash)
				}
				if int64(g.Height) != rt.Height || uint32(g.Index) != rt.Index || g.TxResult.Code != rt.TxResult.Code {
					t.Errorf("tx %d: height %d index %d code %d, want %d %d %d", i, g.Height, g.Index, g.TxResult.Code, rt.Height, rt.Index, rt.TxResult.Code)
				}
				evs := g.TxResult.Events
				if len(evs) != len(rt.TxResult.Events) {
					t.Fatalf("tx %d: %d events, want %d", i, len(evs), len(rt.TxResult.Events))
				}
				for j, e := range rt.TxResult.Events {
					if evs[j].Type != e.Type || len(evs[j].Attributes) != len(e.Attributes) {
						t.Fatalf("tx %d event %d: %+v, want %+v", i, j, evs[j], e)
					}
					for k, a := range e.Attributes {
						if got := evs[j].Attributes[k]; got.Key != a.Key || got.Value != a.Value || evs[j].Attr(a.Key) != a.Value {
							t.Errorf("tx %d event %d attr %d: %+v, want %+v", i, j, k, got, a)
						}
					}
				}
			}
		})
	}
}
