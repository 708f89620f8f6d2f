package chain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

func TestPassing(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"dropped connection", fmt.Errorf("post simulate: %w", io.ErrUnexpectedEOF), true},
		{"stale sequence at CheckTx", &cosmostx.TxError{Phase: cosmostx.PhaseCheck, Codespace: "sdk", Code: 32, RawLog: "account sequence mismatch, expected 3, got 2"}, true},
		{"stale sequence in simulation", &cosmostx.TxError{Phase: cosmostx.PhaseSimulate, RawLog: "account sequence mismatch, expected 3, got 2: incorrect account sequence"}, true},
		{"wrapped stale sequence", fmt.Errorf("fund x: %w", &cosmostx.TxError{Phase: cosmostx.PhaseCheck, Codespace: "sdk", Code: 32}), true},
		{"insufficient funds", &cosmostx.TxError{Phase: cosmostx.PhaseSimulate, RawLog: "spendable balance 0uinit is smaller than 10uinit: insufficient funds"}, false},
		{"refused at CheckTx", &cosmostx.TxError{Phase: cosmostx.PhaseCheck, Codespace: "sdk", Code: 13, RawLog: "insufficient fee"}, false},
		{"failed in a block", &cosmostx.TxError{Phase: cosmostx.PhaseDeliver, Codespace: "sdk", Code: 5, Height: 9}, false},
		{"canceled", fmt.Errorf("wait for tx: %w", context.Canceled), false},
		{"deadline", context.DeadlineExceeded, false},
		{"other", errors.New("connection refused"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := passing(tc.err); got != tc.want {
				t.Errorf("passing(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
