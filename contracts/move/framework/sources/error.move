/// Canonical abort codes: a category in the upper bits (shifted by 16) and a reason below,
/// the scheme every Initia module and client decodes.
module std::error {
    const INVALID_ARGUMENT: u64 = 0x1;
    const OUT_OF_RANGE: u64 = 0x2;
    const INVALID_STATE: u64 = 0x3;
    const UNAUTHENTICATED: u64 = 0x4;
    const PERMISSION_DENIED: u64 = 0x5;
    const NOT_FOUND: u64 = 0x6;
    const ABORTED: u64 = 0x7;
    const ALREADY_EXISTS: u64 = 0x8;
    const RESOURCE_EXHAUSTED: u64 = 0x9;
    const CANCELLED: u64 = 0xA;
    const INTERNAL: u64 = 0xB;
    const NOT_IMPLEMENTED: u64 = 0xC;
    const UNAVAILABLE: u64 = 0xD;

    public fun canonical(category: u64, reason: u64): u64 {
        (category << 16) + reason
    }

    public fun invalid_argument(r: u64): u64 { canonical(INVALID_ARGUMENT, r) }

    public fun out_of_range(r: u64): u64 { canonical(OUT_OF_RANGE, r) }

    public fun invalid_state(r: u64): u64 { canonical(INVALID_STATE, r) }

    public fun unauthenticated(r: u64): u64 { canonical(UNAUTHENTICATED, r) }

    public fun permission_denied(r: u64): u64 { canonical(PERMISSION_DENIED, r) }

    public fun not_found(r: u64): u64 { canonical(NOT_FOUND, r) }

    public fun aborted(r: u64): u64 { canonical(ABORTED, r) }

    public fun already_exists(r: u64): u64 { canonical(ALREADY_EXISTS, r) }

    public fun resource_exhausted(r: u64): u64 { canonical(RESOURCE_EXHAUSTED, r) }

    public fun internal(r: u64): u64 { canonical(INTERNAL, r) }

    public fun not_implemented(r: u64): u64 { canonical(NOT_IMPLEMENTED, r) }

    public fun unavailable(r: u64): u64 { canonical(UNAVAILABLE, r) }
}
