/// Fixed-point decimals with 18 fractional digits over a BigUint, with MinitiaStdlib's layout
/// (one field, `scaled` = value x 10^18), so a BigDecimal argument's BCS (the scaled value's
/// little-endian bytes as a vector<u8>) means here what it means on Initia. Only the
/// functions the stand-ins use.
module minitia_std::bigdecimal {
    use minitia_std::biguint::{Self, BigUint};

    const DECIMAL_FRACTIONAL: u64 = 1000000000000000000;

    struct BigDecimal has copy, drop, store {
        scaled: BigUint
    }

    public fun from_scaled(scaled: BigUint): BigDecimal {
        BigDecimal { scaled }
    }

    public fun get_scaled(num: BigDecimal): BigUint {
        num.scaled
    }

    public fun from_scaled_le_bytes(le_bytes: vector<u8>): BigDecimal {
        BigDecimal { scaled: biguint::from_le_bytes(le_bytes) }
    }

    public fun get_scaled_le_bytes(num: BigDecimal): vector<u8> {
        biguint::to_le_bytes(num.scaled)
    }

    public fun one(): BigDecimal {
        BigDecimal { scaled: biguint::from_u64(DECIMAL_FRACTIONAL) }
    }

    public fun eq(num1: BigDecimal, num2: BigDecimal): bool {
        biguint::eq(num1.scaled, num2.scaled)
    }

    public fun lt(num1: BigDecimal, num2: BigDecimal): bool {
        biguint::lt(num1.scaled, num2.scaled)
    }

    public fun le(num1: BigDecimal, num2: BigDecimal): bool {
        biguint::le(num1.scaled, num2.scaled)
    }
}
