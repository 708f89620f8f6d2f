// Declarations for libmovevm's and libcompiler's C ABI, written from the public header
// api/bindings.h of initia-labs/movevm v0.7.0, and for the C side of our callbacks.
#ifndef VIPHARNESS_MOVEVM_SHIM_H
#define VIPHARNESS_MOVEVM_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// A borrowed input slice, and an owned output vector the library allocated (freed with
// destroy_unmanaged_vector; vectors handed to the library are made by new_unmanaged_vector).
typedef struct { bool is_nil; const uint8_t *ptr; size_t len; } ByteSliceView;
typedef struct { bool is_none; uint8_t *ptr; size_t len; size_t cap; } UnmanagedVector;
typedef struct { bool is_none; const uint8_t *ptr; size_t len; } U8SliceView;

typedef struct { uint8_t _private[0]; } db_t;
typedef struct { uint8_t _private[0]; } api_t;
typedef struct { uint64_t call_id; uint64_t iterator_index; } iterator_t;

typedef struct {
	int32_t (*next_db)(iterator_t, UnmanagedVector *key, UnmanagedVector *errmsg);
} Iterator_vtable;

typedef struct {
	iterator_t state;
	Iterator_vtable vtable;
	size_t prefix_len;
} GoIter;

typedef struct {
	int32_t (*read_db)(db_t *, U8SliceView key, UnmanagedVector *out, UnmanagedVector *errmsg);
	int32_t (*write_db)(db_t *, U8SliceView key, U8SliceView value, UnmanagedVector *errmsg);
	int32_t (*remove_db)(db_t *, U8SliceView key, UnmanagedVector *errmsg);
	int32_t (*scan_db)(db_t *, U8SliceView prefix, U8SliceView start, U8SliceView end, int32_t order, GoIter *out, UnmanagedVector *errmsg);
} Db_vtable;

typedef struct { db_t *state; Db_vtable vtable; } Db;

typedef struct {
	int32_t (*query)(const api_t *, U8SliceView request, uint64_t gas_balance, UnmanagedVector *response, uint64_t *used_gas, UnmanagedVector *errmsg);
	int32_t (*get_account_info)(const api_t *, U8SliceView addr, bool *found, uint64_t *account_number, uint64_t *sequence, uint8_t *account_type, bool *is_blocked, UnmanagedVector *errmsg);
	int32_t (*amount_to_share)(const api_t *, U8SliceView validator, U8SliceView metadata, uint64_t amount, UnmanagedVector *share, UnmanagedVector *errmsg);
	int32_t (*share_to_amount)(const api_t *, U8SliceView validator, U8SliceView metadata, U8SliceView share, uint64_t *amount, UnmanagedVector *errmsg);
	int32_t (*unbond_timestamp)(const api_t *, uint64_t *timestamp, UnmanagedVector *errmsg);
	int32_t (*get_price)(const api_t *, U8SliceView pair_id, UnmanagedVector *price, uint64_t *updated_at, uint64_t *decimals, UnmanagedVector *errmsg);
} GoApi_vtable;

typedef struct { const api_t *state; GoApi_vtable vtable; } GoApi;

// Set once when libmovevm is opened: its new_unmanaged_vector, for vectors the callbacks
// hand back (the library frees them with its own allocator).
void vh_set_new_vector(void *fn);
UnmanagedVector vh_new_vector(const uint8_t *ptr, size_t len);

void *vh_allocate_vm(void *fn, const uint8_t *cfg, size_t cfg_len);
void vh_release_vm(void *fn, void *vm);
UnmanagedVector vh_initialize(void *fn, void *vm, uintptr_t db, ByteSliceView env, ByteSliceView bundle, ByteSliceView allowed, UnmanagedVector *errmsg);
UnmanagedVector vh_execute_contract(void *fn, void *vm, uint64_t *gas, uintptr_t db, ByteSliceView env, ByteSliceView senders, ByteSliceView entry, UnmanagedVector *errmsg);
UnmanagedVector vh_execute_view(void *fn, void *vm, uint64_t *gas, uintptr_t db, ByteSliceView env, ByteSliceView view, UnmanagedVector *errmsg);
// decode_move_resource and decode_move_value share this shape.
UnmanagedVector vh_decode(void *fn, uintptr_t db, ByteSliceView tag, ByteSliceView data, UnmanagedVector *errmsg);

// Fills a GoIter the library asked scan_db for.
void vh_set_iter(GoIter *out, uint64_t call_id, uint64_t index);

#endif
