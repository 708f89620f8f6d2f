package probe

import (
	"strings"

	"github.com/vipharness/vipharness/deployer"
)

// VM maps node_info's application name to the rollup's VM: Initia's minievm, minimove and
// miniwasm, and wasmd (a plain CosmWasm chain) as Wasm.
func (n NodeInfo) VM() (deployer.VM, bool) {
	switch strings.ToLower(n.Name) {
	case "minievm":
		return deployer.EVM, true
	case "minimove":
		return deployer.Move, true
	case "miniwasm", "wasm", "wasmd":
		return deployer.Wasm, true
	}
	return "", false
}
