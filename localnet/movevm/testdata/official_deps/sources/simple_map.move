/// An unsorted map in a vector, with the layout and the signatures of MinitiaStdlib's
/// simple_map for the functions the official vip_score calls (its deployer set).
module minitia_std::simple_map {
    use std::error;
    use std::vector;

    const EKEY_ALREADY_EXISTS: u64 = 1;
    const EKEY_NOT_FOUND: u64 = 2;

    struct SimpleMap<Key, Value> has copy, drop, store {
        data: vector<Element<Key, Value>>
    }

    struct Element<Key, Value> has copy, drop, store {
        key: Key,
        value: Value
    }

    public fun create<Key: store, Value: store>(): SimpleMap<Key, Value> {
        SimpleMap { data: vector::empty() }
    }

    public fun contains_key<Key: store, Value: store>(self: &SimpleMap<Key, Value>, key: &Key): bool {
        index_of(self, key) < vector::length(&self.data)
    }

    public fun add<Key: store, Value: store>(self: &mut SimpleMap<Key, Value>, key: Key, value: Value) {
        assert!(index_of(self, &key) == vector::length(&self.data), error::invalid_argument(EKEY_ALREADY_EXISTS));
        vector::push_back(&mut self.data, Element { key, value });
    }

    public fun remove<Key: store, Value: store>(self: &mut SimpleMap<Key, Value>, key: &Key): (Key, Value) {
        let i = index_of(self, key);
        let n = vector::length(&self.data);
        assert!(i < n, error::invalid_argument(EKEY_NOT_FOUND));
        vector::swap(&mut self.data, i, n - 1);
        let Element { key, value } = vector::pop_back(&mut self.data);
        (key, value)
    }

    /// The key's position, or the length when absent.
    fun index_of<Key: store, Value: store>(self: &SimpleMap<Key, Value>, key: &Key): u64 {
        let i = 0;
        let n = vector::length(&self.data);
        while (i < n) {
            if (&vector::borrow(&self.data, i).key == key) return i;
            i = i + 1;
        };
        n
    }
}
