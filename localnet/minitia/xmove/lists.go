package xmove

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	storetypes "cosmossdk.io/store/types"
	"github.com/cosmos/cosmos-sdk/types/query"
	"github.com/cosmos/gogoproto/proto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
)

// The paged lists of x/move's query service (modules, resources, table entries) and the
// table info: what the store holds under a prefix, printed as Move prints types.

func (e *Executor) modules(c Ctx, q *initiamove.QueryModulesRequest) (proto.Message, error) {
	addr, err := e.queryAddress(c, q.Address)
	if err != nil {
		return nil, err
	}
	store := e.store(c)
	out := &initiamove.QueryModulesResponse{Modules: []initiamove.Module{}}
	out.Pagination, err = paginate(store, movebcs.ModuleKey(addr, "")[:33], q.Pagination, func(key, code []byte) error {
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
		out.Modules = append(out.Modules, initiamove.Module{Address: q.Address, ModuleName: name, Abi: string(abi), RawBytes: code, UpgradePolicy: policy})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (e *Executor) resources(c Ctx, q *initiamove.QueryResourcesRequest) (proto.Message, error) {
	addr, err := e.queryAddress(c, q.Address)
	if err != nil {
		return nil, err
	}
	store := e.store(c)
	out := &initiamove.QueryResourcesResponse{Resources: []initiamove.Resource{}}
	out.Pagination, err = paginate(store, movebcs.ResourceKey(addr, nil), q.Pagination, func(key, raw []byte) error {
		tag, err := structTagString(key)
		if err != nil {
			return status.Errorf(codes.Internal, "resource key %x: %v", key, err)
		}
		// As x/move does: a resource the VM cannot decode is listed with move_resource "".
		js, err := e.rt.DecodeResource(store, key, raw)
		if err != nil {
			js = []byte(`""`)
		}
		out.Resources = append(out.Resources, initiamove.Resource{Address: q.Address, StructTag: tag, MoveResource: string(js), RawBytes: raw})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// table reads a table's stored info: its key and value types.
func (e *Executor) table(c Ctx, store storetypes.KVStore, address string) (movebcs.Address, movebcs.TableInfo, error) {
	handle, err := parseAddress(c, address)
	if err != nil {
		// x/move passes its address parser's words through: code 2.
		return handle, movebcs.TableInfo{}, status.Error(codes.Unknown, err.Error())
	}
	raw := store.Get(movebcs.TableInfoKey(handle))
	if raw == nil {
		return handle, movebcs.TableInfo{}, collectionsNotFound(movebcs.TableInfoKey(handle))
	}
	info, err := movebcs.ParseTableInfo(raw)
	if err != nil {
		return handle, info, status.Errorf(codes.Internal, "table %s: %v", address, err)
	}
	return handle, info, nil
}

func (e *Executor) tableInfo(c Ctx, q *initiamove.QueryTableInfoRequest) (proto.Message, error) {
	_, info, err := e.table(c, e.store(c), q.Address)
	if err != nil {
		return nil, err
	}
	key, err := typeTagString(info.KeyType)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "table %s key type: %v", q.Address, err)
	}
	value, err := typeTagString(info.ValueType)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "table %s value type: %v", q.Address, err)
	}
	return &initiamove.QueryTableInfoResponse{TableInfo: initiamove.TableInfo{Address: q.Address, KeyType: key, ValueType: value}}, nil
}

func (e *Executor) tableEntries(c Ctx, q *initiamove.QueryTableEntriesRequest) (proto.Message, error) {
	store := e.store(c)
	handle, info, err := e.table(c, store, q.Address)
	if err != nil {
		return nil, err
	}
	out := &initiamove.QueryTableEntriesResponse{TableEntries: []initiamove.TableEntry{}}
	out.Pagination, err = paginate(store, movebcs.TableItemKey(handle, nil), q.Pagination, func(key, value []byte) error {
		k, err := e.rt.DecodeValue(store, info.KeyType, key)
		if err != nil {
			return status.Errorf(codes.Internal, "table %s key %x: %v", q.Address, key, err)
		}
		v, err := e.rt.DecodeValue(store, info.ValueType, value)
		if err != nil {
			return status.Errorf(codes.Internal, "table %s value of key %x: %v", q.Address, key, err)
		}
		out.TableEntries = append(out.TableEntries, initiamove.TableEntry{Address: q.Address, Key: string(k), Value: string(v), KeyBytes: key, ValueBytes: value})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// paginate walks the entries under prefix as the SDK's collection pagination does
// (pagination.key, offset, limit, count_total, reverse; limit 100 by default) and calls f with
// each entry's key without the prefix. next_key is the key of the entry after the page.
func paginate(store storetypes.KVStore, prefix []byte, preq *query.PageRequest, f func(key, value []byte) error) (*query.PageResponse, error) {
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
	page := &query.PageResponse{}
	if end < len(all) {
		page.NextKey = all[end].key
	}
	if req.CountTotal && len(req.Key) == 0 {
		page.Total = uint64(len(all))
	}
	return page, nil
}

// typeTagString writes a BCS type tag as Move prints it: u64, vector<u8>, 0x1::string::String.
func typeTagString(b []byte) (string, error) {
	if err := movebcs.CheckTypeTag(b); err != nil {
		return "", err
	}
	r := movebcs.NewReader(b)
	var sb strings.Builder
	writeTypeTag(r, &sb)
	if err := r.Done(); err != nil {
		return "", err
	}
	return sb.String(), nil
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
