package move

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer"
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

var _ deployer.ContractError = (*AbortError)(nil)

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

// DecodeAbort returns err as an *AbortError when its log carries a Move abort, and err
// unchanged otherwise (out of gas, a node refusal, an unreachable node).
func DecodeAbort(err error) error {
	if err == nil {
		return nil
	}
	var ae *AbortError
	if errors.As(err, &ae) {
		return err
	}
	log, ok := cosmostx.Log(err)
	if !ok {
		return err
	}
	a, ok := movebcs.ParseAbort(log)
	if !ok {
		return err
	}
	return &AbortError{Abort: a, Err: err}
}
