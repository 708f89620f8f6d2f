package ethnode

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// chunkReceipt is a receipt as go-ethereum encodes it for a score chunk: n logs with topics
// and data.
func chunkReceipt(t testing.TB, status uint64, n int) []byte {
	t.Helper()
	r := &types.Receipt{Type: 2, Status: status, CumulativeGasUsed: 13_000_000, GasUsed: 12_345_678,
		BlockHash: common.Hash{9}, BlockNumber: big.NewInt(4242), TxHash: common.Hash{7}, EffectiveGasPrice: big.NewInt(14)}
	for i := range n {
		r.Logs = append(r.Logs, &types.Log{Address: common.Address{1}, Topics: []common.Hash{{2}, common.BigToHash(big.NewInt(int64(i)))},
			Data: common.LeftPadBytes(big.NewInt(int64(i)).Bytes(), 32), BlockNumber: 4242, TxHash: common.Hash{7}, Index: uint(i)})
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseReceiptReply(t *testing.T) {
	receipt := string(chunkReceipt(t, 1, 454))
	failed := string(chunkReceipt(t, 0, 0))
	for _, tc := range []struct {
		name    string
		reply   string
		want    *Receipt // nil with wantErr "": a null result
		wantErr string
		notYet  bool
	}{
		{name: "a chunk's receipt", reply: `{"jsonrpc":"2.0","id":1,"result":` + receipt + `}`,
			want: &Receipt{Status: 1, GasUsed: 12_345_678, BlockNumber: bigHex(4242)}},
		{name: "result first, spaces between tokens", reply: " {\n \"result\" : " + failed + " , \"id\" : 1 , \"jsonrpc\" : \"2.0\" }\n",
			want: &Receipt{Status: 0, GasUsed: 12_345_678, BlockNumber: bigHex(4242)}},
		{name: "fields the push skips, escapes in them", reply: `{"jsonrpc":"2.0","id":1,"result":{"x":"a\"}b\\","y":[{"z":[1,-2.5e3,true,false,null]}],"status":"0x1","gasUsed":"0x5208","blockNumber":"0x10"}}`,
			want: &Receipt{Status: 1, GasUsed: 21000, BlockNumber: bigHex(16)}},
		{name: "unknown tx", reply: `{"jsonrpc":"2.0","id":1,"result":null}`},
		{name: "node error", reply: `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"transaction indexing is in progress","data":"x"}}`,
			wantErr: "transaction indexing is in progress", notYet: true},
		{name: "no result", reply: `{"jsonrpc":"2.0","id":1}`, wantErr: "neither result nor error"},
		{name: "cut short", reply: `{"jsonrpc":"2.0","id":1,"result":` + receipt[:len(receipt)/2], wantErr: "decode receipt reply"},
		{name: "unbalanced", reply: `{"jsonrpc":"2.0","id":1,"result":{"logs":[{]}}`, wantErr: "unbalanced"},
		{name: "bad literal", reply: `{"jsonrpc":"2.0","id":1,"result":{"logs":[nul],"status":"0x1"}}`, wantErr: "bad value"},
		{name: "data after it", reply: `{"jsonrpc":"2.0","id":1,"result":null} {}`, wantErr: "data after the reply"},
		{name: "status not hex", reply: `{"jsonrpc":"2.0","id":1,"result":{"status":"1","gasUsed":"0x1","blockNumber":"0x1"}}`, wantErr: "receipt status"},
		{name: "not an object", reply: `["result"]`, wantErr: "want an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseReceiptReply([]byte(tc.reply))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				if ReceiptPending(err) != tc.notYet {
					t.Fatalf("ReceiptPending(%v) = %v, want %v", err, !tc.notYet, tc.notYet)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tc.want == nil) || got != nil && (got.Status != tc.want.Status || got.GasUsed != tc.want.GasUsed || got.BlockNumber.ToInt().Cmp(tc.want.BlockNumber.ToInt()) != 0) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			// What encoding/json reads from the same reply.
			var ref struct {
				Result *Receipt `json:"result"`
			}
			if err := json.Unmarshal([]byte(tc.reply), &ref); err != nil {
				t.Fatal(err)
			}
			if (ref.Result == nil) != (got == nil) || got != nil && (ref.Result.Status != got.Status || ref.Result.GasUsed != got.GasUsed) {
				t.Fatalf("encoding/json reads %+v, the lean reader %+v", ref.Result, got)
			}
		})
	}
	var rpcErr rpc.Error
	if _, err := parseReceiptReply([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}`)); !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != -32601 {
		t.Fatalf("error %v, want an rpc.Error with code -32601", err)
	}
}

func bigHex(n int64) *hexutil.Big { return (*hexutil.Big)(big.NewInt(n)) }

// The reader posts eth_getTransactionReceipt for the hash to the endpoint and reads the
// reply; a non-200 answer is an error naming the status; only HTTP(S) endpoints get one.
func TestReceiptReaderOverHTTP(t *testing.T) {
	hash := common.Hash{0xab}
	receipt := chunkReceipt(t, 1, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string   `json:"method"`
			Params []string `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		switch {
		case req.Method != "eth_getTransactionReceipt":
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method ` + req.Method + ` does not exist"}}`))
		case len(req.Params) == 1 && req.Params[0] == hash.Hex():
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":` + string(receipt) + `}`))
		case len(req.Params) == 1 && req.Params[0] == (common.Hash{0xdd}).Hex():
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		default:
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":null}`))
		}
	}))
	defer srv.Close()
	r := newReceiptReader(srv.URL)
	ctx := context.Background()
	rc, err := r.receipt(ctx, hash)
	if err != nil || rc == nil || rc.Status != 1 || rc.BlockNumber.ToInt().Int64() != 4242 {
		t.Fatalf("receipt %+v, %v", rc, err)
	}
	if rc, err := r.receipt(ctx, common.Hash{1}); rc != nil || err != nil {
		t.Fatalf("unknown tx: %+v, %v; want nil, nil", rc, err)
	}
	if _, err := r.receipt(ctx, common.Hash{0xdd}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("error %v, want the 503", err)
	}
	for _, endpoint := range []string{"ws://127.0.0.1:8546", "/tmp/geth.ipc", "::bad"} {
		if newReceiptReader(endpoint) != nil {
			t.Fatalf("%s: a reader; want receipts through the RPC client", endpoint)
		}
	}
}

// The lean reader skips a chunk's logs in one pass; encoding/json, as go-ethereum's client
// decodes a reply, scans it four times.
func BenchmarkReceiptReply(b *testing.B) {
	reply := []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(chunkReceipt(b, 1, 454)) + `}`)
	b.Run("lean", func(b *testing.B) {
		b.SetBytes(int64(len(reply)))
		for b.Loop() {
			if _, err := parseReceiptReply(reply); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(reply)))
		for b.Loop() {
			var msg struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.NewDecoder(strings.NewReader(string(reply))).Decode(&msg); err != nil {
				b.Fatal(err)
			}
			var rc *Receipt
			if err := json.Unmarshal(msg.Result, &rc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
