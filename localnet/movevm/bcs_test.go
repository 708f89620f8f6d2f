package movevm

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// The encodings the library decodes, byte for byte.
func TestPayloadEncodings(t *testing.T) {
	a := movebcs.MustAddress("0xab")
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"env", Env{ChainID: "c", BlockHeight: 2, BlockTimestamp: 3, NextAccountNumber: 4}.bcs(),
			"0163" + "0200000000000000" + "0300000000000000" + "0400000000000000" + strings.Repeat("00", 64)},
		{"entry function", Function{Module: ModuleID{Address: a, Name: "m"}, Function: "f", Args: [][]byte{{1}, {}}, IsJSON: true}.bcs(),
			strings.Repeat("00", 31) + "ab" + "016d" + "0166" + "00" + "02" + "0101" + "00" + "01"},
	}
	for _, tt := range tests {
		if hex.EncodeToString(tt.got) != tt.want {
			t.Errorf("%s: %x, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestDecodeResult(t *testing.T) {
	var w movebcs.Writer
	w.ULEB128(1) // events
	w.Str("0x1::m::E")
	w.Str(`{"a":"1"}`)
	w.ULEB128(0) // staking deltas
	w.ULEB128(1) // cosmos messages: sender, data, allow_failure, callback
	w.Raw(make([]byte, 32))
	w.Bytes([]byte("{}"))
	w.Bool(false)
	w.Bool(false)
	w.ULEB128(1) // new accounts
	five, one := movebcs.MustAddress("0x5"), movebcs.MustAddress("0x1")
	w.Address(five)
	w.U64(9)
	w.U8(1)
	w.ULEB128(1) // gas usages
	w.Address(one)
	w.Str("code")
	w.U64(100)
	res, err := decodeResult(w.Out())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || res.Events[0].TypeTag != "0x1::m::E" || res.CosmosMessages != 1 ||
		len(res.NewAccounts) != 1 || res.NewAccounts[0].AccountNumber != 9 || res.NewAccounts[0].Address != five {
		t.Fatalf("%+v", res)
	}
	if _, err := decodeResult(w.Out()[:len(w.Out())-3]); err == nil {
		t.Error("a truncated result decodes")
	}
	if _, err := decodeResult(append(w.Out(), 0)); err == nil {
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
