package xevm

import (
	"encoding/hex"
	"testing"
)

// A minievm's default params with fee denom umin encode to the 31 bytes its store holds
// (read on a minievm v1.2.18: 1,000 + 3 x 31 gas per read), and read back.
func TestParamsEncodeAsAMinievmsDo(t *testing.T) {
	p := DefaultParams("umin")
	b, err := p.marshal()
	if err != nil {
		t.Fatal(err)
	}
	const want = "1801" + "2a04756d696e" + "3212" + "353030303030303030303030303030303030" + "388002"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("encoded %s, want %s", got, want)
	}
	back, err := unmarshalParams(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.FeeDenom != "umin" || !back.AllowCustomERC20 || back.NumRetainBlockHashes != 256 || !back.GasRefundRatio.Equal(p.GasRefundRatio) {
		t.Fatalf("read back %+v, want %+v", back, p)
	}
	if _, err := unmarshalParams([]byte{0x2a, 0x09, 'u'}); err == nil {
		t.Fatal("a truncated field read back without an error")
	}
}
