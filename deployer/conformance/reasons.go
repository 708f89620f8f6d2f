package conformance

import (
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/wasm"
)

// Reason names the contract's refusal behind err ("StageFinalized" on EVM, "Stage finalized"
// on Wasm, "EFINALIZED_STAGE" on Move), or "" when err carries none: a chain error, or a
// contract that panicked instead of refusing.
func Reason(err error) string {
	ce, ok := deployer.AsContractError(err)
	if !ok || ce.Trapped() {
		return ""
	}
	return ce.Reason()
}

// Reasons maps each refusal the checks provoke to the name the official interface gives it
// on each VM; a refusal a VM's messages cannot express has no entry.
var Reasons = map[deployer.VM]map[string]string{
	deployer.EVM: {
		"not allowed":     "PermissionDenied",
		"finalized":       "StageFinalized",
		"missing stage":   "StageNotFound",
		"length mismatch": "AddrsAndAmountsLengthMistmatch",
	},
	deployer.Wasm: {
		"not allowed":   wasm.NotAllowed,
		"finalized":     wasm.StageFinalized,
		"missing stage": wasm.StageNotFound,
	},
	deployer.Move: {
		"not allowed":     "EUNAUTHORIZED",
		"finalized":       "EFINALIZED_STAGE",
		"missing stage":   "EINVALID_STAGE",
		"length mismatch": "ENOT_MATCH_LENGTH",
	},
}

// Events are the event names the interface defines for an update and a finalize, as
// Subject.Events reports them: EVM log names, Wasm `wasm-<kind>` events, Move event structs.
var Events = map[deployer.VM]map[string][]string{
	deployer.EVM:  {"update": {"UpdateScore"}, "finalize": {"FinalizeStage", "CreateStage"}},
	deployer.Wasm: {"update": {"wasm-update-score"}, "finalize": {"wasm-finalize-stage", "wasm-create-stage"}},
	deployer.Move: {"update": {"UpdateScoreEvent"}, "finalize": {"FinalizedScoreEvent"}},
}
