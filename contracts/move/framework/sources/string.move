/// UTF-8 strings: a byte vector checked once on the way in by the VM's native.
module std::string {
    use std::option::{Self, Option};
    use std::vector;

    /// The bytes are not valid UTF-8.
    const EINVALID_UTF8: u64 = 1;

    struct String has copy, drop, store {
        bytes: vector<u8>
    }

    public fun utf8(bytes: vector<u8>): String {
        assert!(internal_check_utf8(&bytes), EINVALID_UTF8);
        String { bytes }
    }

    public fun try_utf8(bytes: vector<u8>): Option<String> {
        if (internal_check_utf8(&bytes)) option::some(String { bytes })
        else option::none()
    }

    public fun bytes(s: &String): &vector<u8> { &s.bytes }

    public fun is_empty(s: &String): bool { vector::is_empty(&s.bytes) }

    public fun length(s: &String): u64 { vector::length(&s.bytes) }

    public native fun internal_check_utf8(v: &vector<u8>): bool;
}
