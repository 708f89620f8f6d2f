/// Table keys that sort as their numbers do, as InitiaStdlib has them: a u64 key is its 8
/// bytes big-endian (BCS is little-endian, so the bytes are reversed).
module initia_std::table_key {
    use std::bcs;
    use std::error;
    use std::vector;

    const EINVALID_KEY_LENGTH: u64 = 1;

    public fun encode_u64(key: u64): vector<u8> {
        let le = bcs::to_bytes(&key);
        let out = vector::empty<u8>();
        let i = 8;
        while (i > 0) {
            i = i - 1;
            vector::push_back(&mut out, *vector::borrow(&le, i));
        };
        out
    }

    public fun decode_u64(key_bytes: vector<u8>): u64 {
        assert!(vector::length(&key_bytes) == 8, error::invalid_argument(EINVALID_KEY_LENGTH));
        let n = 0u64;
        let i = 0;
        while (i < 8) {
            n = (n << 8) | (*vector::borrow(&key_bytes, i) as u64);
            i = i + 1;
        };
        n
    }
}
