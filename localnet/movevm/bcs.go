package movevm

import (
	"encoding/binary"
	"errors"
	"fmt"
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

// bcsReader decodes BCS; the first error sticks and later reads return zero values.
type bcsReader struct {
	buf []byte
	err error
}

func (r *bcsReader) take(n uint64) []byte {
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

func (r *bcsReader) u8() uint8 {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (r *bcsReader) bool() bool { return r.u8() == 1 }

func (r *bcsReader) u64() uint64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (r *bcsReader) uleb128() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		b := r.take(1)
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

func (r *bcsReader) bytes() []byte { return r.take(r.uleb128()) }

func (r *bcsReader) string() string { return string(r.bytes()) }

func (r *bcsReader) address() (a Address) {
	copy(a[:], r.take(32))
	return a
}

func (r *bcsReader) events() []Event {
	n := r.uleb128()
	var out []Event
	for i := uint64(0); i < n && r.err == nil; i++ {
		out = append(out, Event{TypeTag: r.string(), Data: r.string()})
	}
	return out
}

func (r *bcsReader) done() error {
	if r.err == nil && len(r.buf) > 0 {
		return fmt.Errorf("BCS: %d bytes left over", len(r.buf))
	}
	return r.err
}

// decodeResult reads the library's ExecutionResult: events, staking deltas, Cosmos
// messages, new accounts, gas usages (per module; the total comes from the gas balance).
func decodeResult(b []byte) (Result, error) {
	r := bcsReader{buf: b}
	res := Result{Events: r.events()}
	n := r.uleb128()
	for i := uint64(0); i < n && r.err == nil; i++ { // validator, metadata, delegation, undelegation
		r.bytes()
		r.address()
		r.u64()
		r.string()
	}
	res.StakingDeltas = int(n)
	n = r.uleb128()
	for i := uint64(0); i < n && r.err == nil; i++ { // sender, data, allow_failure, callback
		r.address()
		r.bytes()
		r.bool()
		if r.bool() {
			r.u64()
			r.address()
			r.string()
			r.string()
		}
	}
	res.CosmosMessages = int(n)
	n = r.uleb128()
	for i := uint64(0); i < n && r.err == nil; i++ {
		res.NewAccounts = append(res.NewAccounts, NewAccount{Address: r.address(), AccountNumber: r.u64(), AccountType: r.u8()})
	}
	n = r.uleb128()
	for i := uint64(0); i < n && r.err == nil; i++ { // module id, gas
		r.address()
		r.string()
		r.u64()
	}
	if err := r.done(); err != nil {
		return Result{}, fmt.Errorf("decode execution result: %w", err)
	}
	return res, nil
}

// typeTag reads one BCS TypeTag and returns its bytes: 0 bool, 1 u8, 2 u64, 3 u128,
// 4 address, 5 signer, 6 vector<T>, 7 struct (address, module, name, type arguments),
// 8 u16, 9 u32, 10 u256.
func (r *bcsReader) typeTag() []byte {
	start := r.buf
	r.skipTypeTag(0)
	if r.err != nil {
		return nil
	}
	return start[:len(start)-len(r.buf)]
}

func (r *bcsReader) skipTypeTag(depth int) {
	if depth > 32 {
		r.err = errors.New("BCS: type tag nested too deep")
		return
	}
	switch k := r.u8(); k {
	case 0, 1, 2, 3, 4, 5, 8, 9, 10:
	case 6:
		r.skipTypeTag(depth + 1)
	case 7:
		r.address()
		r.string()
		r.string()
		n := r.uleb128()
		for i := uint64(0); i < n && r.err == nil; i++ {
			r.skipTypeTag(depth + 1)
		}
	default:
		if r.err == nil {
			r.err = fmt.Errorf("BCS: type tag kind %d", k)
		}
	}
}
