package move_test

import (
	"errors"
	"os"
	"testing"

	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/move"
)

// The committed module is stable bytecode (compiler 2.0, language 2.1); the same module built
// by compiler 2.1 (testdata) is marked unstable and refused before it is sent.
func TestCheckStable(t *testing.T) {
	unstable, err := os.ReadFile("testdata/vip_score_compiler_2.1.mv")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		code          []byte
		want          move.Compilation
		wantOK        bool
		wantErr       error
		wantMalformed bool
	}{
		{"committed", movecontract.Module(), move.Compilation{CompilerVersion: "2.0", LanguageVersion: "2.1"}, true, nil, false},
		{"compiler 2.1", unstable, move.Compilation{Unstable: true, CompilerVersion: "2.1-unstable", LanguageVersion: "2.1"}, true, move.ErrUnstableBytecode, false},
		{"not a module", []byte("hello"), move.Compilation{}, false, nil, true},
		{"cut short", movecontract.Module()[:9], move.Compilation{}, false, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := move.ReadCompilation(tc.code)
			if (err != nil) != tc.wantMalformed || got != tc.want || ok != tc.wantOK {
				t.Fatalf("ReadCompilation: %+v %v %v, want %+v %v", got, ok, err, tc.want, tc.wantOK)
			}
			err = move.CheckStable(tc.code)
			switch {
			case tc.wantMalformed && err == nil:
				t.Fatal("a malformed module passed")
			case !tc.wantMalformed && !errors.Is(err, tc.wantErr):
				t.Fatalf("CheckStable: %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// An arithmetic overflow in a module is decoded as the VM's failure, trapped, named by its
// status, as the aborts are by their reasons.
func TestDecodeVMFailure(t *testing.T) {
	log := "failed to execute message; message index: 0: VM failure: status ARITHMETIC_ERROR of type Execution with message Addition overflow, location=00000000000000000000000010b13fad13df6d611903e7ad846a545ca3e3f4c2::vip_score, function=16, code_offset=90 [cosmos/cosmos-sdk@v0.53.6/baseapp/baseapp.go:1052]"
	err := move.DecodeAbort(&cosmostx.TxError{Phase: cosmostx.PhaseSimulate, RawLog: log})
	var f *move.VMFailure
	if !errors.As(err, &f) {
		t.Fatalf("%v (%T) is not a VMFailure", err, err)
	}
	ce, ok := vip.AsContractError(err)
	if !ok || ce.Reason() != "ARITHMETIC_ERROR" || !ce.Trapped() {
		t.Fatalf("contract error %v %v", ce, ok)
	}
	if f.Message != "Addition overflow" || f.Module != "0x10b13fad13df6d611903e7ad846a545ca3e3f4c2::vip_score" {
		t.Fatalf("%+v", f)
	}
}
