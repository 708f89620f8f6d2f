// Package vm links every VM driver (evm, move, wasm) into a program, as database/sql's
// drivers are linked: import it for its side effect, then open a rollup's Scorer with
// deployer.Open and ask what a VM means with vip.Describe.
package vm

import (
	_ "github.com/vipharness/vipharness/deployer/vm/evm"
	_ "github.com/vipharness/vipharness/deployer/vm/move"
	_ "github.com/vipharness/vipharness/deployer/vm/wasm"
)
