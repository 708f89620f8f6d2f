package pbwalk

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

type field struct {
	num protowire.Number
	typ protowire.Type
	v   string
	n   uint64
}

func TestEachField(t *testing.T) {
	var msg []byte
	msg = protowire.AppendTag(msg, 1, protowire.BytesType)
	msg = protowire.AppendBytes(msg, []byte("abc"))
	msg = protowire.AppendTag(msg, 2, protowire.VarintType)
	msg = protowire.AppendVarint(msg, 300)
	msg = protowire.AppendTag(msg, 3, protowire.Fixed32Type)
	msg = protowire.AppendFixed32(msg, 7)
	msg = protowire.AppendTag(msg, 4, protowire.VarintType)
	msg = protowire.AppendVarint(msg, 1)

	var got []field
	err := EachField(msg, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		got = append(got, field{num, typ, string(v), n})
		return nil
	})
	want := []field{{1, protowire.BytesType, "abc", 0}, {2, protowire.VarintType, "", 300}, {3, protowire.Fixed32Type, "", 0}, {4, protowire.VarintType, "", 1}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d: %+v, want %+v", i, got[i], want[i])
		}
	}

	stop := errors.New("stop")
	calls := 0
	if err := EachField(msg, func(protowire.Number, protowire.Type, []byte, uint64) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("f's error: %v after %d calls, want stop after 1", err, calls)
	}
	if err := EachField(msg[:len(msg)-1], func(protowire.Number, protowire.Type, []byte, uint64) error { return nil }); err == nil {
		t.Error("a truncated message walked without error")
	}
}
