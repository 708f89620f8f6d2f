package movebcs

import "fmt"

// BCS encodings of entry and view function arguments (MsgExecute.args, QueryViewRequest.args).

// ArgU64 is a u64 argument.
func ArgU64(v uint64) []byte {
	w := NewWriter(8)
	w.U64(v)
	return w.Out()
}

// ArgU16 is a u16 argument.
func ArgU16(v uint16) []byte {
	w := NewWriter(2)
	w.U16(v)
	return w.Out()
}

// ArgAddresses is a vector<address> argument.
func ArgAddresses(as []Address) []byte {
	w := NewWriter(5 + 32*len(as))
	w.ULEB128(uint64(len(as)))
	for _, a := range as {
		w.Address(a)
	}
	return w.Out()
}

// ArgU64s is a vector<u64> argument.
func ArgU64s(vs []uint64) []byte {
	w := NewWriter(5 + 8*len(vs))
	w.ULEB128(uint64(len(vs)))
	for _, v := range vs {
		w.U64(v)
	}
	return w.Out()
}

// ArgBytesVec is a vector<vector<u8>> argument (a module bundle for publish_v2).
func ArgBytesVec(bs [][]byte) []byte {
	var w Writer
	w.ULEB128(uint64(len(bs)))
	for _, b := range bs {
		w.Bytes(b)
	}
	return w.Out()
}

// ArgOptionAddress is an Option<address> argument; nil is none.
func ArgOptionAddress(a *Address) []byte {
	if a == nil {
		return []byte{0}
	}
	return append([]byte{1}, a[:]...)
}

// ArgString is a String argument (also a String table key).
func ArgString(s string) []byte {
	var w Writer
	w.Str(s)
	return w.Out()
}

// ParseArgAddresses reads a vector<address> argument.
func ParseArgAddresses(b []byte) ([]Address, error) {
	r := NewReader(b)
	n := r.ULEB128()
	if r.Err() == nil && n > uint64(r.Len())/32 {
		return nil, fmt.Errorf("vector<address> of %d addresses in %d bytes", n, r.Len())
	}
	out := make([]Address, 0, n)
	for i := uint64(0); i < n && r.Err() == nil; i++ {
		out = append(out, r.Address())
	}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("vector<address>: %w", err)
	}
	return out, nil
}
