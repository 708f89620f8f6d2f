/// Unsigned big integers as the VM's natives see them: little-endian bytes. Only the part of
/// MinitiaStdlib's biguint that BigDecimal arguments need (construction, bytes, comparison);
/// the arithmetic lives in the VM's natives, as in the real module.
module minitia_std::biguint {
    struct BigUint has copy, drop, store {
        bytes: vector<u8>
    }

    public fun from_le_bytes(le_bytes: vector<u8>): BigUint {
        BigUint { bytes: le_bytes }
    }

    public fun to_le_bytes(num: BigUint): vector<u8> {
        num.bytes
    }

    public fun from_u64(num: u64): BigUint {
        BigUint { bytes: new_internal(num) }
    }

    public fun eq(num1: BigUint, num2: BigUint): bool {
        num1.bytes == num2.bytes
    }

    public fun lt(num1: BigUint, num2: BigUint): bool {
        lt_internal(num1.bytes, num2.bytes)
    }

    public fun le(num1: BigUint, num2: BigUint): bool {
        le_internal(num1.bytes, num2.bytes)
    }

    // The VM's biguint natives (names and type parameters as its native table has them).
    native fun new_internal<T>(num: T): vector<u8>;
    native fun lt_internal(num1_bytes: vector<u8>, num2_bytes: vector<u8>): bool;
    native fun le_internal(num1_bytes: vector<u8>, num2_bytes: vector<u8>): bool;
}
