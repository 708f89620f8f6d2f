package evm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vip"
)

// dataError is an RPC error carrying revert data, as go-ethereum's client returns.
type dataError struct{ data string }

func (e dataError) Error() string          { return "execution reverted" }
func (e dataError) ErrorData() interface{} { return e.data }

func TestDecodeRevert(t *testing.T) {
	parsed := vipscore.NewVipScore().GetABI()
	pack := func(name string, args ...any) string {
		e := parsed.Errors[name]
		b, err := e.Inputs.Pack(args...)
		if err != nil {
			t.Fatal(err)
		}
		return "0x" + common.Bytes2Hex(append(e.ID[:4], b...))
	}
	reason := func(s string) string {
		b, _ := abi.Arguments{{Type: mustType(t, "string")}}.Pack(s)
		return "0x08c379a0" + common.Bytes2Hex(b)
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"custom error with arg", dataError{pack("StageFinalized", uint64(5))}, "execution reverted: StageFinalized(5)"},
		{"custom error naming an address", dataError{pack("PermissionDenied", common.HexToAddress("0x00000000000000000000000000000000000000aa"))}, "PermissionDenied(0x00000000000000000000000000000000000000AA)"},
		{"no-arg error", dataError{pack("AddrsAndAmountsLengthMistmatch")}, "AddrsAndAmountsLengthMistmatch()"},
		{"reason string", dataError{reason("nope")}, "execution reverted: Error(nope)"},
		{"unknown selector", dataError{"0xdeadbeef"}, "unknown data 0xdeadbeef"},
		{"no data", dataError{"0x"}, "execution reverted"},
		{"not an rpc data error", errors.New("connection refused"), "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DecodeRevert(tt.err)
			if got == nil || !strings.Contains(got.Error(), tt.want) {
				t.Fatalf("DecodeRevert = %v, want %q", got, tt.want)
			}
		})
	}
	if DecodeRevert(nil) != nil {
		t.Fatal("nil error decoded to non-nil")
	}
	var re *RevertError
	if !errors.As(DecodeRevert(dataError{pack("StageNotFound", uint64(9))}), &re) || re.Name != "StageNotFound" || re.Args[0].(uint64) != 9 {
		t.Fatalf("RevertError = %+v", re)
	}
}

func mustType(t *testing.T, s string) abi.Type {
	typ, err := abi.NewType(s, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

func TestDialRefusesWhatItCannotUse(t *testing.T) {
	ctx := context.Background()
	if _, err := deployer.Open(ctx, deployer.Config{VM: vip.EVM, JSONRPC: "http://127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("unreachable rpc: %v", err)
	}
	if _, err := deployer.Open(ctx, deployer.Config{VM: vip.EVM, JSONRPC: "not a url"}); err == nil {
		t.Fatal("bad rpc url accepted")
	}
}

func TestProbeAddressesAreDistinct(t *testing.T) {
	seen := map[common.Address]bool{}
	for i := range 1000 {
		a := probeAddress(i)
		if seen[a] || a == (common.Address{}) {
			t.Fatalf("probe address %d repeats", i)
		}
		seen[a] = true
	}
}
