package ethnode

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum"
)

func TestPendingLookups(t *testing.T) {
	for _, tc := range []struct {
		err              error
		lagging, pending bool
	}{
		{nil, false, false},
		{ethereum.NotFound, false, true},
		{fmt.Errorf("receipt: %w", ethereum.NotFound), false, true},
		{errors.New("transaction indexing is in progress"), true, true},
		{errors.New("connection refused"), false, false},
	} {
		if IndexLagging(tc.err) != tc.lagging || ReceiptPending(tc.err) != tc.pending {
			t.Errorf("%v: lagging %v pending %v, want %v %v", tc.err, IndexLagging(tc.err), ReceiptPending(tc.err), tc.lagging, tc.pending)
		}
	}
}

// minievm's words, as a real minievm v1.2.18 answered them.
func TestMinievmAnswers(t *testing.T) {
	for _, tc := range []struct {
		err                 error
		bareRevert, noPayer bool
	}{
		{nil, false, false},
		{errors.New("Reverted"), true, false},
		{errors.New("failed to execute message; message index: 0: Reverted"), true, false},
		{errors.New("execution reverted"), true, false},
		{errors.New("execution reverted: custom error 0x5699f3ef"), false, false},
		{errors.New("fee payer address: init1qy5...: does not exist: unknown address"), false, true},
		{errors.New("insufficient funds for gas * price + value"), false, false},
	} {
		if RevertedWithoutData(tc.err) != tc.bareRevert || NoFeePayer(tc.err) != tc.noPayer {
			t.Errorf("%v: bare revert %v, no fee payer %v; want %v %v", tc.err, RevertedWithoutData(tc.err), NoFeePayer(tc.err), tc.bareRevert, tc.noPayer)
		}
	}
}

// The client types geth's words; what it types stays a pending lookup and keeps the words.
func TestIndexLagIsTyped(t *testing.T) {
	raw := errors.New("transaction indexing is in progress")
	err := typed(raw)
	if !errors.Is(err, ErrIndexLag) || !errors.Is(err, raw) || !ReceiptPending(err) {
		t.Fatalf("typed(%v) = %v: want ErrIndexLag around the node's error", raw, err)
	}
	if typed(err) != err {
		t.Fatalf("typed twice: %v", typed(err))
	}
	for _, other := range []error{nil, ethereum.NotFound, errors.New("connection refused")} {
		if got := typed(other); got != other {
			t.Errorf("typed(%v) = %v, want it unchanged", other, got)
		}
	}
}
