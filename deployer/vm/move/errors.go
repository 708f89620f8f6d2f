package move

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// vip_score's abort reasons (the low 16 bits of an abort code), named as in the module.
var reasons = map[uint64]string{
	1:  "EUNAUTHORIZED",
	2:  "EINSUFFICIENT_SCORE",
	3:  "EINVALID_STAGE",
	4:  "EDEPLOYER_ALREADY_ADDED",
	5:  "EDEPLOYER_NOT_FOUND",
	6:  "ENOT_MATCH_LENGTH",
	7:  "EINVALID_SCORE",
	8:  "EFINALIZED_STAGE",
	9:  "ESTAGE_ZERO",
	10: "EALREADY_SET",
}

// std::error categories (the high bits of an abort code).
var categories = map[uint64]string{
	1: "invalid_argument", 2: "out_of_range", 3: "invalid_state", 4: "unauthenticated",
	5: "permission_denied", 6: "not_found", 7: "aborted", 8: "already_exists",
	9: "resource_exhausted", 0xA: "cancelled", 0xB: "internal", 0xC: "not_implemented", 0xD: "unavailable",
}

// AbortError is a Move abort recovered from a failed tx's, simulation's or view's log;
// Err is the chain's full report.
type AbortError struct {
	Abort movebcs.Abort
	Err   error
}

var _ vip.ContractError = (*AbortError)(nil)

// Reason is the abort's reason constant when the module is vip_score (EFINALIZED_STAGE),
// else "abort <code>".
func (e *AbortError) Reason() string {
	if strings.HasSuffix(e.Abort.Module, "::vip_score") {
		if n, ok := reasons[e.Abort.Reason()]; ok {
			return n
		}
	}
	return fmt.Sprintf("abort %d", e.Abort.Code)
}

// Trapped is false: an abort is the module's own refusal (a VM failure such as an arithmetic
// error is not parsed as an abort).
func (e *AbortError) Trapped() bool { return false }

func (e *AbortError) Error() string {
	cat := categories[e.Abort.Category()]
	if cat == "" {
		cat = fmt.Sprintf("category %d", e.Abort.Category())
	}
	return fmt.Sprintf("move abort %s (%s, code %d) in %s", e.Reason(), cat, e.Abort.Code, e.Abort.Module) + cosmostx.Where(e.Err)
}

func (e *AbortError) Unwrap() error { return e.Err }

// DecodeAbort returns err as an *AbortError when its log carries a Move abort, as a
// *VMFailure when it carries an execution failure of a module (an arithmetic overflow), and
// err unchanged otherwise (out of gas, a node refusal, an unreachable node).
func DecodeAbort(err error) error {
	if err == nil {
		return nil
	}
	var ae *AbortError
	var vf *VMFailure
	if errors.As(err, &ae) || errors.As(err, &vf) {
		return err
	}
	log, ok := cosmostx.Log(err)
	if !ok {
		return err
	}
	if a, ok := movebcs.ParseAbort(log); ok {
		return &AbortError{Abort: a, Err: err}
	}
	if f, ok := parseVMFailure(log); ok {
		f.Err = err
		return f
	}
	return err
}

// VMFailure is a module's execution failure that the VM raised rather than the module's
// own abort: "VM failure: status ARITHMETIC_ERROR of type Execution with message Addition
// overflow, location=<address>::<module>, ...". Trapped, as an EVM Panic.
type VMFailure struct {
	Status, Message, Module string
	Err                     error
}

var _ vip.ContractError = (*VMFailure)(nil)

// Reason is the VM's status (ARITHMETIC_ERROR).
func (e *VMFailure) Reason() string { return e.Status }

// Trapped is true: the module crashed rather than refused.
func (e *VMFailure) Trapped() bool { return true }

func (e *VMFailure) Error() string {
	return fmt.Sprintf("move VM failure %s (%s) in %s", e.Status, e.Message, e.Module) + cosmostx.Where(e.Err)
}

func (e *VMFailure) Unwrap() error { return e.Err }

// parseVMFailure reads the status, message and module of a VM failure in a tx or simulation
// log.
func parseVMFailure(log string) (*VMFailure, bool) {
	_, rest, ok := strings.Cut(log, "VM failure: status ")
	if !ok {
		return nil, false
	}
	status, rest, ok := strings.Cut(rest, " ")
	if !ok {
		return nil, false
	}
	f := &VMFailure{Status: status}
	if _, m, ok := strings.Cut(rest, "with message "); ok {
		f.Message, _, _ = strings.Cut(m, ", location=")
	}
	if _, loc, ok := strings.Cut(rest, "location="); ok {
		loc, _, _ = strings.Cut(loc, ",")
		if addr, mod, ok := strings.Cut(loc, "::"); ok {
			f.Module = "0x" + strings.TrimLeft(addr, "0") + "::" + mod
		}
	}
	return f, true
}
