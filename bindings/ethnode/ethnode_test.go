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
