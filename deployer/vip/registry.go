package vip

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The Specs of the VM drivers linked into the program. A driver registers its Spec when it
// registers itself with the deployer (deployer.Register); importing deployer/vm links all
// three. Code that only asks what a VM means needs this package and that import, not the
// engine.
var (
	specsMu sync.RWMutex
	specs   = map[VM]Spec{}
)

// Register records spec as what spec.VM means. It panics on a second Spec for a VM: two
// drivers of one VM are a programming error found at start-up.
func Register(spec Spec) {
	specsMu.Lock()
	defer specsMu.Unlock()
	if _, dup := specs[spec.VM]; dup {
		panic(fmt.Sprintf("vip: a second Spec of %q", spec.VM))
	}
	specs[spec.VM] = spec
}

// Describe is the Spec of vm: what it means to the code around it.
func Describe(vm VM) (Spec, error) {
	specsMu.RLock()
	spec, ok := specs[vm]
	specsMu.RUnlock()
	if ok {
		return spec, nil
	}
	if _, err := ParseVM(string(vm)); err != nil {
		return Spec{}, fmt.Errorf("unknown vm %q: want evm, move or wasm", vm)
	}
	return Spec{}, fmt.Errorf("vm %s: no driver linked into this program (import github.com/vipharness/vipharness/deployer/vm)", vm)
}

// MustDescribe is Describe of a VM known to be valid (a constant, a parsed --vm) in a
// program that links the drivers.
func MustDescribe(vm VM) Spec {
	spec, err := Describe(vm)
	if err != nil {
		panic(err)
	}
	return spec
}

// ByNodeName is the VM whose nodes give name as node_info's application_version.name
// (minievm, minimove, miniwasm; wasmd's "wasm"), any case.
func ByNodeName(name string) (VM, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, vm := range VMs {
		if spec, err := Describe(vm); err == nil && (name == spec.Minitia || slices.Contains(spec.NodeNames, name)) {
			return vm, true
		}
	}
	return "", false
}

// ByMinitia is the Spec of the VM whose Initia rollups are the minitia named (node_info's
// application name, the registry's metadata.minitia.type: minievm, minimove, miniwasm);
// false for any other name.
func ByMinitia(name string) (Spec, bool) {
	for _, vm := range VMs {
		if spec, err := Describe(vm); err == nil && spec.Minitia == name {
			return spec, true
		}
	}
	return Spec{}, false
}

// ServesJSONRPC reports whether the minitia named serves an EVM JSON-RPC (its contract is
// driven through one: minievm).
func ServesJSONRPC(minitia string) bool {
	spec, ok := ByMinitia(minitia)
	return ok && !spec.Cosmos
}
