package container

import (
	"context"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/minitia/nodetest"
	"github.com/vipharness/vipharness/localnet/process"
)

// The dev node image, Move and Wasm, passes the minitia node suite as the in-process app and
// the dev node process do: the same chain, reached only through the ports Docker publishes.
func TestDevNodeContainerPassesTheNodeSuite(t *testing.T) {
	e := Engine{WasmNode: process.DevNode}
	for _, n := range []nodetest.Node{{VM: vip.Move, ChainID: embedded.DefaultMoveChainID}, {VM: vip.Wasm, ChainID: embedded.DefaultWasmChainID}} {
		t.Run(string(n.VM), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			requireDocker(t, ctx, e, n.VM)
			cancel()
			n.Start = nodetest.StartOn(e, n.VM)
			nodetest.Run(t, n)
		})
	}
}
