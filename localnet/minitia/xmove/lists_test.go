package xmove_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	"golang.org/x/crypto/sha3"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
)

// call sends a request to the REST face and returns the status and the generic JSON reply.
func call(t *testing.T, tn *testNode, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, tn.node.RESTURL()+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %s: %v", method, path, raw, err)
	}
	return res.StatusCode, out
}

func field(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// The list and view routes Initia.js reaches: modules and resources listed with pagination,
// viewFunction's legacy path, and the batch views.
func TestMoveListAndViewRoutes(t *testing.T) {
	tn := start(t)
	pub, op := tn.keys[0], tn.keys[1]
	tn.publish(t, pub)
	owner := vmAddr(pub)
	opAddr := vmAddr(op)
	for _, step := range []struct {
		s    int
		fn   string
		args [][]byte
	}{
		{0, "add_deployer_script", [][]byte{opAddr[:]}},
		{1, "set_init_stage", [][]byte{movebcs.ArgU64(2)}},
		{1, "update_score_script", [][]byte{movebcs.ArgU64(2), movebcs.ArgAddresses([]movebcs.Address{movebcs.MustAddress("0xa"), movebcs.MustAddress("0xb")}), movebcs.ArgU64s([]uint64{7, 8})}},
	} {
		if _, err := tn.exec(tn.keys[step.s], owner, step.fn, step.args...); err != nil {
			t.Fatalf("%s: %v", step.fn, err)
		}
	}
	acct := "/initia/move/v1/accounts/" + owner.Short()
	storeTag := owner.Short() + "::vip_score::ModuleStore"
	viewBody := `{"type_args":[],"args":["` + b64(movebcs.ArgU64(2)) + `"]}`
	jsonBatch := `{"requests":[` +
		`{"address":"` + owner.Short() + `","module_name":"vip_score","function_name":"get_total_score","type_args":[],"args":["\"2\""]},` +
		`{"address":"` + owner.Short() + `","module_name":"vip_score","function_name":"get_score","type_args":[],"args":["\"0xb\"","\"2\""]}]}`
	bcsBatch := `{"requests":[{"address":"` + owner.Short() + `","module_name":"vip_score","function_name":"get_total_score","type_args":[],"args":["` + b64(movebcs.ArgU64(2)) + `"]}]}`

	for _, tc := range []struct {
		name, method, path, body string
		keys                     []any
		want                     any
	}{
		{"modules", "GET", acct + "/modules", "", []any{"modules", 0, "module_name"}, "vip_score"},
		{"module policy as the enum's name", "GET", acct + "/modules", "", []any{"modules", 0, "upgrade_policy"}, "COMPATIBLE"},
		{"modules end: next_key null", "GET", acct + "/modules", "", []any{"pagination"}, map[string]any{"next_key": nil, "total": "0"}},
		{"modules count_total", "GET", acct + "/modules?pagination.count_total=true", "", []any{"pagination", "total"}, "1"},
		{"no modules at 0xa", "GET", "/initia/move/v1/accounts/0xa/modules", "", []any{"modules"}, []any{}},
		{"resources first page", "GET", acct + "/resources?pagination.limit=1&pagination.count_total=true", "", []any{"pagination", "total"}, "2"},
		{"view_functions data", "POST", acct + "/modules/vip_score/view_functions/get_total_score", viewBody, []any{"data"}, `"15"`},
		{"view_functions events", "POST", acct + "/modules/vip_score/view_functions/get_total_score", viewBody, []any{"events"}, []any{}},
		{"json batch first", "POST", "/initia/move/v1/view/json/batch", jsonBatch, []any{"responses", 0, "data"}, `"15"`},
		{"json batch second", "POST", "/initia/move/v1/view/json/batch", jsonBatch, []any{"responses", 1, "data"}, `"8"`},
		{"bcs batch", "POST", "/initia/move/v1/view/batch", bcsBatch, []any{"responses", 0, "data"}, `"15"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := call(t, tn, tc.method, tc.path, tc.body)
			if got := field(body, tc.keys...); status != 200 || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("HTTP %d %v = %#v, want %#v (%v)", status, tc.keys, got, tc.want, body)
			}
		})
	}

	// gas_used is a u64: a string, as the gateway writes it.
	_, body := call(t, tn, "POST", acct+"/modules/vip_score/view_functions/get_total_score", viewBody)
	if g, ok := body["gas_used"].(string); !ok || g == "0" {
		t.Errorf("gas_used %#v, want a non-zero u64 string", body["gas_used"])
	}
	// Resources page by page: the key carries on where the first page stopped.
	_, first := call(t, tn, "GET", acct+"/resources?pagination.limit=1", "")
	next, _ := field(first, "pagination", "next_key").(string)
	_, second := call(t, tn, "GET", acct+"/resources?pagination.limit=1&pagination.key="+url.QueryEscape(next), "")
	tags := []any{field(first, "resources", 0, "struct_tag"), field(second, "resources", 0, "struct_tag")}
	if next == "" || field(second, "pagination", "next_key") != nil || !reflect.DeepEqual(tags, []any{"0x1::code::MetadataStore", storeTag}) && !reflect.DeepEqual(tags, []any{storeTag, "0x1::code::MetadataStore"}) {
		t.Fatalf("pages %v then %v", first, second)
	}
	for _, page := range []map[string]any{first, second} {
		if mr, _ := field(page, "resources", 0, "move_resource").(string); !strings.HasPrefix(mr, `{"type":"`) {
			t.Errorf("move_resource %q: want the resource's JSON", mr)
		}
	}

	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     float64
		msg                      string
	}{
		{"malformed address", "GET", "/initia/move/v1/accounts/init1nope/modules", "", 400, 3, "init1nope"},
		{"key and offset", "GET", acct + "/resources?pagination.key=AA==&pagination.offset=1", "", 400, 3, "either offset or key"},
		{"limit not a number", "GET", acct + "/resources?pagination.limit=many", "", 400, 3, "pagination.limit"},
		{"unknown module", "POST", acct + "/modules/nope/view_functions/get_total_score", viewBody, 500, 2, "nope"},
		{"batch body not JSON", "POST", "/initia/move/v1/view/json/batch", `{"requests":`, 400, 3, "body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := call(t, tn, tc.method, tc.path, tc.body)
			msg, _ := body["message"].(string)
			if status != tc.status || body["code"] != tc.code || !strings.Contains(msg, tc.msg) || !reflect.DeepEqual(body["details"], []any{}) {
				t.Fatalf("HTTP %d %v, want HTTP %d code %v with %q", status, body, tc.status, tc.code, tc.msg)
			}
		})
	}
}

// Table info and entries, params, and the denom <-> metadata mapping: over REST, and params
// over abci_query as a gRPC client asks.
func TestMoveTablesParamsAndMetadata(t *testing.T) {
	tn := start(t)
	pub := tn.keys[0]
	tn.publish(t, pub)
	owner := vmAddr(pub)

	// The publisher's 0x1::code::MetadataStore holds a table (its handle first) keyed by module id.
	_, ms := call(t, tn, "GET", "/initia/move/v1/accounts/"+owner.Short()+"/resources/by_struct_tag?struct_tag=0x1::code::MetadataStore", "")
	raw, err := base64.StdEncoding.DecodeString(fmt.Sprint(field(ms, "resource", "raw_bytes")))
	if err != nil || len(raw) < 32 {
		t.Fatalf("MetadataStore %v: %v", ms, err)
	}
	var handle movebcs.Address
	copy(handle[:], raw[:32])
	table := "/initia/move/v1/tables/" + handle.String()

	// The metadata address of a bank denom is the object named by it under 0x1.
	h := sha3.New256()
	one := movebcs.MustAddress("0x1")
	h.Write(one[:])
	h.Write([]byte("umin"))
	h.Write([]byte{0xFE})
	var meta movebcs.Address
	copy(meta[:], h.Sum(nil))

	for _, tc := range []struct {
		name, path string
		keys       []any
		want       any
	}{
		{"table key type", table, []any{"table_info", "key_type"}, "0x1::string::String"},
		{"table value type", table, []any{"table_info", "value_type"}, "0x1::code::ModuleMetadata"},
		{"one entry", table + "/entries?pagination.count_total=true", []any{"pagination", "total"}, "1"},
		{"entry key as JSON", table + "/entries", []any{"table_entries", 0, "key"}, `"` + owner.Short() + `::vip_score"`},
		{"base denom", "/initia/move/v1/params", []any{"params", "base_denom"}, "umin"},
		{"base min gas price", "/initia/move/v1/params", []any{"params", "base_min_gas_price"}, "0.150000000000000000"},
		{"scripts run", "/initia/move/v1/params", []any{"params", "script_enabled"}, true},
		{"metadata of a bank denom", "/initia/move/v1/metadata?denom=umin", []any{"metadata"}, meta.Short()},
		{"denom of its metadata", "/initia/move/v1/denom?metadata=" + meta.Short(), []any{"denom"}, "umin"},
		{"metadata of a move denom", "/initia/move/v1/metadata?denom=move/" + strings.Repeat("0", 62) + "ab", []any{"metadata"}, "0xab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := call(t, tn, "GET", tc.path, "")
			if got := field(body, tc.keys...); status != 200 || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("HTTP %d %v = %#v, want %#v (%v)", status, tc.keys, got, tc.want, body)
			}
		})
	}
	for _, tc := range []struct {
		name, path string
		status     int
		code       float64
		msg        string
	}{
		// x/move's store miss and address parser's words, unwrapped (code 2), as a minimove's.
		{"no table at the handle", "/initia/move/v1/tables/0xabc", 500, 2, "collections: not found: key 'hexBytes:"},
		{"handle not an address", "/initia/move/v1/tables/nope/entries", 500, 2, "decoding bech32 failed"},
		// x/move's own words, passed through unwrapped as a minimove answers them.
		{"no metadata at the address", "/initia/move/v1/denom?metadata=0xabc", 500, 2, "collections: not found"},
		{"move denom in upper case", "/initia/move/v1/metadata?denom=move/AB", 500, 2, "metadata address should be lowercase"},
		{"move denom of odd hex", "/initia/move/v1/metadata?denom=move/abc", 500, 2, "encoding/hex: odd length hex string"},
		{"move denom too long", "/initia/move/v1/metadata?denom=move/" + strings.Repeat("ab", 33), 500, 2, "invalid length of address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := call(t, tn, "GET", tc.path, "")
			msg, _ := body["message"].(string)
			if status != tc.status || body["code"] != tc.code || !strings.Contains(msg, tc.msg) {
				t.Fatalf("HTTP %d %v, want HTTP %d code %v with %q", status, body, tc.status, tc.code, tc.msg)
			}
		})
	}

	// abci_query answers the gRPC path with the same params.
	rpc, err := rpchttp.New(tn.node.RPCURL(), "/websocket")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := (&initiamove.QueryParamsRequest{}).Marshal()
	res, err := rpc.ABCIQuery(context.Background(), "/initia.move.v1.Query/Params", req)
	if err != nil || res.Response.Code != 0 {
		t.Fatalf("abci_query params: %v %v", err, res)
	}
	var out initiamove.QueryParamsResponse
	if err := out.Unmarshal(res.Response.Value); err != nil || out.Params.BaseDenom != "umin" {
		t.Fatalf("abci_query params %+v: %v", out, err)
	}
}
