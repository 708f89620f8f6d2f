package movevm

import (
	"encoding/binary"
)

// bcsWriter appends Binary Canonical Serialization, the encoding of every payload the Move
// libraries take: little-endian integers, ULEB128 lengths, 0/1 for options and booleans.
type bcsWriter struct{ buf []byte }

func (w *bcsWriter) bool(b bool) {
	if b {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

func (w *bcsWriter) u32(v uint32) { w.buf = binary.LittleEndian.AppendUint32(w.buf, v) }

func (w *bcsWriter) u64(v uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }

func (w *bcsWriter) uleb128(v uint64) {
	for v >= 0x80 {
		w.buf = append(w.buf, byte(v)|0x80)
		v >>= 7
	}
	w.buf = append(w.buf, byte(v))
}

func (w *bcsWriter) bytes(b []byte) {
	w.uleb128(uint64(len(b)))
	w.buf = append(w.buf, b...)
}

func (w *bcsWriter) string(s string) { w.bytes([]byte(s)) }

func (w *bcsWriter) optionString(s *string) {
	if s == nil {
		w.bool(false)
		return
	}
	w.bool(true)
	w.string(*s)
}
