package ledger

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func TestHIDFraming(t *testing.T) {
	for _, n := range []int{0, 5, 57, 58, 59, 120, 260} {
		apdu := bytes.Repeat([]byte{0x42}, n)
		packets := frameHID(apdu)
		for i, p := range packets {
			if len(p) != 64 || p[0] != 1 || p[1] != 1 || p[2] != 5 || int(binary.BigEndian.Uint16(p[3:])) != i {
				t.Fatalf("n=%d packet %d header % x", n, i, p[:5])
			}
		}
		// A device reply is framed the same way: the APDU stands in for data || status word.
		reply := append(bytes.Clone(apdu), 0x90, 0x00)
		queue := frameHID(reply)
		data, sw, err := unframeHID(func() ([]byte, error) { p := queue[0]; queue = queue[1:]; return p, nil })
		if err != nil || sw != SWOK || !bytes.Equal(data, apdu) || len(queue) != 0 {
			t.Fatalf("n=%d: data %d bytes, sw %04x, err %v, %d packets left", n, len(data), sw, err, len(queue))
		}
	}
	bad := frameHID([]byte{1, 2, 3, 0x90, 0})
	bad[0][2] = 0x02
	if _, _, err := unframeHID(func() ([]byte, error) { return bad[0], nil }); err == nil {
		t.Fatal("a ping packet was taken for an APDU reply")
	}
}
