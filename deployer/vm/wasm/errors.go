package wasm

import (
	"errors"
	"regexp"
	"strings"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// Reasons the contract gives (the text before the first colon of its error message).
const (
	NotAllowed            = "Address is not allowed"
	StageFinalized        = "Stage finalized"
	StageAlreadyFinalized = "Stage already finalized"
	StageNotFound         = "Stage not found"
)

// ContractError is the contract's own error, recovered from a failed tx's, simulation's or
// query's log; Err is the chain's full report.
type ContractError struct {
	Message string
	Err     error
}

var _ vip.ContractError = (*ContractError)(nil)

// Reason is the contract's message without its details ("Stage finalized").
func (e *ContractError) Reason() string {
	name, _, _ := strings.Cut(e.Message, ":")
	return name
}

func (e *ContractError) Error() string {
	return "contract error: " + e.Message + cosmostx.Where(e.Err)
}

func (e *ContractError) Unwrap() error { return e.Err }

// A contract's error reaches a client in two wordings of the SDK's error wrapping: a tx log
// reads "...message index: N: <contract message>: execute wasm contract failed[ more]", and a
// query's gRPC status "codespace wasm code 9: query wasm contract failed: <contract message>".
var (
	contractFailure = regexp.MustCompile(`(?s)(?:message index: \d+: )?(.*?): (?:execute|instantiate|query|migrate) wasm contract failed`)
	queryFailure    = regexp.MustCompile(`(?s)codespace \w+ code \d+: (?:execute|instantiate|query|migrate) wasm contract failed: (.+)`)
)

// decodeContract returns err as a *ContractError when its log carries the contract's own
// message, and err unchanged otherwise (a node refusal, an unreachable node).
func decodeContract(err error) error {
	if err == nil {
		return nil
	}
	var ce *ContractError
	if errors.As(err, &ce) {
		return err
	}
	log, ok := cosmostx.Log(err)
	if !ok {
		return err
	}
	if m := queryFailure.FindStringSubmatch(log); m != nil {
		return &ContractError{Message: strings.TrimSpace(m[1]), Err: err}
	}
	m := contractFailure.FindStringSubmatch(log)
	if m == nil {
		return err
	}
	msg := m[1]
	if i := strings.LastIndex(msg, "message index: "); i >= 0 {
		msg = msg[i+len("message index: "):]
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			msg = rest
		}
	}
	// A query error from the gateway may carry a gRPC prefix ("rpc error: code = ... desc = ").
	if _, rest, ok := strings.Cut(msg, "desc = "); ok {
		msg = rest
	}
	return &ContractError{Message: msg, Err: err}
}
