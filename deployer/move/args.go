package move

import (
	"encoding/binary"

	"github.com/vipharness/vipharness/localnet/movevm"
)

// BCS encodings of vip_score's entry and view arguments.

func argU64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func argU16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }

func uleb(b []byte, n int) []byte {
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}

func argAddresses(as []movevm.Address) []byte {
	b := uleb(make([]byte, 0, 5+32*len(as)), len(as))
	for _, a := range as {
		b = append(b, a[:]...)
	}
	return b
}

func argU64s(vs []uint64) []byte {
	b := uleb(make([]byte, 0, 5+8*len(vs)), len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

func argOptionAddress(a *movevm.Address) []byte {
	if a == nil {
		return []byte{0}
	}
	return append([]byte{1}, a[:]...)
}
