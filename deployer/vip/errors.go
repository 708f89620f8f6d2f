package vip

import (
	"errors"
	"fmt"
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

// ErrNotScoring marks a contract that does not speak the official interface: a plain
// account, another contract, a chain reset under a remembered address.
var ErrNotScoring = errors.New("not a scoring contract")

// ErrCannotWrite marks a contract that refuses its operator as a writer (not on its allow
// list); the contract's own refusal is in the chain beside it.
var ErrCannotWrite = errors.New("the operator may not write to it")

// CheckError is a failed Scorer.CheckInterface: the contract, what failed (ErrNotScoring or
// ErrCannotWrite; errors.Is finds it), the stage a write was simulated on, and why.
type CheckError struct {
	Contract string
	Kind     error
	Stage    uint64 // ErrCannotWrite: the open stage the update was simulated on
	Err      error
}

func (e *CheckError) Error() string {
	if e.Kind == ErrCannotWrite {
		return fmt.Sprintf("contract %s: %v (an empty update of stage %d, simulated): %v", e.Contract, e.Kind, e.Stage, e.Err)
	}
	return fmt.Sprintf("contract %s: %v: %v", e.Contract, e.Kind, e.Err)
}

func (e *CheckError) Unwrap() []error { return []error{e.Kind, e.Err} }

// ErrNoSigner matches every MissingKeyError.
var ErrNoSigner = errors.New("no key")

// MissingKeyError is an operation that signs, or simulates from an account, with no key for
// its role ("operator", "deployer").
type MissingKeyError struct{ Role string }

func (e *MissingKeyError) Error() string        { return "no " + e.Role + " key" }
func (e *MissingKeyError) Is(target error) bool { return target == ErrNoSigner }

// ErrNoContract is an operation that needs a contract on a Scorer that has none yet.
var ErrNoContract = errors.New("no contract address: deploy first or pass the contract")

// ErrOnePerDeployer is a deploy refused because the chain allows one deployment per
// deployer and this deployer has one (Move), with --new asking for another.
var ErrOnePerDeployer = errors.New("the chain allows one deployment per deployer")

// ErrStageMissing is a stage the contract does not hold (never opened by an update).
var ErrStageMissing = errors.New("the contract has no such stage")
