package xmove

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"

	"github.com/cosmos/cosmos-sdk/types/query"
	"github.com/cosmos/gogoproto/jsonpb"
	"github.com/cosmos/gogoproto/proto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vipharness/vipharness/localnet/movevm"
)

// Query is one of x/move's gRPC query methods, with its REST route.
type Query struct {
	// Method is the full gRPC method, e.g. "/initia.move.v1.Query/Resource".
	Method string
	New    func() proto.Message
	// HTTP is a net/http pattern; Bind fills a request from it.
	HTTP   string
	Bind   func(r *http.Request, req proto.Message) error
	Handle func(c Ctx, req proto.Message) (proto.Message, error)
}

// QueryMethods are x/move's query methods the executor answers, with Initia's REST routes.
func (e *Executor) QueryMethods() []Query {
	return []Query{
		{
			Method: "/initia.move.v1.Query/Resource",
			New:    func() proto.Message { return &initiamove.QueryResourceRequest{} },
			HTTP:   "GET /initia/move/v1/accounts/{address}/resources/by_struct_tag",
			Bind: func(r *http.Request, req proto.Message) error {
				q := req.(*initiamove.QueryResourceRequest)
				q.Address, q.StructTag = r.PathValue("address"), r.URL.Query().Get("struct_tag")
				return nil
			},
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				return e.resource(c, r.(*initiamove.QueryResourceRequest))
			},
		},
		{
			Method: "/initia.move.v1.Query/Module",
			New:    func() proto.Message { return &initiamove.QueryModuleRequest{} },
			HTTP:   "GET /initia/move/v1/accounts/{address}/modules/{module_name}",
			Bind: func(r *http.Request, req proto.Message) error {
				q := req.(*initiamove.QueryModuleRequest)
				q.Address, q.ModuleName = r.PathValue("address"), r.PathValue("module_name")
				return nil
			},
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				return e.module(c, r.(*initiamove.QueryModuleRequest))
			},
		},
		{
			Method: "/initia.move.v1.Query/TableEntry",
			New:    func() proto.Message { return &initiamove.QueryTableEntryRequest{} },
			HTTP:   "GET /initia/move/v1/tables/{address}/entries/by_key_bytes",
			Bind: func(r *http.Request, req proto.Message) error {
				q := req.(*initiamove.QueryTableEntryRequest)
				q.Address = r.PathValue("address")
				kb, err := base64.StdEncoding.DecodeString(r.URL.Query().Get("key_bytes"))
				if err != nil {
					return status.Errorf(codes.InvalidArgument, "key_bytes: not base64: %v", err)
				}
				q.KeyBytes = kb
				return nil
			},
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				return e.tableEntry(c, r.(*initiamove.QueryTableEntryRequest))
			},
		},
		{
			Method: "/initia.move.v1.Query/View",
			New:    func() proto.Message { return &initiamove.QueryViewRequest{} },
			HTTP:   "POST /initia/move/v1/view",
			Bind:   bindBody,
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				q := r.(*initiamove.QueryViewRequest)
				data, events, gas, err := e.view(c, q.Address, q.ModuleName, q.FunctionName, q.TypeArgs, q.Args, false)
				if err != nil {
					return nil, err
				}
				return &initiamove.QueryViewResponse{Data: data, Events: events, GasUsed: gas}, nil
			},
		},
		{
			Method: "/initia.move.v1.Query/ViewJSON",
			New:    func() proto.Message { return &initiamove.QueryViewJSONRequest{} },
			HTTP:   "POST /initia/move/v1/view/json",
			Bind:   bindBody,
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				q := r.(*initiamove.QueryViewJSONRequest)
				data, events, gas, err := e.view(c, q.Address, q.ModuleName, q.FunctionName, q.TypeArgs, jsonArgs(q.Args), true)
				if err != nil {
					return nil, err
				}
				return &initiamove.QueryViewJSONResponse{Data: data, Events: events, GasUsed: gas}, nil
			},
		},
		{
			Method: "/initia.move.v1.Query/Modules",
			New:    func() proto.Message { return &initiamove.QueryModulesRequest{} },
			HTTP:   "GET /initia/move/v1/accounts/{address}/modules",
			Bind: bindPaged(func(req proto.Message) (*string, **query.PageRequest) {
				q := req.(*initiamove.QueryModulesRequest)
				return &q.Address, &q.Pagination
			}),
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				return e.modules(c, r.(*initiamove.QueryModulesRequest))
			},
		},
		{
			Method: "/initia.move.v1.Query/Resources",
			New:    func() proto.Message { return &initiamove.QueryResourcesRequest{} },
			HTTP:   "GET /initia/move/v1/accounts/{address}/resources",
			Bind: bindPaged(func(req proto.Message) (*string, **query.PageRequest) {
				q := req.(*initiamove.QueryResourcesRequest)
				return &q.Address, &q.Pagination
			}),
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				return e.resources(c, r.(*initiamove.QueryResourcesRequest))
			},
		},
		{
			Method: "/initia.move.v1.Query/TableInfo",
			New:    func() proto.Message { return &initiamove.QueryTableInfoRequest{} },
			HTTP:   "GET /initia/move/v1/tables/{address}",
			Bind: func(r *http.Request, req proto.Message) error {
				req.(*initiamove.QueryTableInfoRequest).Address = r.PathValue("address")
				return nil
			},
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				return e.tableInfo(c, r.(*initiamove.QueryTableInfoRequest))
			},
		},
		{
			Method: "/initia.move.v1.Query/TableEntries",
			New:    func() proto.Message { return &initiamove.QueryTableEntriesRequest{} },
			HTTP:   "GET /initia/move/v1/tables/{address}/entries",
			Bind: bindPaged(func(req proto.Message) (*string, **query.PageRequest) {
				q := req.(*initiamove.QueryTableEntriesRequest)
				return &q.Address, &q.Pagination
			}),
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				return e.tableEntries(c, r.(*initiamove.QueryTableEntriesRequest))
			},
		},
		{
			// Initia.js's viewFunction posts {type_args, args} (base64 BCS) to the function's path.
			Method: "/initia.move.v1.Query/LegacyView",
			New:    func() proto.Message { return &initiamove.QueryLegacyViewRequest{} },
			HTTP:   "POST /initia/move/v1/accounts/{address}/modules/{module_name}/view_functions/{function_name}",
			Bind: func(r *http.Request, req proto.Message) error {
				if err := bindBody(r, req); err != nil {
					return err
				}
				q := req.(*initiamove.QueryLegacyViewRequest)
				q.Address, q.ModuleName, q.FunctionName = r.PathValue("address"), r.PathValue("module_name"), r.PathValue("function_name")
				return nil
			},
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				q := r.(*initiamove.QueryLegacyViewRequest)
				data, events, gas, err := e.view(c, q.Address, q.ModuleName, q.FunctionName, q.TypeArgs, q.Args, false)
				if err != nil {
					return nil, err
				}
				return &initiamove.QueryLegacyViewResponse{Data: data, Events: events, GasUsed: gas}, nil
			},
		},
		{
			Method: "/initia.move.v1.Query/ViewBatch",
			New:    func() proto.Message { return &initiamove.QueryViewBatchRequest{} },
			HTTP:   "POST /initia/move/v1/view/batch",
			Bind:   bindBody,
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				q := r.(*initiamove.QueryViewBatchRequest)
				out := &initiamove.QueryViewBatchResponse{Responses: make([]initiamove.QueryViewResponse, len(q.Requests))}
				for i, v := range q.Requests {
					data, events, gas, err := e.view(c, v.Address, v.ModuleName, v.FunctionName, v.TypeArgs, v.Args, false)
					if err != nil {
						return nil, err
					}
					out.Responses[i] = initiamove.QueryViewResponse{Data: data, Events: events, GasUsed: gas}
				}
				return out, nil
			},
		},
		{
			Method: "/initia.move.v1.Query/ViewJSONBatch",
			New:    func() proto.Message { return &initiamove.QueryViewJSONBatchRequest{} },
			HTTP:   "POST /initia/move/v1/view/json/batch",
			Bind:   bindBody,
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				q := r.(*initiamove.QueryViewJSONBatchRequest)
				out := &initiamove.QueryViewJSONBatchResponse{Responses: make([]initiamove.QueryViewJSONResponse, len(q.Requests))}
				for i, v := range q.Requests {
					data, events, gas, err := e.view(c, v.Address, v.ModuleName, v.FunctionName, v.TypeArgs, jsonArgs(v.Args), true)
					if err != nil {
						return nil, err
					}
					out.Responses[i] = initiamove.QueryViewJSONResponse{Data: data, Events: events, GasUsed: gas}
				}
				return out, nil
			},
		},
	}
}

// bindPaged binds a paged list's request: the address from the path, pagination.* from the
// query string; fields names the request's two fields.
func bindPaged(fields func(proto.Message) (*string, **query.PageRequest)) func(*http.Request, proto.Message) error {
	return func(r *http.Request, req proto.Message) (err error) {
		addr, page := fields(req)
		*addr = r.PathValue("address")
		*page, err = bindPageRequest(r.URL.Query())
		return err
	}
}

// jsonArgs are a JSON view's arguments as the VM takes them.
func jsonArgs(args []string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

// bindBody reads a POST body in the gateway's JSON (field names as in the proto or camelCase).
func bindBody(r *http.Request, req proto.Message) error {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(nil, r.Body, 8<<20)); err != nil {
		return status.Errorf(codes.InvalidArgument, "read body: %v", err)
	}
	if err := (&jsonpb.Unmarshaler{}).Unmarshal(&buf, req); err != nil {
		return status.Errorf(codes.InvalidArgument, "body: %v", err)
	}
	return nil
}

func (e *Executor) queryAddress(c Ctx, s string) (movebcs.Address, error) {
	a, err := parseAddress(c, s)
	if err != nil {
		return a, status.Errorf(codes.InvalidArgument, "address %q: %v", s, err)
	}
	return a, nil
}

func (e *Executor) resource(c Ctx, q *initiamove.QueryResourceRequest) (proto.Message, error) {
	addr, err := e.queryAddress(c, q.Address)
	if err != nil {
		return nil, err
	}
	tag, err := e.rt.StructTagKey(q.StructTag)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "struct tag %q: %v", q.StructTag, err)
	}
	store := e.store(c)
	key := movebcs.ResourceKey(addr, tag)
	raw := store.Get(key)
	if raw == nil {
		return nil, collectionsNotFound(key)
	}
	js, err := e.rt.DecodeResource(store, tag, raw)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "decode resource %s: %v", q.StructTag, err)
	}
	return &initiamove.QueryResourceResponse{Resource: initiamove.Resource{Address: q.Address, StructTag: q.StructTag, MoveResource: string(js), RawBytes: raw}}, nil
}

func (e *Executor) module(c Ctx, q *initiamove.QueryModuleRequest) (proto.Message, error) {
	addr, err := e.queryAddress(c, q.Address)
	if err != nil {
		return nil, err
	}
	store := e.store(c)
	key := movebcs.ModuleKey(addr, q.ModuleName)
	code := store.Get(key)
	if code == nil {
		return nil, collectionsNotFound(key)
	}
	abi, err := e.vm.DecodeModule(code)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "decode module %s: %v", q.ModuleName, err)
	}
	policy, err := e.upgradePolicy(store, addr, q.ModuleName)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "upgrade policy of %s: %v", q.ModuleName, err)
	}
	return &initiamove.QueryModuleResponse{Module: initiamove.Module{Address: q.Address, ModuleName: q.ModuleName, Abi: string(abi), RawBytes: code, UpgradePolicy: policy}}, nil
}

func (e *Executor) tableEntry(c Ctx, q *initiamove.QueryTableEntryRequest) (proto.Message, error) {
	if len(q.KeyBytes) == 0 {
		return nil, status.Error(codes.InvalidArgument, "empty key bytes: invalid request")
	}
	store := e.store(c)
	handle, info, err := e.table(c, store, q.Address)
	if err != nil {
		return nil, err
	}
	value := store.Get(movebcs.TableItemKey(handle, q.KeyBytes))
	if value == nil {
		return nil, collectionsNotFound(movebcs.TableItemKey(handle, q.KeyBytes))
	}
	key, err := e.rt.DecodeValue(store, info.KeyType, q.KeyBytes)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "table %s key: %v", q.Address, err)
	}
	val, err := e.rt.DecodeValue(store, info.ValueType, value)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "table %s value: %v", q.Address, err)
	}
	return &initiamove.QueryTableEntryResponse{TableEntry: initiamove.TableEntry{
		Address: q.Address, Key: string(key), Value: string(val), KeyBytes: q.KeyBytes, ValueBytes: value,
	}}, nil
}

func (e *Executor) view(c Ctx, addr, module, function string, typeArgs []string, args [][]byte, isJSON bool) (string, []initiamove.VMEvent, uint64, error) {
	fn, err := e.function(c, addr, module, function, typeArgs)
	if err != nil {
		// x/move's own words, unwrapped: code 2, as a minimove answers them.
		return "", nil, 0, status.Error(codes.Unknown, err.Error())
	}
	fn.Args, fn.IsJSON = args, isJSON
	gas := c.GasMeter().Limit() - c.GasMeter().GasConsumedToLimit()
	res, err := e.rt.View(e.store(c), e.env(c, false), gas, fn)
	var ee *movevm.ExecError
	if err != nil {
		if errors.As(err, &ee) {
			c.GasMeter().ConsumeGas(ee.GasUsed, "view; move runtime")
		}
		return "", nil, 0, status.Error(codes.Unknown, err.Error())
	}
	c.GasMeter().ConsumeGas(res.GasUsed, "view; move runtime")
	events := make([]initiamove.VMEvent, len(res.Events))
	for i, ev := range res.Events {
		events[i] = initiamove.VMEvent{TypeTag: ev.TypeTag, Data: ev.Data}
	}
	return res.JSON, events, res.GasUsed, nil
}

// upgradePolicy reads a module's policy where 0x1::code keeps it: the publisher's
// MetadataStore table, keyed by the module id.
func (e *Executor) upgradePolicy(store interface{ Get([]byte) []byte }, addr movebcs.Address, name string) (initiamove.UpgradePolicy, error) {
	tag, err := e.rt.StructTagKey("0x1::code::MetadataStore")
	if err != nil {
		return 0, err
	}
	ms := store.Get(movebcs.ResourceKey(addr, tag))
	if len(ms) < 32 {
		return initiamove.UNSPECIFIED, fmt.Errorf("no MetadataStore at %s", addr.Short())
	}
	var handle movebcs.Address
	copy(handle[:], ms[:32])
	id := addr.Short() + "::" + name
	key := movebcs.TableItemKey(handle, movebcs.ArgString(id))
	v := store.Get(key)
	if len(v) != 1 {
		return initiamove.UNSPECIFIED, fmt.Errorf("no metadata for %s", id)
	}
	return initiamove.UpgradePolicy(v[0]), nil
}

// collectionsNotFound is what Initia's x/move answers for a missing module or resource: the
// store's own collections error, passed through unwrapped, so gRPC code 2 (Unknown) and,
// through the gateway, HTTP 500, never NotFound.
func collectionsNotFound(key []byte) error {
	return status.Errorf(codes.Unknown, "collections: not found: key 'hexBytes:%x' of type bytes", key)
}
