package vip

import (
	"errors"
	"fmt"
	"testing"
)

func TestParseVM(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want VM
		ok   bool
	}{
		{"evm", EVM, true}, {" Move ", Move, true}, {"WASM", Wasm, true},
		{"", "", false}, {"movevm", "", false}, {"solidity", "", false},
	} {
		got, err := ParseVM(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseVM(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseKeyTypeAndCoinType(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want KeyType
		coin uint32
		ok   bool
	}{
		{"secp256k1", Secp256k1, 118, true}, {"ETH_SECP256K1", EthSecp256k1, 60, true},
		{"ed25519", "", 0, false}, {"", "", 0, false},
	} {
		got, err := ParseKeyType(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseKeyType(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok && got.CoinType() != tc.coin {
			t.Errorf("%s coin type %d, want %d", got, got.CoinType(), tc.coin)
		}
	}
}

type refusal struct{ reason string }

func (r refusal) Error() string  { return "refused: " + r.reason }
func (r refusal) Reason() string { return r.reason }
func (refusal) Trapped() bool    { return false }

func TestReasonFindsTheContractErrorInTheChain(t *testing.T) {
	wrapped := fmt.Errorf("update stage 3: %w", refusal{"StageFinalized"})
	if got := Reason(wrapped); got != "StageFinalized" {
		t.Errorf("Reason = %q", got)
	}
	if got := Reason(errors.New("connection refused")); got != "" {
		t.Errorf("Reason of a chain error = %q, want none", got)
	}
	missing := fmt.Errorf("deploy: %w", &MissingKeyError{Role: "deployer"})
	if !errors.Is(missing, ErrNoSigner) || missing.Error() != "deploy: no deployer key" {
		t.Errorf("missing key error %q does not match ErrNoSigner", missing)
	}
	check := &CheckError{Contract: "0xC0", Kind: ErrCannotWrite, Stage: 4, Err: refusal{"Unauthorized"}}
	if !errors.Is(check, ErrCannotWrite) || Reason(check) != "Unauthorized" {
		t.Errorf("check error %q: kind or reason lost", check)
	}
}
