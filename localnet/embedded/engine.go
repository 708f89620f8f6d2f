// Package embedded runs local rollups inside the test process, each on the minitia
// application with CometBFT in process: the EVM rollup as a minievm is built (minievm's x/evm
// over go-ethereum's interpreter), the Wasm rollup with wasmd's x/wasm, the Move rollup with
// x/move over libmovevm. With EVMOnGeth the EVM rollup is go-ethereum's simulated chain
// instead, for what only it can do (move its clock).
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
	// CosmosOptions configure the rollups on the minitia application: every VM's unless
	// EVMOnGeth is set, then Wasm's and Move's.
	CosmosOptions []CosmosOption
	// EVMOptions configure the EVM rollup on go-ethereum's chain (EVMOnGeth).
	EVMOptions []EVMOption
	// BlockTime is the minitia rollups' interval between blocks (0: the minitia package's
	// fast default); set, it names the engine apart ("embedded-500ms").
	BlockTime time.Duration
	// EVMOnGeth runs the EVM rollup on go-ethereum's simulated chain (StartGeth) with
	// stand-in Cosmos and CometBFT faces, instead of on the minitia application; it names
	// the engine apart ("embedded-geth").
	EVMOnGeth bool
}

var _ localnet.Engine = Engine{}

// Name is "embedded", with "-geth" for the geth EVM and the block time when one is set.
func (e Engine) Name() string {
	name := "embedded"
	if e.EVMOnGeth {
		name += "-geth"
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
			if e.EVMOnGeth {
				return StartGeth(ctx, e.EVMOptions...)
			}
			return StartEVM(ctx, e.cosmosOptions()...)
		}},
		vip.Wasm: {start: func(ctx context.Context) (localnet.Rollup, error) { return StartWasm(ctx, e.cosmosOptions()...) }},
		vip.Move: {
			available: func() error { _, err := movevm.OpenVM(movevm.Dir()); return err },
			start:     func(ctx context.Context) (localnet.Rollup, error) { return StartMove(ctx, e.cosmosOptions()...) },
		},
	}
}
