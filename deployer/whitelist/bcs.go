package whitelist

import (
	"encoding/binary"
	"math/big"
)

// The BCS encodings of vip::register's argument types (the Move VM decodes each MsgExecute
// argument as the BCS of its parameter type).

func bcsULEB128(buf []byte, n uint64) []byte {
	for n >= 0x80 {
		buf = append(buf, byte(n)|0x80)
		n >>= 7
	}
	return append(buf, byte(n))
}

func bcsU64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// bcsAddress is a Move address: 32 bytes, no length prefix.
func bcsAddress(a [32]byte) []byte { return append([]byte(nil), a[:]...) }

// bcsBytes is a vector<u8>: a ULEB128 length, then the bytes. A String is the same.
func bcsBytes(b []byte) []byte { return append(bcsULEB128(nil, uint64(len(b))), b...) }

func bcsString(s string) []byte { return bcsBytes([]byte(s)) }

// bcsBigDecimal is 0x1::bigdecimal::BigDecimal { scaled: BigUint { bytes: vector<u8> } }: the
// value times 10^18 as little-endian bytes, shortest form (zero is one 0 byte, as the VM's
// biguint natives write it, so equality by bytes holds).
func bcsBigDecimal(scaled *big.Int) []byte {
	be := scaled.Bytes()
	if len(be) == 0 {
		be = []byte{0}
	}
	le := make([]byte, len(be))
	for i, b := range be {
		le[len(be)-1-i] = b
	}
	return bcsBytes(le)
}
