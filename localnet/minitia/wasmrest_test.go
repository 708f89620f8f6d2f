package minitia

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"
)

func TestWasmGatewayAnswersAsMiniwasm(t *testing.T) {
	for _, tc := range []struct {
		name, path        string
		status            int
		gateway, want     string
		wantContentLength bool
	}{
		{"params gain max_wasm_size", "/cosmwasm/wasm/v1/codes/params", 200,
			`{"params":{"code_upload_access":{"permission":"Everybody","addresses":[]},"instantiate_default_permission":"Everybody"}}`,
			`{"params":{"code_upload_access":{"addresses":[],"permission":"Everybody"},"instantiate_default_permission":"Everybody","max_wasm_size":"819200"}}`, false},
		{"contract info loses ibc2_port_id", "/cosmwasm/wasm/v1/contract/init1abc", 200,
			`{"address":"init1abc","contract_info":{"code_id":"1","ibc_port_id":"","ibc2_port_id":"wasm2init1abc","extension":null}}`,
			`{"address":"init1abc","contract_info":{"code_id":"1","extension":null,"ibc_port_id":""}}`, false},
		{"an error goes out as the gateway gave it", "/cosmwasm/wasm/v1/contract/init1abc", 404,
			`{"code":5,"message":"not found","details":[]}`, `{"code":5,"message":"not found","details":[]}`, false},
		{"a body without the object is unchanged", "/cosmwasm/wasm/v1/codes/params", 200, `{"other":1}`, `{"other":1}`, false},
		{"a body that is no JSON is unchanged", "/cosmwasm/wasm/v1/codes/params", 200, `not json`, `not json`, false},
		{"other routes are the gateway's", "/cosmwasm/wasm/v1/contract/init1abc/history", 200,
			`{"entries":[],"ibc2_port_id":"x"}`, `{"entries":[],"ibc2_port_id":"x"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gateway := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", "999")
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.gateway)
			})
			router := mux.NewRouter()
			registerWasmGateway(router, gateway)
			router.PathPrefix("/").Handler(gateway)
			rec := httptest.NewRecorder()
			router.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d", rec.Code, tc.status)
			}
			if got := rec.Body.String(); !sameJSON(got, tc.want) {
				t.Fatalf("body %s, want %s", got, tc.want)
			}
			if got := rec.Header().Get("Content-Type"); got != "application/json" {
				t.Fatalf("Content-Type %q", got)
			}
			if has := rec.Header().Get("Content-Length") != ""; has != tc.wantContentLength {
				t.Fatalf("Content-Length kept: %v, want %v", has, tc.wantContentLength)
			}
		})
	}
}

// sameJSON compares two JSON texts as values (key order aside); texts that are no JSON as
// text.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	xa, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xa) == string(yb)
}
