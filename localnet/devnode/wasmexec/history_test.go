package wasmexec_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func getJSON(t *testing.T, base, path string) (int, map[string]any) {
	t.Helper()
	res, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: %s: %v", path, raw, err)
	}
	return res.StatusCode, out
}

// The contract's code history as wasmd answers it: the instantiation entry (operation as the
// enum's name, code_id and block height as u64 strings, msg as raw JSON).
func TestContractHistoryRoute(t *testing.T) {
	tn := start(t)
	contract := tn.deploy(t, 1)
	base := tn.node.RESTURL()
	status, body := getJSON(t, base, "/cosmwasm/wasm/v1/contract/"+contract+"/history")
	entries, _ := body["entries"].([]any)
	if status != 200 || len(entries) != 1 {
		t.Fatalf("HTTP %d %v", status, body)
	}
	e := entries[0].(map[string]any)
	updated, _ := e["updated"].(map[string]any)
	if e["operation"] != "CONTRACT_CODE_HISTORY_OPERATION_TYPE_INIT" || e["code_id"] != "1" || updated["block_height"] == nil || updated["tx_index"] != "0" {
		t.Errorf("entry %v", e)
	}
	if !reflect.DeepEqual(e["msg"], map[string]any{"allow_list": []any{tn.keys[0].Address}, "init_stage": 1.0}) {
		t.Errorf("msg %#v, want the instantiate message as JSON", e["msg"])
	}
	if !reflect.DeepEqual(body["pagination"], map[string]any{"next_key": nil, "total": "0"}) {
		t.Errorf("pagination %v", body["pagination"])
	}

	for _, tc := range []struct {
		name, path string
		status     int
		want       map[string]any // nil: a gateway error with code and message below
		code       float64
		msg        string
	}{
		{"no contract: no entries", "/cosmwasm/wasm/v1/contract/" + tn.keys[1].Address + "/history", 200,
			map[string]any{"entries": []any{}, "pagination": map[string]any{"next_key": nil, "total": "0"}}, 0, ""},
		{"key past the end", "/cosmwasm/wasm/v1/contract/" + contract + "/history?pagination.key=" + base64.StdEncoding.EncodeToString([]byte{0xff}), 200,
			map[string]any{"entries": []any{}, "pagination": map[string]any{"next_key": nil, "total": "0"}}, 0, ""},
		{"count_total refused", "/cosmwasm/wasm/v1/contract/" + contract + "/history?pagination.count_total=true", 400, nil, 3, "offset and count queries not supported"},
		{"malformed address", "/cosmwasm/wasm/v1/contract/init1nope/history", 400, nil, 3, "decoding bech32 failed"},
		{"limit not a number", "/cosmwasm/wasm/v1/contract/" + contract + "/history?pagination.limit=ten", 400, nil, 3, "type mismatch, parameter: pagination.limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := getJSON(t, base, tc.path)
			if tc.want != nil {
				if status != tc.status || !reflect.DeepEqual(body, tc.want) {
					t.Fatalf("HTTP %d %v, want %v", status, body, tc.want)
				}
				return
			}
			msg, _ := body["message"].(string)
			if status != tc.status || body["code"] != tc.code || !strings.Contains(msg, tc.msg) || !reflect.DeepEqual(body["details"], []any{}) {
				t.Fatalf("HTTP %d %v, want HTTP %d code %v with %q", status, body, tc.status, tc.code, tc.msg)
			}
		})
	}
}
