package minitia

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	"github.com/gorilla/mux"
)

// The two x/wasm gateway answers in which miniwasm (Initia's fork of wasmd) differs from the
// upstream wasmd this app links. Its params carry max_wasm_size, the store-code limit, which
// upstream keeps in a package variable (the same 800 KiB); its contract info has no
// ibc2_port_id (the fork has no IBC v2). Both are rewritten from the gateway's own answer,
// so everything else stays the module's.
const (
	wasmParamsPath   = "/cosmwasm/wasm/v1/codes/params"
	wasmContractPath = "/cosmwasm/wasm/v1/contract/{address}"
)

// registerWasmGateway mounts the rewritten routes on router, ahead of gateway, which still
// answers them first.
func registerWasmGateway(router *mux.Router, gateway http.Handler) {
	router.Path(wasmParamsPath).Methods(http.MethodGet).Handler(rewriteJSON(gateway, withMaxWasmSize))
	router.Path(wasmContractPath).Methods(http.MethodGet).Handler(rewriteJSON(gateway, withoutIBC2Port))
}

// withMaxWasmSize adds params.max_wasm_size (a uint64, so a string in the gateway's JSON).
func withMaxWasmSize(body map[string]json.RawMessage) error {
	return editObject(body, "params", func(params map[string]json.RawMessage) {
		params["max_wasm_size"] = json.RawMessage(strconv.Quote(strconv.Itoa(wasmtypes.MaxWasmSize)))
	})
}

// withoutIBC2Port drops contract_info.ibc2_port_id.
func withoutIBC2Port(body map[string]json.RawMessage) error {
	return editObject(body, "contract_info", func(info map[string]json.RawMessage) { delete(info, "ibc2_port_id") })
}

// editObject applies edit to the object at body[key], if there is one.
func editObject(body map[string]json.RawMessage, key string, edit func(map[string]json.RawMessage)) error {
	raw, ok := body[key]
	if !ok {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return err
	}
	edit(obj)
	b, err := json.Marshal(obj)
	body[key] = b
	return err
}

// rewriteJSON serves next's answer, a 200 JSON object edited by edit; any other answer (an
// error, a body that is no object) goes out as next gave it.
func rewriteJSON(next http.Handler, edit func(map[string]json.RawMessage) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		body := rec.body.Bytes()
		if rec.status == http.StatusOK {
			var obj map[string]json.RawMessage
			if json.Unmarshal(body, &obj) == nil && edit(obj) == nil {
				if b, err := json.Marshal(obj); err == nil {
					body = b
				}
			}
		}
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.status)
		_, _ = w.Write(body)
	})
}

// recorder keeps a handler's answer for rewriteJSON.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(status int)      { r.status = status }
