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
	// CosmosOptions configure the Wasm and Move rollups (e.g. WithBlockTime).
	CosmosOptions []CosmosOption
}

var _ localnet.Engine = Engine{}

// Name is "embedded".
func (Engine) Name() string { return "embedded" }

// Available is nil for EVM and Wasm (linked in); Move needs Initia's MoveVM library.
func (e Engine) Available(_ context.Context, vm deployer.VM) error {
	n, ok := e.nodes()[vm]
	if !ok {
		return fmt.Errorf("embedded engine: no %s rollup", vm)
	}
	if n.available != nil {
		return n.available()
	}
	return nil
}

// StartRollup starts an in-process rollup of the given VM.
func (e Engine) StartRollup(ctx context.Context, vm deployer.VM) (localnet.Rollup, error) {
	n, ok := e.nodes()[vm]
	if !ok {
		return nil, fmt.Errorf("embedded engine: no %s rollup", vm)
	}
	return n.start(ctx)
}

// vmNode is how the engine runs one VM's rollup.
type vmNode struct {
	available func() error // nil: always
	start     func(context.Context) (localnet.Rollup, error)
}

// nodes is the engine's node table.
func (e Engine) nodes() map[deployer.VM]vmNode {
	return map[deployer.VM]vmNode{
		deployer.EVM:  {start: func(ctx context.Context) (localnet.Rollup, error) { return StartEVM(ctx, e.EVMOptions...) }},
		deployer.Wasm: {start: func(ctx context.Context) (localnet.Rollup, error) { return StartWasm(ctx, e.CosmosOptions...) }},
		deployer.Move: {
			available: func() error { _, err := movevm.OpenVM(movevm.Dir()); return err },
			start:     func(ctx context.Context) (localnet.Rollup, error) { return StartMove(ctx, e.CosmosOptions...) },
		},
	}
}
