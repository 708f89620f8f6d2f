// Package deployer is the VM-neutral face of a VIP scoring contract: one Scorer per VM
// (deployer/evm, deployer/move, deployer/wasm) deploys it at a stage, pushes scores in
// journaled chunks, finalizes stages and reads them back.
package deployer

import (
	"fmt"
	"strings"
)

// VM names the virtual machine kind of a rollup.
type VM string

const (
	EVM  VM = "evm"
	Move VM = "move"
	Wasm VM = "wasm"
)

// VMs lists every VM kind in a stable order.
var VMs = []VM{EVM, Move, Wasm}

// ParseVM accepts "evm", "move" or "wasm" (any case).
func ParseVM(s string) (VM, error) {
	switch v := VM(strings.ToLower(strings.TrimSpace(s))); v {
	case EVM, Move, Wasm:
		return v, nil
	}
	return "", fmt.Errorf("unknown vm %q: want evm, move or wasm", s)
}
