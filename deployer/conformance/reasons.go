package conformance

import "github.com/vipharness/vipharness/deployer/vip"

// Reason names the contract's refusal behind err ("StageFinalized" on EVM, "Stage finalized"
// on Wasm, "EFINALIZED_STAGE" on Move), or "" when err carries none: a chain error, or a
// contract that panicked instead of refusing.
func Reason(err error) string {
	ce, ok := vip.AsContractError(err)
	if !ok || ce.Trapped() {
		return ""
	}
	return ce.Reason()
}
