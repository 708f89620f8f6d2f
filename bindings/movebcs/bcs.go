// Package movebcs is the pure-Go face of Move values as Initia's chains carry them: 32-byte
// account addresses, Binary Canonical Serialization (BCS) of entry and view function
// arguments, Move aborts as chains report them, and the store keys of resources, modules and
// table entries. It needs no native library, so the deployer and any client can use it; the
// MoveVM itself is reached only by build tooling and the local dev node (localnet/movevm).
package movebcs

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Writer appends BCS: little-endian integers, ULEB128 lengths, 0/1 for booleans and options.
// The zero value is ready to use.
type Writer struct{ buf []byte }

// NewWriter is a Writer with room for n bytes.
func NewWriter(n int) *Writer { return &Writer{buf: make([]byte, 0, n)} }

// Out is what has been written.
func (w *Writer) Out() []byte { return w.buf }

// Bool writes 1 or 0.
func (w *Writer) Bool(b bool) {
	if b {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

// U8 writes one byte.
func (w *Writer) U8(v uint8) { w.buf = append(w.buf, v) }

// U16 writes a little-endian u16.
func (w *Writer) U16(v uint16) { w.buf = binary.LittleEndian.AppendUint16(w.buf, v) }

// U32 writes a little-endian u32.
func (w *Writer) U32(v uint32) { w.buf = binary.LittleEndian.AppendUint32(w.buf, v) }

// U64 writes a little-endian u64.
func (w *Writer) U64(v uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }

// ULEB128 writes a length or an enum tag.
func (w *Writer) ULEB128(v uint64) {
	for v >= 0x80 {
		w.buf = append(w.buf, byte(v)|0x80)
		v >>= 7
	}
	w.buf = append(w.buf, byte(v))
}

// Raw appends fixed-size bytes as they are (an address, a hash).
func (w *Writer) Raw(b []byte) { w.buf = append(w.buf, b...) }

// Bytes writes a vector<u8>: its length, then the bytes.
func (w *Writer) Bytes(b []byte) {
	w.ULEB128(uint64(len(b)))
	w.buf = append(w.buf, b...)
}

// Str writes a String.
func (w *Writer) Str(s string) {
	w.ULEB128(uint64(len(s)))
	w.buf = append(w.buf, s...)
}

// OptionStr writes an Option<String>; nil is none.
func (w *Writer) OptionStr(s *string) {
	if s == nil {
		w.Bool(false)
		return
	}
	w.Bool(true)
	w.Str(*s)
}

// Address writes a 32-byte address.
func (w *Writer) Address(a Address) { w.buf = append(w.buf, a[:]...) }

// Reader decodes BCS. The first error sticks: later reads return zero values, and Done or
// Err reports it.
type Reader struct {
	buf []byte
	err error
}

// NewReader reads b.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

// Err is the first error met, if any.
func (r *Reader) Err() error { return r.err }

// Len is how many bytes are left.
func (r *Reader) Len() int { return len(r.buf) }

// Take reads n fixed bytes.
func (r *Reader) Take(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if uint64(len(r.buf)) < n {
		r.err = fmt.Errorf("BCS: want %d bytes, %d left", n, len(r.buf))
		return nil
	}
	b := r.buf[:n]
	r.buf = r.buf[n:]
	return b
}

// U8 reads one byte.
func (r *Reader) U8() uint8 {
	b := r.Take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

// Bool reads a boolean.
func (r *Reader) Bool() bool { return r.U8() == 1 }

// U64 reads a little-endian u64.
func (r *Reader) U64() uint64 {
	b := r.Take(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// ULEB128 reads a length or an enum tag.
func (r *Reader) ULEB128() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		b := r.Take(1)
		if b == nil {
			return 0
		}
		v |= uint64(b[0]&0x7f) << shift
		if b[0] < 0x80 {
			return v
		}
	}
	r.err = errors.New("BCS: ULEB128 longer than 64 bits")
	return 0
}

// Bytes reads a vector<u8>.
func (r *Reader) Bytes() []byte { return r.Take(r.ULEB128()) }

// Str reads a String.
func (r *Reader) Str() string { return string(r.Bytes()) }

// Address reads a 32-byte address.
func (r *Reader) Address() (a Address) {
	copy(a[:], r.Take(32))
	return a
}

// Done is the first error, or an error when bytes are left over.
func (r *Reader) Done() error {
	if r.err == nil && len(r.buf) > 0 {
		return fmt.Errorf("BCS: %d bytes left over", len(r.buf))
	}
	return r.err
}

// TypeTag reads one BCS TypeTag and returns its bytes: 0 bool, 1 u8, 2 u64, 3 u128,
// 4 address, 5 signer, 6 vector<T>, 7 struct (address, module, name, type arguments),
// 8 u16, 9 u32, 10 u256.
func (r *Reader) TypeTag() []byte {
	start := r.buf
	r.skipTypeTag(0)
	if r.err != nil {
		return nil
	}
	return start[:len(start)-len(r.buf)]
}

func (r *Reader) skipTypeTag(depth int) {
	if depth > 32 {
		r.err = errors.New("BCS: type tag nested too deep")
		return
	}
	switch k := r.U8(); k {
	case 0, 1, 2, 3, 4, 5, 8, 9, 10:
	case 6:
		r.skipTypeTag(depth + 1)
	case 7:
		r.Address()
		r.Str()
		r.Str()
		n := r.ULEB128()
		for i := uint64(0); i < n && r.err == nil; i++ {
			r.skipTypeTag(depth + 1)
		}
	default:
		if r.err == nil {
			r.err = fmt.Errorf("BCS: type tag kind %d", k)
		}
	}
}

// CheckTypeTag makes sure b is exactly one well-formed type tag (the MoveVM aborts the
// process on a malformed one).
func CheckTypeTag(b []byte) error {
	r := NewReader(b)
	r.TypeTag()
	if err := r.Done(); err != nil {
		return fmt.Errorf("type tag: %w", err)
	}
	return nil
}
