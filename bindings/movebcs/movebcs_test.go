package movebcs

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

func TestULEB128RoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 255, 300, 16383, 16384, 1 << 32, 1<<63 + 5} {
		var w Writer
		w.ULEB128(v)
		r := NewReader(w.Out())
		if got := r.ULEB128(); got != v || r.Done() != nil {
			t.Errorf("%d: read %d (%v), bytes %x", v, got, r.Done(), w.Out())
		}
	}
	if r := NewReader(bytes.Repeat([]byte{0xff}, 11)); r.ULEB128() != 0 || r.Err() == nil {
		t.Error("an over-long ULEB128 is accepted")
	}
}

// The encodings the chain decodes, byte for byte.
func TestEncodings(t *testing.T) {
	a := MustAddress("0xab")
	pad := strings.Repeat("00", 31) + "ab"
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"u64", ArgU64(300), "2c01000000000000"},
		{"u16", ArgU16(1000), "e803"},
		{"vector<address>", ArgAddresses([]Address{a, a}), "02" + pad + pad},
		{"vector<u64>", ArgU64s([]uint64{1, 2}), "02" + "0100000000000000" + "0200000000000000"},
		{"vector<vector<u8>>", ArgBytesVec([][]byte{{1, 2}, {}}), "02" + "020102" + "00"},
		{"none", ArgOptionAddress(nil), "00"},
		{"some", ArgOptionAddress(&a), "01" + pad},
		{"string", ArgString("vip"), "03766970"},
		{"resource key", ResourceKey(a, []byte{9}), pad + "02" + "09"},
		{"module key", ModuleKey(a, "vip"), pad + "00" + "03766970"},
		{"table item key", TableItemKey(a, []byte{1, 2}), pad + "03" + "0102"},
		{"table info key", TableInfoKey(a), pad + "04"},
	}
	for _, tt := range tests {
		if hex.EncodeToString(tt.got) != tt.want {
			t.Errorf("%s: %x, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestParseArgAddresses(t *testing.T) {
	in := []Address{MustAddress("0x1"), MustAddress("0x2")}
	out, err := ParseArgAddresses(ArgAddresses(in))
	if err != nil || len(out) != 2 || out[0] != in[0] || out[1] != in[1] {
		t.Fatalf("%v %v", out, err)
	}
	for name, b := range map[string][]byte{
		"count beyond the bytes": {5, 1, 2},
		"trailing bytes":         append(ArgAddresses(in), 0),
		"truncated":              ArgAddresses(in)[:40],
	} {
		if _, err := ParseArgAddresses(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestTypeTags(t *testing.T) {
	addr := strings.Repeat("00", 31) + "01"
	str := "07" + addr + "06737472696e67" + "06537472696e67" + "00" // 0x1::string::String
	tests := []struct {
		name, hex string
		ok        bool
	}{
		{"u64", "02", true},
		{"address", "04", true},
		{"vector<u8>", "0601", true},
		{"struct", str, true},
		{"vector<struct<u64>>", "06" + "07" + addr + "0161" + "0142" + "01" + "02", true},
		{"unknown kind", "0b", false},
		{"truncated struct", "07" + addr[:10], false},
		{"trailing bytes", "0200", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		b, _ := hex.DecodeString(tt.hex)
		if err := CheckTypeTag(b); (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	strTag, _ := hex.DecodeString(str)
	info, err := ParseTableInfo(append([]byte{4}, strTag...))
	if err != nil || !bytes.Equal(info.KeyType, []byte{4}) || hex.EncodeToString(info.ValueType) != str {
		t.Fatalf("table info %x %x %v", info.KeyType, info.ValueType, err)
	}
	deep := bytes.Repeat([]byte{6}, 40)
	if err := CheckTypeTag(append(deep, 2)); err == nil {
		t.Error("a type tag nested 40 deep is accepted")
	}
}

func TestAddresses(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 20)
	a := AccountAddress(key)
	if !bytes.Equal(a.AccountBytes(), key) || !bytes.Equal(a[:12], make([]byte, 12)) {
		t.Fatalf("%x", a)
	}
	obj := MustAddress("0x3a886b32a802582f2e446e74d4a24d1d7ed01adf46d2a8f65c5723887e708789")
	if len(obj.AccountBytes()) != 32 {
		t.Fatal("a 32-byte address lost bytes")
	}
	if got := MustAddress("0x00ab").Short(); got != "0xab" {
		t.Fatal(got)
	}
	if got := MustAddress("0x1").String(); got != "0x"+strings.Repeat("0", 63)+"1" {
		t.Fatal(got)
	}
	for _, bad := range []string{"", "0x", "0xzz", "0x" + strings.Repeat("1", 65)} {
		if _, err := ParseAddress(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestParseAbort(t *testing.T) {
	for _, tc := range []struct {
		msg    string
		ok     bool
		module string
		code   uint64
	}{
		{"VM aborted: location=0000f39f::vip_score, code=65537", true, "0000f39f::vip_score", 65537},
		{"failed to execute message; message index: 0: VM aborted: location=0x1::code, code=393224: execute wasm", true, "0x1::code", 393224},
		{"out of gas", false, "", 0},
		{"VM aborted: location=x, code=", false, "", 0},
	} {
		a, ok := ParseAbort(tc.msg)
		if ok != tc.ok || a.Module != tc.module || a.Code != tc.code {
			t.Errorf("%q: %+v %v", tc.msg, a, ok)
		}
	}
	a, _ := ParseAbort("VM aborted: location=0x1::vip_score, code=65544")
	if a.Category() != 1 || a.Reason() != 8 {
		t.Fatalf("category %d reason %d", a.Category(), a.Reason())
	}
}
