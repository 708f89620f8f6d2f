package main

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/operation/operate"
	"github.com/vipharness/vipharness/deployer/registration/registry"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
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
		{"bad contract address", fmt.Errorf("contract %q: %w", "0xzz", vip.ErrBadAddress), exitInvalid},
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
		{&operate.SourceError{Stage: 6, Err: &operate.SameScoresError{First: 6, Last: 7, L1Stage: 8, Source: "file s.csv"}},
			"close them by hand (vipctl scores update --stage N, vipctl stage finalize --stage N)"},
		{fmt.Errorf("update: %w", &evm.StuckNonceError{Sender: common.HexToAddress("0x05"), Nonce: 5, Pending: 7, GasFeeCap: big.NewInt(100), GasTipCap: big.NewInt(1)}),
			"e.g. a 0-value transfer to itself: cast send --nonce 5 --gas-price 111 --priority-gas-price 2 --private-key $PRIVATE_KEY --rpc-url $JSON_RPC_URL 0x0000000000000000000000000000000000000005; then run this command again"},
		{errors.New("connection refused"), ""},
	}
	for _, tc := range tests {
		got := advice(tc.err)
		if got != "" {
			got = tc.err.Error() + got // as main prints it
		}
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("advice(%v) = %q, want %q in it", tc.err, got, tc.want)
		}
	}
}

// operate's loop logs a failed pass and goes on: the log line carries the advice too.
func TestOperateLogsTheAdvice(t *testing.T) {
	var buf bytes.Buffer
	logger := operateLogger(session{errOut: &buf})
	logger.Error("pass failed", "err", &operate.SourceError{Stage: 6, Err: &operate.SameScoresError{First: 6, Last: 7, L1Stage: 8, Source: "file s.csv"}},
		"retry_in", slog.DurationValue(0))
	for _, want := range []string{"file s.csv gives every stage the same scores", "vipctl stage finalize --stage N", "retry_in=0s"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log %q lacks %q", buf.String(), want)
		}
	}
}

// The registry's result and problems are worded with vipctl's next step and remedy.
func TestRegistryWordsNextStepAndRemedy(t *testing.T) {
	for _, tc := range []struct {
		w    registry.Written
		want string
	}{
		{registry.Written{Entry: "out/testnets/rollup"}, "validate them in place: vipctl registry validate out/testnets/rollup"},
		{registry.Written{Entry: "reg/testnets/rollup", InCheckout: true}, "open a pull request"},
	} {
		if got := registryNext(tc.w); !strings.Contains(got, tc.want) {
			t.Errorf("registryNext(%+v) = %q, want %q in it", tc.w, got, tc.want)
		}
	}
	in := []registry.Problem{{File: "chain.json", Rule: registry.RulePrettier, Message: "not formatted"}, {File: "chain.json", Rule: "schema", Message: "missing"}}
	got := problemAdvice(in)
	if got[0].Message != "not formatted; vipctl registry writes it formatted" || got[1].Message != "missing" || in[0].Message != "not formatted" {
		t.Fatalf("problemAdvice = %+v (input after: %+v)", got, in)
	}
}
