package sidebyside_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vipharness/vipharness/bindings/pbwalk"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
)

// answer is what a node answered a probe, in the parts the two sides must share: the HTTP
// status, the error code (gRPC's in a gateway body, JSON-RPC's), the error message's stable
// head, the shape (the JSON keys, or a JSON type), and a value where the value itself is
// the interface (a chain-independent constant).
type answer struct {
	Status  int
	Code    int
	Message string
	Shape   string
	Value   string
}

func (a answer) String() string {
	return fmt.Sprintf("status %d code %d message %q shape %s value %q", a.Status, a.Code, a.Message, a.Shape, a.Value)
}

// probe is one request sent to both sides. value says the answer's value must match too
// (else only its shape); vms limits it to some VMs (nil: every VM).
type probe struct {
	name string
	vms  []vip.VM
	ask  func(ctx context.Context, r localnet.Rollup) (answer, error)
	// close, when set, says whether two answers that differ are still alike (figures within
	// a stated tolerance); ours is a, the real one's b.
	close func(a, b answer) bool
	// timeout bounds the probe on both sides (0: probeTimeout).
	timeout time.Duration
}

// alike says whether ours (a) answers as the real one (b) does.
func (p probe) alike(a, b answer) bool { return a == b || p.close != nil && p.close(a, b) }

func (p probe) on(vm vip.VM) bool { return p.vms == nil || slices.Contains(p.vms, vm) }

// rest GETs path (filled per rollup) from the rollup's REST face.
func rest(name string, vms []vip.VM, path func(localnet.Rollup) string, keep func(any) string) probe {
	return probe{name: name, vms: vms, ask: func(ctx context.Context, r localnet.Rollup) (answer, error) {
		return get(ctx, r.Endpoints().REST+path(r), keep)
	}}
}

// rpc GETs a CometBFT RPC path and keeps the shape of its result at the dotted field.
func rpc(name, path, field string) probe {
	return probe{name: name, ask: func(ctx context.Context, r localnet.Rollup) (answer, error) {
		return get(ctx, r.Endpoints().CometRPC+path, func(v any) string { return shape(dig(v, "result."+field)) })
	}}
}

// jsonrpc posts one EVM JSON-RPC call; keep turns its result into the compared value ("" to
// compare the result's JSON type only).
func jsonrpc(name, method string, params func(localnet.Rollup) []any, keep func(any) string) probe {
	return probe{name: name, vms: []vip.VM{vip.EVM}, ask: func(ctx context.Context, r localnet.Rollup) (answer, error) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params(r)})
		status, raw, err := roundTrip(ctx, http.MethodPost, r.Endpoints().JSONRPC, body)
		if err != nil {
			return answer{}, err
		}
		var reply struct {
			Result any `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Data    any    `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &reply); err != nil {
			return answer{}, fmt.Errorf("%s: %w", method, err)
		}
		a := answer{Status: status}
		if reply.Error != nil {
			a.Code, a.Message = reply.Error.Code, head(reply.Error.Message)
			a.Shape = "error data " + shape(reply.Error.Data)
			return a, nil
		}
		a.Shape = shape(reply.Result)
		if keep != nil {
			a.Value = keep(reply.Result)
		}
		return a, nil
	}}
}

func get(ctx context.Context, url string, keep func(any) string) (answer, error) {
	status, b, err := roundTrip(ctx, http.MethodGet, url, nil)
	if err != nil {
		return answer{}, err
	}
	a := answer{Status: status}
	var v any
	if json.Unmarshal(b, &v) != nil {
		a.Shape = "text"
		return a, nil
	}
	if status/100 != 2 {
		if m, ok := v.(map[string]any); ok {
			code, _ := m["code"].(float64)
			msg, _ := m["message"].(string)
			a.Code, a.Message = int(code), head(msg)
		}
		a.Shape = shape(v)
		return a, nil
	}
	if keep != nil {
		a.Shape = keep(v)
	} else {
		a.Shape = shape(v)
	}
	return a, nil
}

// roundTrip makes one HTTP request (a body is sent as JSON) and returns the status and at
// most 4 MiB of the reply.
func roundTrip(ctx context.Context, method, url string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp.StatusCode, b, err
}

// shape is a JSON value's sorted keys (objects) or its type.
func shape(v any) string {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return "{" + strings.Join(keys, ",") + "}"
	case []any:
		if len(t) == 0 {
			return "[]"
		}
		return "[" + shape(t[0]) + "...]"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// dig walks a dotted path of object keys.
func dig(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// head is an error message as compared: whole, with what differs by chain masked
// (addresses, figures).
func head(msg string) string {
	return masked(msg)
}

// bech32Of is a funded account's bech32 address (an EVM rollup funds a 0x one).
func bech32Of(r localnet.Rollup) string {
	a := r.Funded()[0]
	for _, s := range []string{a.Address, a.CoinType60Address} {
		if strings.HasPrefix(s, "init1") {
			return s
		}
	}
	s, _ := bech32.ConvertAndEncode("init", common.FromHex(a.Address))
	return s
}

// fresh is an address no one has used.
func fresh() common.Address {
	return crypto.PubkeyToAddress(must(crypto.GenerateKey()).PublicKey)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var probeTimeout = 10 * time.Second

// abci sends a gRPC query over CometBFT's abci_query (as CosmJS and Initia.js query) and
// compares the response's code, codespace and log head, and its value: as bytes when
// sameValue (a chain-independent answer), else whether there is one.
func abci(name string, vms []vip.VM, path string, sameValue bool) probe {
	return abciRead(name, vms, path, func(value []byte) string {
		if sameValue {
			return base64.StdEncoding.EncodeToString(value)
		}
		return fmt.Sprintf("value given: %v", len(value) > 0)
	})
}

// abciRead is abci with read making the compared value of the response's value.
func abciRead(name string, vms []vip.VM, path string, read func(value []byte) string) probe {
	return probe{name: name, vms: vms, ask: func(ctx context.Context, r localnet.Rollup) (answer, error) {
		a, err := get(ctx, r.Endpoints().CometRPC+"/abci_query?path=%22"+path+"%22", func(v any) string {
			resp := dig(v, "result.response")
			raw, _ := dig(resp, "value").(string)
			b, _ := base64.StdEncoding.DecodeString(raw)
			value := read(b)
			return fmt.Sprintf("code %v codespace %q log %q %s", dig(resp, "code"), dig(resp, "codespace"), head(fmt.Sprint(dig(resp, "log"))), value)
		})
		return a, err
	}}
}

// opchildValidatorsValue reads a QueryValidatorsResponse: how many validators, and each
// one's power and consensus key type (its moniker and addresses are the chain's own).
func opchildValidatorsValue(value []byte) string {
	var out []string
	_ = pbwalk.EachField(value, func(num protowire.Number, _ protowire.Type, v []byte, _ uint64) error {
		if num != 1 {
			return nil
		}
		var power uint64
		var keyType string
		_ = pbwalk.EachField(v, func(num protowire.Number, _ protowire.Type, v []byte, n uint64) error {
			switch num {
			case 3:
				return pbwalk.EachField(v, func(num protowire.Number, _ protowire.Type, v []byte, _ uint64) error {
					if num == 1 {
						keyType = string(v)
					}
					return nil
				})
			case 4:
				power = n
			}
			return nil
		})
		out = append(out, fmt.Sprintf("power %d key %s", power, keyType))
		return nil
	})
	return fmt.Sprintf("%d validators: %s", len(out), strings.Join(out, "; "))
}
