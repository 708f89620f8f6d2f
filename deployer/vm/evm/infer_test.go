package evm

import (
	"errors"
	"fmt"
	"testing"
)

// What minievm and geth answer for a revert without data, and what they answer otherwise.
func TestBareRevert(t *testing.T) {
	for _, tc := range []struct {
		err  error
		bare bool
	}{
		{errors.New("Reverted"), true},                                              // minievm eth_call
		{errors.New("failed to execute message; message index: 0: Reverted"), true}, // minievm eth_estimateGas
		{fmt.Errorf("estimate: %w", errors.New("execution reverted")), false},       // wrapped text is not the node's
		{errors.New("execution reverted"), true},                                    // geth, no data
		{&RevertError{}, true},
		{&RevertError{Data: []byte{1, 2, 3, 4}}, false},
		{&RevertError{Name: "StageFinalized"}, false},
		{errors.New("fee payer address: 0x1 does not exist: unknown address"), false},
		{nil, false},
	} {
		if got := bareRevert(tc.err); got != tc.bare {
			t.Errorf("bareRevert(%v) = %v, want %v", tc.err, got, tc.bare)
		}
	}
}

func TestInferredErrorSaysSo(t *testing.T) {
	e := inferred("StageNotFound", uint64(9))
	if e.Reason() != "StageNotFound" || e.Trapped() {
		t.Fatalf("reason %q trapped %v", e.Reason(), e.Trapped())
	}
	if want := "execution reverted: StageNotFound(9) (named from the contract's state: the node returned no revert data)"; e.Error() != want {
		t.Fatalf("%q, want %q", e.Error(), want)
	}
}
