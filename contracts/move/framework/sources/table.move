/// Tables: key-value storage whose entries live under the table's own handle, through the
/// VM's table natives. The public functions have MinitiaStdlib's signatures; the part of the
/// real module that registers a table account is left out (the dev node has no accounts
/// module), which the public interface does not show.
module minitia_std::table {
    use std::bcs;
    use std::error;
    use std::option::{Self, Option};
    use std::vector;

    const EALREADY_EXISTS: u64 = 100;
    const ENOT_FOUND: u64 = 101;
    const ENOT_EMPTY: u64 = 102;

    struct Table<phantom K: copy + drop, phantom V> has store {
        handle: address,
        length: u64
    }

    struct TableIter<phantom K: copy + drop, phantom V> has drop {
        iterator_id: u64
    }

    /// Values are stored boxed, which gives the natives their serialization layout.
    struct Box<V> has key, drop, store {
        val: V
    }

    public fun new<K: copy + drop, V: store>(): Table<K, V> {
        Table { handle: new_table_handle<K, V>(), length: 0 }
    }

    public fun destroy_empty<K: copy + drop, V>(table: Table<K, V>) {
        assert!(table.length == 0, error::invalid_state(ENOT_EMPTY));
        destroy_empty_box<K, V, Box<V>>(&table);
        drop_unchecked_box<K, V, Box<V>>(table)
    }

    public fun handle<K: copy + drop, V>(table: &Table<K, V>): address {
        table.handle
    }

    public fun add<K: copy + drop, V>(table: &mut Table<K, V>, key: K, val: V) {
        add_box<K, V, Box<V>>(table, key, Box { val });
        table.length = table.length + 1
    }

    public fun borrow<K: copy + drop, V>(table: &Table<K, V>, key: K): &V {
        &borrow_box<K, V, Box<V>>(table, key).val
    }

    public fun borrow_with_default<K: copy + drop, V>(table: &Table<K, V>, key: K, default: &V): &V {
        if (contains(table, copy key)) borrow(table, key) else default
    }

    public fun borrow_mut<K: copy + drop, V>(table: &mut Table<K, V>, key: K): &mut V {
        &mut borrow_box_mut<K, V, Box<V>>(table, key).val
    }

    public fun length<K: copy + drop, V>(table: &Table<K, V>): u64 {
        table.length
    }

    public fun empty<K: copy + drop, V>(table: &Table<K, V>): bool {
        table.length == 0
    }

    public fun borrow_mut_with_default<K: copy + drop, V: drop>(table: &mut Table<K, V>, key: K, default: V): &mut V {
        if (!contains(table, copy key)) add(table, copy key, default);
        borrow_mut(table, key)
    }

    public fun upsert<K: copy + drop, V: drop>(table: &mut Table<K, V>, key: K, value: V) {
        if (contains(table, copy key)) {
            *borrow_mut(table, key) = value
        } else {
            add(table, key, value)
        }
    }

    public fun remove<K: copy + drop, V>(table: &mut Table<K, V>, key: K): V {
        let Box { val } = remove_box<K, V, Box<V>>(table, key);
        table.length = table.length - 1;
        val
    }

    public fun contains<K: copy + drop, V>(table: &Table<K, V>, key: K): bool {
        contains_box<K, V, Box<V>>(table, key)
    }

    /// Iterates keys in [start, end) in BCS byte order; order 1 ascends, 2 descends.
    public fun iter<K: copy + drop, V>(table: &Table<K, V>, start: Option<K>, end: Option<K>, order: u8): &TableIter<K, V> {
        new_table_iter<K, V, Box<V>>(table, key_bytes(start), key_bytes(end), order)
    }

    public fun prepare<K: copy + drop, V>(table_iter: &TableIter<K, V>): bool {
        prepare_box<K, V, Box<V>>(table_iter)
    }

    public fun next<K: copy + drop, V>(table_iter: &TableIter<K, V>): (K, &V) {
        let (key, box) = next_box<K, V, Box<V>>(table_iter);
        (key, &box.val)
    }

    public fun iter_mut<K: copy + drop, V>(table: &mut Table<K, V>, start: Option<K>, end: Option<K>, order: u8): &mut TableIter<K, V> {
        new_table_iter_mut<K, V, Box<V>>(table, key_bytes(start), key_bytes(end), order)
    }

    public fun prepare_mut<K: copy + drop, V>(table_iter: &mut TableIter<K, V>): bool {
        prepare_box_mut<K, V, Box<V>>(table_iter)
    }

    public fun next_mut<K: copy + drop, V>(table_iter: &mut TableIter<K, V>): (K, &mut V) {
        let (key, box) = next_box_mut<K, V, Box<V>>(table_iter);
        (key, &mut box.val)
    }

    /// An absent bound is an empty byte string, which the natives read as unbounded.
    fun key_bytes<K: copy + drop>(bound: Option<K>): vector<u8> {
        if (option::is_some(&bound)) bcs::to_bytes(&option::extract(&mut bound)) else vector::empty()
    }

    // The VM's table natives (names and type parameters as its native table has them).
    native fun new_table_handle<K, V>(): address;
    native fun add_box<K: copy + drop, V, B>(table: &mut Table<K, V>, key: K, val: Box<V>);
    native fun borrow_box<K: copy + drop, V, B>(table: &Table<K, V>, key: K): &Box<V>;
    native fun borrow_box_mut<K: copy + drop, V, B>(table: &mut Table<K, V>, key: K): &mut Box<V>;
    native fun contains_box<K: copy + drop, V, B>(table: &Table<K, V>, key: K): bool;
    native fun remove_box<K: copy + drop, V, B>(table: &mut Table<K, V>, key: K): Box<V>;
    native fun destroy_empty_box<K: copy + drop, V, B>(table: &Table<K, V>);
    native fun drop_unchecked_box<K: copy + drop, V, B>(table: Table<K, V>);
    native fun new_table_iter<K: copy + drop, V, B>(table: &Table<K, V>, start: vector<u8>, end: vector<u8>, order: u8): &TableIter<K, V>;
    native fun new_table_iter_mut<K: copy + drop, V, B>(table: &mut Table<K, V>, start: vector<u8>, end: vector<u8>, order: u8): &mut TableIter<K, V>;
    native fun next_box<K: copy + drop, V, B>(table_iter: &TableIter<K, V>): (K, &Box<V>);
    native fun prepare_box<K: copy + drop, V, B>(table_iter: &TableIter<K, V>): bool;
    native fun next_box_mut<K: copy + drop, V, B>(table_iter: &mut TableIter<K, V>): (K, &mut Box<V>);
    native fun prepare_box_mut<K: copy + drop, V, B>(table_iter: &mut TableIter<K, V>): bool;
}
