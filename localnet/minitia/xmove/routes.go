package xmove

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	storetypes "cosmossdk.io/store/types"
	"github.com/cosmos/cosmos-sdk/codec"
	"github.com/cosmos/cosmos-sdk/types/query"
	"github.com/cosmos/gogoproto/jsonpb"
	"github.com/cosmos/gogoproto/proto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
)

// Routes serves x/move's routes whose request or response types the bindings do not
// carry (Modules, Resources, LegacyView, ViewBatch, ViewJSONBatch): their gateway JSON is
// assembled from the messages the bindings do have, field for field as initia's query.proto
// names them.
// read runs f against the committed state as a query; writeError answers an error in the
// gateway's JSON.
func (e *Executor) Routes(mux *http.ServeMux, read func(context.Context, func(Ctx) error) error, writeError func(http.ResponseWriter, error)) {
	serve := func(w http.ResponseWriter, r *http.Request, f func(Ctx) (any, error)) {
		var out any
		err := read(r.Context(), func(c Ctx) error {
			var err error
			out, err = f(c)
			return err
		})
		if err != nil {
			writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}
	mux.HandleFunc("GET /initia/move/v1/accounts/{address}/modules", func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, func(c Ctx) (any, error) { return e.modules(c, r.PathValue("address"), r.URL.Query()) })
	})
	mux.HandleFunc("GET /initia/move/v1/accounts/{address}/resources", func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, func(c Ctx) (any, error) { return e.resources(c, r.PathValue("address"), r.URL.Query()) })
	})
	// LegacyView: Initia.js viewFunction posts {type_args, args} (base64 BCS) to the function's path.
	mux.HandleFunc("POST /initia/move/v1/accounts/{address}/modules/{module_name}/view_functions/{function_name}", func(w http.ResponseWriter, r *http.Request) {
		var q initiamove.QueryViewRequest
		if err := bindBody(r, &q); err != nil {
			writeError(w, err)
			return
		}
		q.Address, q.ModuleName, q.FunctionName = r.PathValue("address"), r.PathValue("module_name"), r.PathValue("function_name")
		serve(w, r, func(c Ctx) (any, error) { return e.viewBCS(c, &q) })
	})
	batch := func(path string, newReq func() proto.Message, each func(Ctx, proto.Message) (json.RawMessage, error)) {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
			reqs, err := batchRequests(r, newReq)
			if err != nil {
				writeError(w, err)
				return
			}
			serve(w, r, func(c Ctx) (any, error) {
				out := make([]json.RawMessage, len(reqs))
				for i, m := range reqs {
					if out[i], err = each(c, m); err != nil {
						return nil, err
					}
				}
				return map[string]any{"responses": out}, nil
			})
		})
	}
	batch("/initia/move/v1/view/batch", func() proto.Message { return &initiamove.QueryViewRequest{} },
		func(c Ctx, m proto.Message) (json.RawMessage, error) {
			return e.viewBCS(c, m.(*initiamove.QueryViewRequest))
		})
	batch("/initia/move/v1/view/json/batch", func() proto.Message { return &initiamove.QueryViewJSONRequest{} },
		func(c Ctx, m proto.Message) (json.RawMessage, error) {
			q := m.(*initiamove.QueryViewJSONRequest)
			args := make([][]byte, len(q.Args))
			for j, a := range q.Args {
				args[j] = []byte(a)
			}
			data, events, gas, err := e.view(c, q.Address, q.ModuleName, q.FunctionName, q.TypeArgs, args, true)
			if err != nil {
				return nil, err
			}
			return protoJSON(&initiamove.QueryViewJSONResponse{Data: data, Events: events, GasUsed: gas})
		})
}

// viewBCS runs a view with BCS arguments and answers it in the gateway's JSON.
func (e *Executor) viewBCS(c Ctx, q *initiamove.QueryViewRequest) (json.RawMessage, error) {
	data, events, gas, err := e.view(c, q.Address, q.ModuleName, q.FunctionName, q.TypeArgs, q.Args, false)
	if err != nil {
		return nil, err
	}
	return protoJSON(&initiamove.QueryViewResponse{Data: data, Events: events, GasUsed: gas})
}

// batchRequests decodes {"requests": [...]}, each element in the gateway's JSON.
func batchRequests(r *http.Request, newReq func() proto.Message) ([]proto.Message, error) {
	var body struct {
		Requests []json.RawMessage `json:"requests"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 8<<20)).Decode(&body); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "body: %v", err)
	}
	out := make([]proto.Message, len(body.Requests))
	for i, raw := range body.Requests {
		out[i] = newReq()
		if err := (&jsonpb.Unmarshaler{}).Unmarshal(bytes.NewReader(raw), out[i]); err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "requests[%d]: %v", i, err)
		}
	}
	return out, nil
}

// protoJSON is m in the gateway's JSON (proto field names, defaults emitted, u64 as strings).
func protoJSON(m proto.Message) (json.RawMessage, error) {
	bz, err := codec.ProtoMarshalJSON(m, nil)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return bz, nil
}

func (e *Executor) modules(c Ctx, address string, params url.Values) (any, error) {
	addr, err := e.queryAddress(c, address)
	if err != nil {
		return nil, err
	}
	store := e.store(c)
	out := []json.RawMessage{}
	page, err := paginate(store, movebcs.ModuleKey(addr, "")[:33], params, func(key, code []byte) error {
		r := movebcs.NewReader(key)
		name := r.Str()
		if err := r.Done(); err != nil {
			return status.Errorf(codes.Internal, "module key %x: %v", key, err)
		}
		abi, err := e.vm.DecodeModule(code)
		if err != nil {
			return status.Errorf(codes.Internal, "decode module %s: %v", name, err)
		}
		policy, err := e.upgradePolicy(store, addr, name)
		if err != nil {
			return status.Errorf(codes.Internal, "upgrade policy of %s: %v", name, err)
		}
		m, err := protoJSON(&initiamove.Module{Address: address, ModuleName: name, Abi: string(abi), RawBytes: code, UpgradePolicy: policy})
		out = append(out, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"modules": out, "pagination": page}, nil
}

func (e *Executor) resources(c Ctx, address string, params url.Values) (any, error) {
	addr, err := e.queryAddress(c, address)
	if err != nil {
		return nil, err
	}
	store := e.store(c)
	out := []json.RawMessage{}
	page, err := paginate(store, movebcs.ResourceKey(addr, nil), params, func(key, raw []byte) error {
		tag, err := structTagString(key)
		if err != nil {
			return status.Errorf(codes.Internal, "resource key %x: %v", key, err)
		}
		// As x/move does: a resource the VM cannot decode is listed with move_resource "".
		js, err := e.rt.DecodeResource(store, key, raw)
		if err != nil {
			js = []byte(`""`)
		}
		m, err := protoJSON(&initiamove.Resource{Address: address, StructTag: tag, MoveResource: string(js), RawBytes: raw})
		out = append(out, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"resources": out, "pagination": page}, nil
}

// pageResponse is query.PageResponse in the gateway's JSON.
type pageResponse struct {
	NextKey []byte `json:"next_key"` // base64, null at the end
	Total   string `json:"total"`
}

// paginate walks the entries under prefix as the SDK's collection pagination does
// (pagination.key, offset, limit, count_total, reverse; limit 100 by default) and calls f with
// each entry's key without the prefix. next_key is the key of the entry after the page.
func paginate(store storetypes.KVStore, prefix []byte, params url.Values, f func(key, value []byte) error) (*pageResponse, error) {
	preq, err := bindPageRequest(params)
	if err != nil {
		return nil, err
	}
	var req query.PageRequest
	if preq != nil {
		req = *preq
	}
	if len(req.Key) > 0 && req.Offset > 0 {
		return nil, status.Error(codes.InvalidArgument, "invalid request, either offset or key is expected, got both")
	}
	if req.Limit == 0 {
		req.Limit = query.DefaultLimit
	}
	type entry struct{ key, value []byte }
	var all []entry
	it := store.Iterator(prefix, storetypes.PrefixEndBytes(prefix))
	for ; it.Valid(); it.Next() {
		all = append(all, entry{bytes.Clone(it.Key()[len(prefix):]), bytes.Clone(it.Value())})
	}
	_ = it.Close()
	if req.Reverse {
		slices.Reverse(all)
	}
	start := int(min(req.Offset, uint64(len(all))))
	if len(req.Key) > 0 {
		start = slices.IndexFunc(all, func(e entry) bool { return bytes.Equal(e.key, req.Key) })
		if start < 0 {
			start = len(all)
		}
	}
	end := start + int(min(req.Limit, uint64(len(all)-start)))
	for _, e := range all[start:end] {
		if err := f(e.key, e.value); err != nil {
			return nil, err
		}
	}
	page := &pageResponse{Total: "0"}
	if end < len(all) {
		page.NextKey = all[end].key
	}
	if req.CountTotal && len(req.Key) == 0 {
		page.Total = strconv.Itoa(len(all))
	}
	return page, nil
}

// structTagString writes a BCS struct tag as Move prints it: 0x1::coin::CoinStore<0x1::m::T>.
func structTagString(b []byte) (string, error) {
	// A struct tag is a type tag of kind 7 without the kind: checked whole first, so the
	// printing below meets only well-formed input.
	if err := movebcs.CheckTypeTag(append([]byte{7}, b...)); err != nil {
		return "", err
	}
	r := movebcs.NewReader(b)
	var sb strings.Builder
	writeStruct(r, &sb)
	if err := r.Done(); err != nil {
		return "", err
	}
	return sb.String(), nil
}

func writeStruct(r *movebcs.Reader, sb *strings.Builder) {
	addr := r.Address()
	module, name := r.Str(), r.Str()
	fmt.Fprintf(sb, "%s::%s::%s", addr.Short(), module, name)
	n := r.ULEB128()
	if n == 0 || r.Err() != nil {
		return
	}
	sb.WriteByte('<')
	for i := uint64(0); i < n && r.Err() == nil; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		writeTypeTag(r, sb)
	}
	sb.WriteByte('>')
}

func writeTypeTag(r *movebcs.Reader, sb *strings.Builder) {
	names := map[uint8]string{0: "bool", 1: "u8", 2: "u64", 3: "u128", 4: "address", 5: "signer", 8: "u16", 9: "u32", 10: "u256"}
	switch k := r.U8(); k {
	case 6:
		sb.WriteString("vector<")
		writeTypeTag(r, sb)
		sb.WriteByte('>')
	case 7:
		writeStruct(r, sb)
	default:
		sb.WriteString(names[k])
	}
}
