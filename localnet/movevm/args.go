package movevm

import "fmt"

// BCS encodings of entry and view function arguments (MsgExecute.args, QueryViewRequest.args).

// ArgU64 is a u64 argument.
func ArgU64(v uint64) []byte {
	var w bcsWriter
	w.u64(v)
	return w.buf
}

// ArgU16 is a u16 argument.
func ArgU16(v uint16) []byte { return []byte{byte(v), byte(v >> 8)} }

// ArgAddresses is a vector<address> argument.
func ArgAddresses(as []Address) []byte {
	w := bcsWriter{buf: make([]byte, 0, 5+32*len(as))}
	w.uleb128(uint64(len(as)))
	for _, a := range as {
		w.buf = append(w.buf, a[:]...)
	}
	return w.buf
}

// ArgU64s is a vector<u64> argument.
func ArgU64s(vs []uint64) []byte {
	w := bcsWriter{buf: make([]byte, 0, 5+8*len(vs))}
	w.uleb128(uint64(len(vs)))
	for _, v := range vs {
		w.u64(v)
	}
	return w.buf
}

// ArgBytesVec is a vector<vector<u8>> argument (a module bundle for publish_v2).
func ArgBytesVec(bs [][]byte) []byte {
	var w bcsWriter
	w.uleb128(uint64(len(bs)))
	for _, b := range bs {
		w.bytes(b)
	}
	return w.buf
}

// ArgOptionAddress is an Option<address> argument; nil is none.
func ArgOptionAddress(a *Address) []byte {
	if a == nil {
		return []byte{0}
	}
	return append([]byte{1}, a[:]...)
}

// ParseArgAddresses reads a vector<address> argument.
func ParseArgAddresses(b []byte) ([]Address, error) {
	r := bcsReader{buf: b}
	n := r.uleb128()
	if r.err == nil && n > uint64(len(r.buf))/32 {
		return nil, fmt.Errorf("vector<address> of %d addresses in %d bytes", n, len(r.buf))
	}
	out := make([]Address, 0, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		out = append(out, r.address())
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("vector<address>: %w", err)
	}
	return out, nil
}

// ArgString is a String argument (also a String table key).
func ArgString(s string) []byte {
	var w bcsWriter
	w.string(s)
	return w.buf
}
