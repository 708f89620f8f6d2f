package movevm

/*
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	storetypes "cosmossdk.io/store/types"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// Return codes of the callbacks as libmovevm reads them (v0.7.0 and v1.1.2 alike). Its Rust side maps the
// integers one off from its own enum's declaration (4 reads as CannotSerialize, 5 as User),
// so these are the values it decodes as intended.
const (
	cbOK            = 0
	cbPanic         = 1
	cbBadArgument   = 2
	cbUser          = 5
	cbUnimplemented = 6
)

// A call's store is handed to the library as a numeric handle (the Db's state pointer),
// never as a Go pointer; the callbacks look it up here.
type dbCall struct {
	store    storetypes.KVStore
	accounts AccountLookup
	iters    []storetypes.Iterator
}

var (
	callsMu  sync.Mutex
	calls    = map[uint64]*dbCall{}
	nextCall uint64
)

func registerCall(s storetypes.KVStore, accounts AccountLookup) (uint64, func()) {
	callsMu.Lock()
	nextCall++
	id := nextCall
	c := &dbCall{store: s, accounts: accounts}
	calls[id] = c
	callsMu.Unlock()
	return id, func() {
		callsMu.Lock()
		delete(calls, id)
		callsMu.Unlock()
		for _, it := range c.iters {
			it.Close()
		}
	}
}

func lookupCall(id uint64) *dbCall {
	callsMu.Lock()
	defer callsMu.Unlock()
	return calls[id]
}

func callOf(db *C.db_t) *dbCall { return lookupCall(uint64(uintptr(unsafe.Pointer(db)))) }

func view(v C.U8SliceView) []byte {
	if bool(v.is_none) {
		return nil
	}
	if v.len == 0 {
		return []byte{}
	}
	return C.GoBytes(unsafe.Pointer(v.ptr), C.int(v.len))
}

// newVector copies b into a vector allocated by the library.
func newVector(b []byte) C.UnmanagedVector {
	if len(b) == 0 {
		return C.vh_new_vector(nil, 0)
	}
	return C.vh_new_vector((*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b))), C.size_t(len(b)))
}

// guard turns a panic in a callback into an error code: unwinding must not cross the library.
func guard(errOut *C.UnmanagedVector, code *C.int32_t) {
	if r := recover(); r != nil {
		if errOut != nil {
			*errOut = newVector([]byte(fmt.Sprint("host panic: ", r)))
		}
		*code = cbPanic
	}
}

func fail(errOut *C.UnmanagedVector, code C.int32_t, err error) C.int32_t {
	if errOut != nil {
		*errOut = newVector([]byte(err.Error()))
	}
	return code
}

var errNoCall = errors.New("no store for this call")

//export vhDbRead
func vhDbRead(db *C.db_t, key C.U8SliceView, out *C.UnmanagedVector, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	c := callOf(db)
	if c == nil || out == nil {
		return fail(errOut, cbBadArgument, errNoCall)
	}
	if v := c.store.Get(view(key)); v != nil {
		*out = newVector(v)
	}
	return cbOK
}

//export vhDbWrite
func vhDbWrite(db *C.db_t, key, value C.U8SliceView, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	c := callOf(db)
	if c == nil {
		return fail(errOut, cbBadArgument, errNoCall)
	}
	c.store.Set(view(key), view(value))
	return cbOK
}

//export vhDbRemove
func vhDbRemove(db *C.db_t, key C.U8SliceView, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	c := callOf(db)
	if c == nil {
		return fail(errOut, cbBadArgument, errNoCall)
	}
	c.store.Delete(view(key))
	return cbOK
}

// vhDbScan opens an iterator over prefix+[start, end) (end empty: to the prefix's end);
// order 1 is ascending, 2 descending. Keys go back whole; the library strips the prefix.
//
//export vhDbScan
func vhDbScan(db *C.db_t, prefix, start, end C.U8SliceView, order C.int32_t, out *C.GoIter, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	c := callOf(db)
	if c == nil || out == nil {
		return fail(errOut, cbBadArgument, errNoCall)
	}
	p := view(prefix)
	if len(p) == 0 {
		return fail(errOut, cbUser, errors.New("iterator prefix is empty"))
	}
	lo := append(append([]byte{}, p...), view(start)...)
	var hi []byte
	if e := view(end); len(e) > 0 {
		hi = append(append([]byte{}, p...), e...)
	} else {
		hi = storetypes.PrefixEndBytes(p)
	}
	var it storetypes.Iterator
	switch order {
	case 1:
		it = c.store.Iterator(lo, hi)
	case 2:
		it = c.store.ReverseIterator(lo, hi)
	default:
		return fail(errOut, cbBadArgument, fmt.Errorf("iterator order %d", order))
	}
	c.iters = append(c.iters, it)
	C.vh_set_iter(out, C.uint64_t(uintptr(unsafe.Pointer(db))), C.uint64_t(len(c.iters)))
	return cbOK
}

//export vhIterNext
func vhIterNext(ref C.iterator_t, key *C.UnmanagedVector, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	c := lookupCall(uint64(ref.call_id))
	i := int(ref.iterator_index) - 1
	if c == nil || key == nil || i < 0 || i >= len(c.iters) {
		return fail(errOut, cbBadArgument, errors.New("unknown iterator"))
	}
	it := c.iters[i]
	if !it.Valid() {
		return cbOK // key stays none: the end
	}
	*key = newVector(it.Key())
	it.Next()
	return cbOK
}

// The dev node's chain has no staking, oracle or Cosmos query bridge; a module that reaches
// for them gets an error that says so. Accounts are the chain's (Env.Accounts); without a
// lookup every address is reported as having none.
var errNoBridge = errors.New("the dev node does not bridge this call to Cosmos")

//export vhApiQuery
func vhApiQuery(api *C.api_t, req C.U8SliceView, gas C.uint64_t, resp *C.UnmanagedVector, used *C.uint64_t, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	return fail(errOut, cbUser, fmt.Errorf("cosmos query: %w", errNoBridge))
}

//export vhApiAccountInfo
func vhApiAccountInfo(api *C.api_t, addr C.U8SliceView, found *C.bool, num, seq *C.uint64_t, typ *C.uint8_t, blocked *C.bool, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	*found = false
	*num, *seq, *typ = 0, 0, 0
	*blocked = false
	c := lookupCall(uint64(uintptr(unsafe.Pointer(api))))
	if c == nil || c.accounts == nil {
		return cbOK
	}
	b := view(addr)
	if len(b) != 32 {
		return fail(errOut, cbBadArgument, fmt.Errorf("account address of %d bytes", len(b)))
	}
	acc, ok := c.accounts(movebcs.Address(b))
	if !ok {
		return cbOK
	}
	*found = true
	*num, *seq, *typ = C.uint64_t(acc.Number), C.uint64_t(acc.Sequence), C.uint8_t(acc.Type)
	*blocked = C.bool(acc.Blocked)
	return cbOK
}

//export vhApiAmountToShare
func vhApiAmountToShare(api *C.api_t, val, meta C.U8SliceView, amount C.uint64_t, share *C.UnmanagedVector, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	return fail(errOut, cbUnimplemented, fmt.Errorf("staking: %w", errNoBridge))
}

//export vhApiShareToAmount
func vhApiShareToAmount(api *C.api_t, val, meta, share C.U8SliceView, amount *C.uint64_t, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	return fail(errOut, cbUnimplemented, fmt.Errorf("staking: %w", errNoBridge))
}

//export vhApiUnbondTimestamp
func vhApiUnbondTimestamp(api *C.api_t, ts *C.uint64_t, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	return fail(errOut, cbUnimplemented, fmt.Errorf("staking: %w", errNoBridge))
}

//export vhApiGetPrice
func vhApiGetPrice(api *C.api_t, pair C.U8SliceView, price *C.UnmanagedVector, at, decimals *C.uint64_t, errOut *C.UnmanagedVector) (code C.int32_t) {
	defer guard(errOut, &code)
	return fail(errOut, cbUnimplemented, fmt.Errorf("oracle: %w", errNoBridge))
}
