package movevm_test

import (
	"bytes"
	"testing"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// Type arguments parse as x/move's TypeTagFromString parses them: primitives by name,
// vectors by trimming "vector<" and ">", anything else as a struct tag by the library.
func TestTypeTagParsesAsXMove(t *testing.T) {
	vm, err := movevm.OpenVM(movevm.RequireLibs(t))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := vm.NewRuntime(movevm.DefaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	metadata, err := rt.StructTagKey("0x1::fungible_asset::Metadata")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		arg     string
		want    []byte
		wantErr bool
	}{
		{arg: "bool", want: []byte{0}},
		{arg: "u8", want: []byte{1}},
		{arg: "u64", want: []byte{2}},
		{arg: "u128", want: []byte{3}},
		{arg: "address", want: []byte{4}},
		{arg: "signer", want: []byte{5}},
		{arg: "u16", want: []byte{8}},
		{arg: "u32", want: []byte{9}},
		{arg: "u256", want: []byte{10}},
		{arg: "vector<u8>", want: []byte{6, 1}},
		{arg: "vector<address>", want: []byte{6, 4}},
		{arg: "0x1::fungible_asset::Metadata", want: append([]byte{7}, metadata...)},
		{arg: "vector<0x1::fungible_asset::Metadata>", want: append([]byte{6, 7}, metadata...)},
		{arg: "", wantErr: true},
		{arg: "U64", wantErr: true},
		{arg: "0x1::no_colons", wantErr: true},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			got, err := rt.TypeTag(tc.arg)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("TypeTag(%q) = %x, want an error", tc.arg, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("TypeTag(%q) = %x, want %x", tc.arg, got, tc.want)
			}
			if err := movebcs.CheckTypeTag(got); err != nil {
				t.Fatalf("TypeTag(%q) is not one type tag: %v", tc.arg, err)
			}
		})
	}
}
