// Package embedded runs local rollups inside the test process: the EVM rollup on
// go-ethereum's simulated chain (or, with EVMOnMinitia, on the minitia application as a
// minievm is built), the Wasm and Move rollups on the minitia application (wasmd's x/wasm,
// x/move over libmovevm) with CometBFT in process.
package embedded

import (
	"context"
	"fmt"
	"time"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// Engine starts in-process rollups.
type Engine struct {
	EVMOptions []EVMOption
	// CosmosOptions configure the Wasm and Move rollups.
	CosmosOptions []CosmosOption
	// BlockTime is the Wasm and Move rollups' interval between blocks (0: the minitia
	// package's fast default); set, it names the engine apart ("embedded-500ms").
	BlockTime time.Duration
	// EVMOnMinitia runs the EVM rollup on the minitia application, as a minievm is built
	// (StartEVMOnMinitia), instead of go-ethereum's chain; it names the engine apart
	// ("embedded-minitia-evm").
	EVMOnMinitia bool
}

var _ localnet.Engine = Engine{}

// Name is "embedded", with the block time when one is set.
func (e Engine) Name() string {
	name := "embedded"
	if e.EVMOnMinitia {
		name += "-minitia-evm"
	}
	if e.BlockTime > 0 {
		name += "-" + e.BlockTime.String()
	}
	return name
}

// cosmosOptions are the options of a Wasm or Move rollup: the block time, then the rest.
func (e Engine) cosmosOptions() []CosmosOption {
	if e.BlockTime <= 0 {
		return e.CosmosOptions
	}
	return append([]CosmosOption{WithBlockTime(e.BlockTime)}, e.CosmosOptions...)
}

// Available is nil for EVM and Wasm (linked in); Move needs Initia's MoveVM library.
func (e Engine) Available(_ context.Context, vm vip.VM) error {
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
func (e Engine) StartRollup(ctx context.Context, vm vip.VM) (localnet.Rollup, error) {
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
func (e Engine) nodes() map[vip.VM]vmNode {
	return map[vip.VM]vmNode{
		vip.EVM: {start: func(ctx context.Context) (localnet.Rollup, error) {
			if e.EVMOnMinitia {
				return StartEVMOnMinitia(ctx, e.cosmosOptions()...)
			}
			return StartEVM(ctx, e.EVMOptions...)
		}},
		vip.Wasm: {start: func(ctx context.Context) (localnet.Rollup, error) { return StartWasm(ctx, e.cosmosOptions()...) }},
		vip.Move: {
			available: func() error { _, err := movevm.OpenVM(movevm.Dir()); return err },
			start:     func(ctx context.Context) (localnet.Rollup, error) { return StartMove(ctx, e.cosmosOptions()...) },
		},
	}
}
