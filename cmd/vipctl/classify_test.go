package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/scores"
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

// The library's own words reach the operator with the flags that answer them.
func TestAdviceNamesTheFlag(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("score file s: %w", scores.ErrNoFormat), "--format csv|json"},
		{fmt.Errorf("key op: %w", keys.ErrOnLedger), "--ledger"},
		{fmt.Errorf("audit stage 3: %w", audit.ErrNotFinalized), "--allow-open"},
		{fmt.Errorf("deployer signer: %w", &keys.SourcesError{Role: keys.Deployer, Sources: []string{"keyring key a", "a Ledger"}}), "--from, --keystore, --ledger"},
		{fmt.Errorf("deployer signer: %w", keys.ErrHDPath), "--hd-path"},
		{errors.New("connection refused"), ""},
	}
	for _, tc := range tests {
		got := advice(tc.err)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("advice(%v) = %q, want %q in it", tc.err, got, tc.want)
		}
	}
}
