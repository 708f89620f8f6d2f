package deployer

import (
	"errors"
)

// ContractError is an error the contract itself raised, on any VM: an EVM revert, a Move
// abort, a Wasm contract's error message. Reason is the contract's own name for it, as its
// interface defines it ("StageFinalized" on EVM, "EFINALIZED_STAGE" on Move, "Stage
// finalized" on Wasm); Trapped reports a contract that crashed (an EVM Panic, a Wasm trap)
// rather than refusing.
type ContractError interface {
	error
	Reason() string
	Trapped() bool
}

// AsContractError finds the contract's error in err's chain.
func AsContractError(err error) (ContractError, bool) {
	var ce ContractError
	if errors.As(err, &ce) {
		return ce, true
	}
	return nil, false
}

// Reason is the reason of the contract error in err's chain, or "" when err carries none
// (a chain refusal, an unreachable node).
func Reason(err error) string {
	if ce, ok := AsContractError(err); ok {
		return ce.Reason()
	}
	return ""
}

// ErrBadAddress marks an address (a contract's, an account's) that is malformed for the VM:
// a caller's input error, found before anything is sent.
var ErrBadAddress = errors.New("malformed address")
