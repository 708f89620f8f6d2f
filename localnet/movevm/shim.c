// The C half of the VM bindings: builds the Db and GoApi vtables that point at the Go
// callbacks (exported in callbacks.go) and calls libmovevm's entry points by pointer. Kept
// out of the Go files because a file with //export may only declare C functions.
#include "shim.h"
#include "_cgo_export.h"

typedef UnmanagedVector (*new_vector_fn)(bool nil, const uint8_t *ptr, size_t len);
typedef void *(*allocate_fn)(ByteSliceView cfg);
typedef void (*release_fn)(void *vm);
typedef UnmanagedVector (*initialize_fn)(void *vm, Db db, GoApi api, ByteSliceView env, ByteSliceView bundle, ByteSliceView allowed, UnmanagedVector *errmsg);
typedef UnmanagedVector (*execute_fn)(void *vm, uint64_t *gas, Db db, GoApi api, ByteSliceView env, ByteSliceView senders, ByteSliceView entry, UnmanagedVector *errmsg);
typedef UnmanagedVector (*view_fn)(void *vm, uint64_t *gas, Db db, GoApi api, ByteSliceView env, ByteSliceView view, UnmanagedVector *errmsg);
typedef UnmanagedVector (*decode_resource_fn)(Db db, UnmanagedVector *errmsg, ByteSliceView tag, ByteSliceView data);

static new_vector_fn new_vector;

void vh_set_new_vector(void *fn) { new_vector = (new_vector_fn)fn; }

UnmanagedVector vh_new_vector(const uint8_t *ptr, size_t len) { return new_vector(false, ptr, len); }

static Db make_db(uintptr_t id) {
	Db db;
	db.state = (db_t *)id;
	db.vtable.read_db = vhDbRead;
	db.vtable.write_db = vhDbWrite;
	db.vtable.remove_db = vhDbRemove;
	db.vtable.scan_db = vhDbScan;
	return db;
}

// The exported Go callbacks take api_t* where the vtable says const api_t*; the casts only
// drop that const.
static GoApi make_api(uintptr_t id) {
	GoApi api;
	api.state = (api_t *)id;
	api.vtable.query = (void *)vhApiQuery;
	api.vtable.get_account_info = (void *)vhApiAccountInfo;
	api.vtable.amount_to_share = (void *)vhApiAmountToShare;
	api.vtable.share_to_amount = (void *)vhApiShareToAmount;
	api.vtable.unbond_timestamp = (void *)vhApiUnbondTimestamp;
	api.vtable.get_price = (void *)vhApiGetPrice;
	return api;
}

void vh_set_iter(GoIter *out, uint64_t call_id, uint64_t index) {
	out->state.call_id = call_id;
	out->state.iterator_index = index;
	out->vtable.next_db = vhIterNext;
}

void *vh_allocate_vm(void *fn, const uint8_t *cfg, size_t cfg_len) {
	ByteSliceView v = { false, cfg, cfg_len };
	return ((allocate_fn)fn)(v);
}

void vh_release_vm(void *fn, void *vm) { ((release_fn)fn)(vm); }

UnmanagedVector vh_initialize(void *fn, void *vm, uintptr_t db, ByteSliceView env, ByteSliceView bundle, ByteSliceView allowed, UnmanagedVector *errmsg) {
	return ((initialize_fn)fn)(vm, make_db(db), make_api(db), env, bundle, allowed, errmsg);
}

UnmanagedVector vh_execute_contract(void *fn, void *vm, uint64_t *gas, uintptr_t db, ByteSliceView env, ByteSliceView senders, ByteSliceView entry, UnmanagedVector *errmsg) {
	return ((execute_fn)fn)(vm, gas, make_db(db), make_api(db), env, senders, entry, errmsg);
}

UnmanagedVector vh_execute_view(void *fn, void *vm, uint64_t *gas, uintptr_t db, ByteSliceView env, ByteSliceView view, UnmanagedVector *errmsg) {
	return ((view_fn)fn)(vm, gas, make_db(db), make_api(db), env, view, errmsg);
}

UnmanagedVector vh_decode(void *fn, uintptr_t db, ByteSliceView tag, ByteSliceView data, UnmanagedVector *errmsg) {
	return ((decode_resource_fn)fn)(make_db(db), errmsg, tag, data);
}
