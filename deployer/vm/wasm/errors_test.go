package wasm

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/bindings/nodehttp"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

func TestDecodeContract(t *testing.T) {
	plain := errors.New("connection refused")
	tests := []struct {
		name     string
		err      error
		wantName string
		wantMsg  string
		wantText string
	}{
		{"deliver (wasmd)", &cosmostx.TxError{Phase: cosmostx.PhaseDeliver, Hash: "AB12", Code: 5, Codespace: "wasm",
			RawLog: "failed to execute message; message index: 0: Stage finalized: stage 3 is final and its scores cannot change: execute wasm contract failed"},
			StageFinalized, "Stage finalized: stage 3 is final and its scores cannot change", "tx AB12 failed on chain"},
		{"simulate (dev node)", &cosmostx.TxError{Phase: cosmostx.PhaseSimulate,
			RawLog: `failed to execute message; message index: 0: Address is not allowed: "wasm1xyz" is not on the allow list: execute wasm contract failed with gas used: '123'`},
			NotAllowed, `Address is not allowed: "wasm1xyz" is not on the allow list`, "nothing was sent"},
		{"simulate (SDK wording)", &cosmostx.TxError{Phase: cosmostx.PhaseSimulate,
			RawLog: "failed to execute message; message index: 0: Stage not found: stage 9 does not exist: execute wasm contract failed With gas wanted: '0' and gas used: '99' "},
			StageNotFound, "Stage not found: stage 9 does not exist", "in simulation"},
		{"query (SDK gRPC status)", fmt.Errorf("smart query: %w", &nodehttp.Error{Status: 500, Code: 2, Message: "codespace wasm code 9: query wasm contract failed: Stage not found: stage 99 does not exist"}),
			StageNotFound, "Stage not found: stage 99 does not exist", "contract error"},
		{"query", fmt.Errorf("smart query: %w", &nodehttp.Error{Status: 500, Code: 2, Message: "Stage not found: stage 9 does not exist: query wasm contract failed: unknown request"}),
			StageNotFound, "Stage not found: stage 9 does not exist", "contract error"},
		{"query with gRPC prefix", &nodehttp.Error{Status: 500, Code: 2, Message: "rpc error: code = Unknown desc = Stage not found: stage 2 does not exist: query wasm contract failed"},
			StageNotFound, "Stage not found: stage 2 does not exist", "contract error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := decodeContract(tt.err)
			var ce *ContractError
			if !errors.As(err, &ce) {
				t.Fatalf("decodeContract(%v) = %v, want a ContractError", tt.err, err)
			}
			if ce.Reason() != tt.wantName || ce.Message != tt.wantMsg {
				t.Fatalf("name %q message %q, want %q %q", ce.Reason(), ce.Message, tt.wantName, tt.wantMsg)
			}
			if !errors.Is(err, tt.err) && !errors.As(err, new(*nodehttp.Error)) {
				t.Fatal("the chain's report must stay reachable through Unwrap")
			}
			if got := err.Error(); !strings.Contains(got, tt.wantText) {
				t.Fatalf("Error() = %q, want it to mention %q", got, tt.wantText)
			}
		})
	}
	for _, err := range []error{nil, plain, &cosmostx.TxError{Phase: cosmostx.PhaseCheck, Code: 32, RawLog: "account sequence mismatch, expected 4, got 5: incorrect account sequence"}} {
		if got := decodeContract(err); got != err {
			t.Errorf("decodeContract(%v) = %v, want it unchanged", err, got)
		}
	}
}
