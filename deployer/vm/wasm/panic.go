package wasm

import "strings"

// Trapped reports whether the "error" is the VM's report of a contract that trapped (a Rust
// panic, an unreachable instruction) rather than an error the contract returned: the
// official contract panics where the interface promises an error, which a conformance check
// must tell apart from a proper refusal.
func (e *ContractError) Trapped() bool {
	for _, s := range []string{"Error calling the VM", "RuntimeError", "panicked at", "unreachable"} {
		if strings.Contains(e.Message, s) {
			return true
		}
	}
	return false
}
