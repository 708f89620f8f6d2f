package embedded

import (
	"context"
	"testing"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/minitia/nodetest"
)

// The embedded Move and Wasm rollups pass the minitia node suite, each with its defaults.
func TestCosmosRollupsPassTheNodeSuite(t *testing.T) {
	for _, vm := range []vip.VM{vip.Move, vip.Wasm} {
		t.Run(string(vm), func(t *testing.T) {
			if vm == vip.Move {
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

// The node's height and block time are the app's committed block's, what queries and
// simulations read, never the block CometBFT has stored but the app not yet run: abci_info
// (the app's own last height) read before and after brackets them, and the block's header
// carries that time.
func TestCosmosNodeHeightIsTheAppsCommittedBlock(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := StartCosmos(ctx, vip.Wasm, func(c *minitia.Config) { c.BlockTime = 50 * time.Millisecond })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	rpc, err := rpchttp.New(r.Endpoints().CometRPC, "/websocket")
	if err != nil {
		t.Fatal(err)
	}
	appHeight := func() int64 {
		info, err := rpc.ABCIInfo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.Response.LastBlockHeight
	}
	n := r.Node()
	for seen := int64(0); seen < 20; {
		before := appHeight()
		h, at := n.Height(), n.BlockTime()
		if n.Height() != h {
			continue // a block came between the two reads: its time is not h's
		}
		after := appHeight()
		if h < before || h > after {
			t.Fatalf("node height %d outside the app's %d..%d", h, before, after)
		}
		if h == 0 {
			if !at.IsZero() {
				t.Fatalf("block time %s before the first block", at)
			}
			continue
		}
		hdr, err := rpc.Header(ctx, &h)
		if err != nil {
			t.Fatal(err)
		}
		if !hdr.Header.Time.Equal(at) {
			t.Fatalf("block %d: node time %s, header %s", h, at, hdr.Header.Time)
		}
		seen = max(seen, h)
	}
}
