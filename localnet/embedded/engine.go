// Package embedded runs local rollups inside the test process: the EVM rollup on
// go-ethereum's simulated chain, the Wasm and Move rollups on the dev node (wasmvm, libmovevm).
package embedded

import (
	"context"
	"fmt"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// Engine starts in-process rollups.
type Engine struct {
	EVMOptions []EVMOption
}

var _ localnet.Engine = Engine{}

// Name is "embedded".
func (Engine) Name() string { return "embedded" }

// Available is nil for EVM and Wasm (linked in); Move needs Initia's MoveVM library.
func (Engine) Available(_ context.Context, vm deployer.VM) error {
	switch vm {
	case deployer.EVM, deployer.Wasm:
		return nil
	case deployer.Move:
		_, err := movevm.OpenVM(movevm.Dir())
		return err
	}
	return fmt.Errorf("embedded engine: no %s rollup", vm)
}

// StartRollup starts an in-process rollup of the given VM.
func (e Engine) StartRollup(ctx context.Context, vm deployer.VM) (localnet.Rollup, error) {
	switch vm {
	case deployer.EVM:
		return StartEVM(ctx, e.EVMOptions...)
	case deployer.Wasm:
		return StartWasm(ctx)
	case deployer.Move:
		return StartMove(ctx)
	}
	return nil, fmt.Errorf("embedded engine: %s rollup is not available yet", vm)
}
