package movevm

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	storetypes "cosmossdk.io/store/types"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// Env is the block and tx context of one call. TxHash and SessionID must differ between
// executions: the VM derives new table handles and object addresses from them, so reusing
// them makes a new table alias an old one.
type Env struct {
	// Accounts answers the VM's account lookups (nil: no address has an account). It is
	// not part of the VM's encoded Env.
	Accounts          AccountLookup
	ChainID           string
	BlockHeight       uint64
	BlockTimestamp    uint64 // seconds
	NextAccountNumber uint64
	TxHash            [32]byte
	SessionID         [32]byte
}

func (e Env) bcs() []byte {
	w := movebcs.NewWriter(89 + len(e.ChainID))
	w.Str(e.ChainID)
	w.U64(e.BlockHeight)
	w.U64(e.BlockTimestamp)
	w.U64(e.NextAccountNumber)
	w.Raw(e.TxHash[:])
	w.Raw(e.SessionID[:])
	return w.Out()
}

// AccountLookup is the chain's account at an address, as the VM asks for it.
type AccountLookup func(movebcs.Address) (AccountInfo, bool)

// AccountInfo is what the VM learns of an account.
type AccountInfo struct {
	Number, Sequence uint64
	Type             uint8 // AccountBase, AccountObject, AccountTable or AccountModule
	Blocked          bool  // the bank refuses to send to it
}

// The VM's account types (movevm's AccountType).
const (
	AccountBase uint8 = iota
	AccountObject
	AccountTable
	AccountModule
)

// ModuleID names a module: address::name.
type ModuleID struct {
	Address movebcs.Address
	Name    string
}

func (m ModuleID) String() string { return m.Address.Short() + "::" + m.Name }

// Function is an entry or view function call. TypeArgs are BCS type tags (Runtime.TypeTag);
// Args are the BCS encoding of each argument (signers excluded), or JSON when IsJSON.
type Function struct {
	Module   ModuleID
	Function string
	TypeArgs [][]byte
	Args     [][]byte
	IsJSON   bool
}

func (f Function) bcs() []byte {
	var w movebcs.Writer
	w.Address(f.Module.Address)
	w.Str(f.Module.Name)
	w.Str(f.Function)
	writeTypeArgs(&w, f.TypeArgs)
	w.ULEB128(uint64(len(f.Args)))
	for _, a := range f.Args {
		w.Bytes(a)
	}
	w.Bool(f.IsJSON)
	return w.Out()
}

func (f Function) validate() error {
	if !isIdentifier(f.Module.Name) {
		return fmt.Errorf("module name %q is not a Move identifier", f.Module.Name)
	}
	if !isIdentifier(f.Function) {
		return fmt.Errorf("function name %q is not a Move identifier", f.Function)
	}
	return checkTypeArgs(f.TypeArgs)
}

// checkTypeArgs refuses a type argument that is not one whole BCS type tag: the library
// would read past it.
func checkTypeArgs(tags [][]byte) error {
	for i, t := range tags {
		if err := movebcs.CheckTypeTag(t); err != nil {
			return fmt.Errorf("type argument %d: %w", i, err)
		}
	}
	return nil
}

// isIdentifier is Move's identifier rule; the library would crash the process on a name it
// cannot decode, so names are checked here first.
func isIdentifier(s string) bool {
	if s == "" || s == "_" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Event is a Move event as the VM reports it: the struct's type tag and its JSON.
type Event struct {
	TypeTag string
	Data    string
}

// NewAccount is an account the execution created (e.g. an object's).
type NewAccount struct {
	Address       movebcs.Address
	AccountNumber uint64
	AccountType   uint8
}

// Result is what a successful execution reports. Its writes have already gone to the store.
type Result struct {
	Events         []Event
	NewAccounts    []NewAccount
	CosmosMessages int // messages the module asked the chain to dispatch
	StakingDeltas  int
	GasUsed        uint64
}

// ViewResult is a view function's return value as JSON.
type ViewResult struct {
	JSON    string
	Events  []Event
	GasUsed uint64
}

// ExecError is a failed execution: the VM's message (which names the abort location and
// code, or the status), and the gas it used before failing.
type ExecError struct {
	Message string
	GasUsed uint64
}

func (e *ExecError) Error() string { return e.Message }

// Abort parses a Move abort out of the VM's message
// ("VM aborted: location=<address>::<module>, code=<n>"), if it is one.
func (e *ExecError) Abort() (movebcs.Abort, bool) { return movebcs.ParseAbort(e.Message) }

// Config sizes the VM's caches.
type Config struct {
	AllowUnstable       bool
	ScriptCacheCapacity uint64
	ModuleCacheCapacity uint64
}

// DefaultConfig is what Initia's chains run: the library's cache sizes, and unstable
// bytecode refused (a real minimove answers UNSTABLE_BYTECODE_REJECTED to compiler 2.1's).
var DefaultConfig = Config{AllowUnstable: false, ScriptCacheCapacity: 100, ModuleCacheCapacity: 500}

// Runtime is one allocated MoveVM with its module and script caches. The library takes the
// VM mutably for every execution, so calls are serialized.
type Runtime struct {
	lib *library
	mu  sync.Mutex
	ptr unsafe.Pointer
}

// NewRuntime allocates a MoveVM. Close releases it.
func (v *VM) NewRuntime(cfg Config) (*Runtime, error) {
	fn, err := v.lib.sym("allocate_vm")
	if err != nil {
		return nil, err
	}
	nv, err := v.lib.sym("new_unmanaged_vector")
	if err != nil {
		return nil, err
	}
	C.vh_set_new_vector(nv)
	var w movebcs.Writer
	w.Bool(cfg.AllowUnstable)
	w.U64(cfg.ScriptCacheCapacity)
	w.U64(cfg.ModuleCacheCapacity)
	c := C.CBytes(w.Out())
	defer C.free(c)
	p := C.vh_allocate_vm(fn, (*C.uint8_t)(c), C.size_t(len(w.Out())))
	if p == nil {
		return nil, errors.New("allocate MoveVM: the library returned no VM")
	}
	return &Runtime{lib: v.lib, ptr: p}, nil
}

// Close releases the VM.
func (r *Runtime) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ptr == nil {
		return
	}
	if fn, err := r.lib.sym("release_vm"); err == nil {
		C.vh_release_vm(fn, r.ptr)
	}
	r.ptr = nil
}

// cslice is a C copy of b, as the view the library reads; free releases it.
type cslice struct {
	v C.ByteSliceView
	p unsafe.Pointer
}

func newCSlice(b []byte) cslice {
	s := cslice{}
	s.v.len = C.size_t(len(b))
	if len(b) > 0 {
		s.p = C.CBytes(b)
		s.v.ptr = (*C.uint8_t)(s.p)
	}
	return s
}

func (s cslice) free() {
	if s.p != nil {
		C.free(s.p)
	}
}

// call runs one library entry point with the store registered for its callbacks.
func (r *Runtime) call(store storetypes.KVStore, accounts AccountLookup, f func(db C.uintptr_t, errmsg *C.UnmanagedVector) C.UnmanagedVector) ([]byte, error) {
	if r.ptr == nil {
		return nil, errors.New("the MoveVM is closed")
	}
	id, done := registerCall(store, accounts)
	defer done()
	var errmsg C.UnmanagedVector
	errmsg.is_none = true
	out := f(C.uintptr_t(id), &errmsg)
	res := r.lib.take(out)
	if msg := r.lib.take(errmsg); msg != nil {
		return nil, &ExecError{Message: string(msg)}
	}
	return res, nil
}

// Genesis publishes bundle (the 0x1 framework) into store, runs each module's init_module
// and 0x1::code::init_genesis with the allowed publishers (none: anyone may publish).
func (r *Runtime) Genesis(store storetypes.KVStore, env Env, bundle [][]byte, allowed []movebcs.Address) (Result, error) {
	fn, err := r.lib.sym("initialize")
	if err != nil {
		return Result{}, err
	}
	envS, bundleS, allowedS := newCSlice(env.bcs()), newCSlice(movebcs.ArgBytesVec(bundle)), newCSlice(movebcs.ArgAddresses(allowed))
	defer envS.free()
	defer bundleS.free()
	defer allowedS.free()
	r.mu.Lock()
	defer r.mu.Unlock()
	out, err := r.call(store, env.Accounts, func(db C.uintptr_t, errmsg *C.UnmanagedVector) C.UnmanagedVector {
		return C.vh_initialize(fn, r.ptr, db, envS.v, bundleS.v, allowedS.v, errmsg)
	})
	if err != nil {
		return Result{}, fmt.Errorf("genesis: %w", err)
	}
	return decodeResult(out)
}

// Execute runs an entry function signed by senders, with gasLimit gas. Its writes reach
// store only when it succeeds; a failure is an *ExecError with the gas used.
func (r *Runtime) Execute(store storetypes.KVStore, env Env, gasLimit uint64, senders []movebcs.Address, f Function) (Result, error) {
	if err := f.validate(); err != nil {
		return Result{}, err
	}
	return r.run("execute_contract", store, env, gasLimit, senders, f.bcs())
}

// Script is a compiled script's call: its bytecode and its arguments (BCS, or JSON when
// IsJSON). Type arguments are not supported.
type Script struct {
	Code     []byte
	TypeArgs [][]byte // BCS type tags (Runtime.TypeTag)
	Args     [][]byte
	IsJSON   bool
}

func (s Script) bcs() []byte {
	var w movebcs.Writer
	w.Bytes(s.Code)
	writeTypeArgs(&w, s.TypeArgs)
	w.ULEB128(uint64(len(s.Args)))
	for _, a := range s.Args {
		w.Bytes(a)
	}
	w.Bool(s.IsJSON)
	return w.Out()
}

// ExecuteScript runs a script signed by senders, with gasLimit gas, as Execute runs an entry
// function.
func (r *Runtime) ExecuteScript(store storetypes.KVStore, env Env, gasLimit uint64, senders []movebcs.Address, s Script) (Result, error) {
	if len(s.Code) == 0 {
		return Result{}, errors.New("empty script")
	}
	if err := checkTypeArgs(s.TypeArgs); err != nil {
		return Result{}, err
	}
	return r.run("execute_script", store, env, gasLimit, senders, s.bcs())
}

// run calls an execution entry point (entry function or script: one signature).
func (r *Runtime) run(entry string, store storetypes.KVStore, env Env, gasLimit uint64, senders []movebcs.Address, payload []byte) (Result, error) {
	fn, err := r.lib.sym(entry)
	if err != nil {
		return Result{}, err
	}
	envS, sendersS, fnS := newCSlice(env.bcs()), newCSlice(movebcs.ArgAddresses(senders)), newCSlice(payload)
	defer envS.free()
	defer sendersS.free()
	defer fnS.free()
	r.mu.Lock()
	defer r.mu.Unlock()
	gas := C.uint64_t(gasLimit)
	out, err := r.call(store, env.Accounts, func(db C.uintptr_t, errmsg *C.UnmanagedVector) C.UnmanagedVector {
		return C.vh_execute_contract(fn, r.ptr, &gas, db, envS.v, sendersS.v, fnS.v, errmsg)
	})
	used := gasLimit - uint64(gas)
	if err != nil {
		var ee *ExecError
		if errors.As(err, &ee) {
			ee.GasUsed = used
		}
		return Result{}, err
	}
	res, err := decodeResult(out)
	res.GasUsed = used
	return res, err
}

// View runs a #[view] function and returns its value as JSON. Nothing is written.
func (r *Runtime) View(store storetypes.KVStore, env Env, gasLimit uint64, f Function) (ViewResult, error) {
	if err := f.validate(); err != nil {
		return ViewResult{}, err
	}
	fn, err := r.lib.sym("execute_view_function")
	if err != nil {
		return ViewResult{}, err
	}
	envS, fnS := newCSlice(env.bcs()), newCSlice(f.bcs())
	defer envS.free()
	defer fnS.free()
	r.mu.Lock()
	defer r.mu.Unlock()
	gas := C.uint64_t(gasLimit)
	out, err := r.call(readOnly{store}, env.Accounts, func(db C.uintptr_t, errmsg *C.UnmanagedVector) C.UnmanagedVector {
		return C.vh_execute_view(fn, r.ptr, &gas, db, envS.v, fnS.v, errmsg)
	})
	used := gasLimit - uint64(gas)
	if err != nil {
		var ee *ExecError
		if errors.As(err, &ee) {
			ee.GasUsed = used
		}
		return ViewResult{}, err
	}
	rd := movebcs.NewReader(out)
	v := ViewResult{JSON: rd.Str(), Events: readEvents(rd), GasUsed: used}
	if err := rd.Done(); err != nil {
		return ViewResult{}, fmt.Errorf("decode view output: %w", err)
	}
	return v, nil
}

// DecodeResource turns a resource's stored bytes into the JSON the Move REST API shows
// ({"type", "data"}), reading any module it needs from store; tag is the struct tag's BCS, as
// StructTagKey gives it.
func (r *Runtime) DecodeResource(store storetypes.KVStore, tag, data []byte) ([]byte, error) {
	return r.decode(store, "decode_move_resource", tag, data)
}

// DecodeValue turns a value's BCS into JSON, given the BCS of its type tag (as a table's
// TableInfo holds it).
func (r *Runtime) DecodeValue(store storetypes.KVStore, typeTag, data []byte) ([]byte, error) {
	if err := movebcs.CheckTypeTag(typeTag); err != nil {
		return nil, err
	}
	return r.decode(store, "decode_move_value", typeTag, data)
}

func (r *Runtime) decode(store storetypes.KVStore, name string, tag, data []byte) ([]byte, error) {
	fn, err := r.lib.sym(name)
	if err != nil {
		return nil, err
	}
	tagS, dataS := newCSlice(tag), newCSlice(data)
	defer tagS.free()
	defer dataS.free()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.call(readOnly{store}, nil, func(db C.uintptr_t, errmsg *C.UnmanagedVector) C.UnmanagedVector {
		return C.vh_decode(fn, db, tagS.v, dataS.v, errmsg)
	})
}

// StructTagKey is the BCS encoding of a struct tag, as the VM keys resources by it.
func (r *Runtime) StructTagKey(structTag string) ([]byte, error) {
	return r.lib.callSlice("parse_struct_tag", []byte(structTag))
}

// BCS variant indexes of Move's TypeTag.
const (
	tagBool, tagU8, tagU64, tagU128, tagAddress, tagSigner, tagVector, tagStruct, tagU16, tagU32, tagU256 = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
)

// TypeTag is the BCS type tag of a type argument written as x/move takes it ("u64",
// "vector<u8>", "0x1::fungible_asset::Metadata"), parsed as x/move parses it: primitives by
// name, "vector<...>" by trimming, anything else as a struct tag by the library.
func (r *Runtime) TypeTag(typeArg string) ([]byte, error) {
	if t, ok := primitiveTags[typeArg]; ok {
		return []byte{t}, nil
	}
	if strings.HasPrefix(typeArg, "vector") {
		elem, err := r.TypeTag(strings.TrimSuffix(strings.TrimPrefix(typeArg, "vector<"), ">"))
		if err != nil {
			return nil, err
		}
		return append([]byte{tagVector}, elem...), nil
	}
	if typeArg == "" {
		return nil, errors.New("cannot parse empty struct tag")
	}
	st, err := r.StructTagKey(typeArg)
	if err != nil {
		return nil, err
	}
	return append([]byte{tagStruct}, st...), nil
}

// primitiveTags are the type tags of the primitive types, by name.
var primitiveTags = map[string]byte{"bool": tagBool, "u8": tagU8, "u16": tagU16, "u32": tagU32, "u64": tagU64,
	"u128": tagU128, "u256": tagU256, "signer": tagSigner, "address": tagAddress}

func writeTypeArgs(w *movebcs.Writer, tags [][]byte) {
	w.ULEB128(uint64(len(tags)))
	for _, t := range tags {
		w.Raw(t)
	}
}

// readOnly refuses writes: views and decoding must not change state.
type readOnly struct{ storetypes.KVStore }

func (readOnly) Set(key, _ []byte) { panic("write during a read-only call") }
func (readOnly) Delete(key []byte) { panic("delete during a read-only call") }
