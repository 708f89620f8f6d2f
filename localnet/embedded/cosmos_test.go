package embedded

import (
	"context"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitia/nodetest"
)

// The embedded Move and Wasm rollups pass the minitia node suite, each with its defaults.
func TestCosmosRollupsPassTheNodeSuite(t *testing.T) {
	for _, vm := range []deployer.VM{deployer.Move, deployer.Wasm} {
		t.Run(string(vm), func(t *testing.T) {
			if vm == deployer.Move {
				needMoveVM(t)
			}
			def := cosmosDefaults[vm]
			nodetest.Run(t, nodetest.Node{VM: vm, ChainID: def.ChainID, Version: def.Version,
				Start: func(t *testing.T) localnet.Rollup {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					r, err := StartCosmos(ctx, vm)
					if err != nil {
						t.Fatalf("start the %s rollup: %v", vm, err)
					}
					return r
				}})
		})
	}
}
