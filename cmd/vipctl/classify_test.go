package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vm/evm"
	"github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/deployer/vm/wasm"
)

// A pipeline reads the exit code: a contract's refusal on any VM is 3, a malformed address
// is 2, anything else 1, and an exit code already chosen is kept.
func TestClassifyGivesExitCodesAPipelineCanTrust(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code int
	}{
		{"evm revert", fmt.Errorf("finalize stage 3: %w", &evm.RevertError{Name: "StageFinalized"}), exitReverted},
		{"wasm contract error", fmt.Errorf("update: %w", &wasm.ContractError{Message: "Stage finalized"}), exitReverted},
		{"move abort", &move.AbortError{Err: errors.New("raw log")}, exitReverted},
		{"bad contract address", fmt.Errorf("contract %q: %w", "0xzz", deployer.ErrBadAddress), exitInvalid},
		{"already classified", invalid(errors.New("no key")), exitInvalid},
		{"chain unreachable", errors.New("dial tcp 127.0.0.1:1: connection refused"), exitFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := exitFailure
			var ee *exitError
			if errors.As(classify(tc.err), &ee) {
				got = ee.code
			}
			if got != tc.code {
				t.Fatalf("exit %d, want %d", got, tc.code)
			}
		})
	}
	if classify(nil) != nil {
		t.Fatal("no error classified as one")
	}
}
