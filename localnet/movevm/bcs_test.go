package movevm

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

func TestULEB128RoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 255, 300, 16383, 16384, 1 << 32, 1<<63 + 5} {
		var w bcsWriter
		w.uleb128(v)
		r := bcsReader{buf: w.buf}
		if got := r.uleb128(); got != v || r.done() != nil {
			t.Errorf("%d: read %d (%v), bytes %x", v, got, r.done(), w.buf)
		}
	}
	if r := (bcsReader{buf: bytes.Repeat([]byte{0xff}, 11)}); r.uleb128() != 0 || r.err == nil {
		t.Error("an over-long ULEB128 is accepted")
	}
}

// The encodings the library decodes, byte for byte.
func TestPayloadEncodings(t *testing.T) {
	a := MustAddress("0xab")
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"env", Env{BlockHeight: 2, BlockTimestamp: 3, NextAccountNumber: 4}.bcs(),
			"0200000000000000" + "0300000000000000" + "0400000000000000" + strings.Repeat("00", 64)},
		{"entry function", Function{Module: ModuleID{Address: a, Name: "m"}, Function: "f", Args: [][]byte{{1}, {}}, IsJSON: true}.bcs(),
			strings.Repeat("00", 31) + "ab" + "016d" + "0166" + "00" + "02" + "0101" + "00" + "01"},
		{"resource key", ResourceKey(a, []byte{9}), strings.Repeat("00", 31) + "ab" + "02" + "09"},
		{"module key", ModuleKey(a, "vip"), strings.Repeat("00", 31) + "ab" + "00" + "03766970"},
		{"table item key", TableItemKey(a, []byte{1, 2}), strings.Repeat("00", 31) + "ab" + "03" + "0102"},
	}
	for _, tt := range tests {
		if hex.EncodeToString(tt.got) != tt.want {
			t.Errorf("%s: %x, want %s", tt.name, tt.got, tt.want)
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
		if err := checkTypeTag(b); (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	info, err := ParseTableInfo(append([]byte{4}, mustHex(str)...))
	if err != nil || !bytes.Equal(info.KeyType, []byte{4}) || hex.EncodeToString(info.ValueType) != str {
		t.Fatalf("table info %x %x %v", info.KeyType, info.ValueType, err)
	}
	deep := bytes.Repeat([]byte{6}, 40)
	if err := checkTypeTag(append(deep, 2)); err == nil {
		t.Error("a type tag nested 40 deep is accepted")
	}
}

func TestDecodeResult(t *testing.T) {
	var w bcsWriter
	w.uleb128(1) // events
	w.string("0x1::m::E")
	w.string(`{"a":"1"}`)
	w.uleb128(0) // staking deltas
	w.uleb128(1) // cosmos messages: sender, data, allow_failure, callback
	w.buf = append(w.buf, make([]byte, 32)...)
	w.bytes([]byte("{}"))
	w.bool(false)
	w.bool(false)
	w.uleb128(1) // new accounts
	five, one := MustAddress("0x5"), MustAddress("0x1")
	w.buf = append(w.buf, five[:]...)
	w.u64(9)
	w.buf = append(w.buf, 1)
	w.uleb128(1) // gas usages
	w.buf = append(w.buf, one[:]...)
	w.string("code")
	w.u64(100)
	res, err := decodeResult(w.buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || res.Events[0].TypeTag != "0x1::m::E" || res.CosmosMessages != 1 ||
		len(res.NewAccounts) != 1 || res.NewAccounts[0].AccountNumber != 9 || res.NewAccounts[0].Address != MustAddress("0x5") {
		t.Fatalf("%+v", res)
	}
	if _, err := decodeResult(w.buf[:len(w.buf)-3]); err == nil {
		t.Error("a truncated result decodes")
	}
	if _, err := decodeResult(append(w.buf, 0)); err == nil {
		t.Error("a result with trailing bytes decodes")
	}
}

func TestIdentifiers(t *testing.T) {
	for s, ok := range map[string]bool{"vip_score": true, "_x": true, "A1": true, "": false, "_": false, "1a": false, "a-b": false, "a::b": false, "é": false} {
		if isIdentifier(s) != ok {
			t.Errorf("%q: %v", s, !ok)
		}
	}
}

func TestAccountAddresses(t *testing.T) {
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
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
