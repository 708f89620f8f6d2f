package container

import (
	"context"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/minitia/nodetest"
	"github.com/vipharness/vipharness/localnet/process"
)

// The dev node image, Move and Wasm, passes the minitia node suite as the in-process app and
// the dev node process do: the same chain, reached only through the ports Docker publishes.
func TestDevNodeContainerPassesTheNodeSuite(t *testing.T) {
	e := Engine{WasmNode: process.DevNode}
	for _, n := range []nodetest.Node{{VM: deployer.Move, ChainID: embedded.DefaultMoveChainID}, {VM: deployer.Wasm, ChainID: embedded.DefaultWasmChainID}} {
		t.Run(string(n.VM), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			requireDocker(t, ctx, e, n.VM)
			cancel()
			n.Start = func(t *testing.T) localnet.Rollup {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				r, err := e.StartRollup(ctx, n.VM)
				if err != nil {
					t.Fatalf("start the %s dev node container: %v", n.VM, err)
				}
				return r
			}
			nodetest.Run(t, n)
		})
	}
}
