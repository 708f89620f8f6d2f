package process

import (
	"context"
	"testing"

	"github.com/vipharness/vipharness/deployer/vip"
)

// BenchmarkStartGeth is start-to-ready of geth --dev as a child process (genesis, init,
// start, first JSON-RPC answer) and its stop.
func BenchmarkStartGeth(b *testing.B) { benchStart(b, Engine{}, vip.EVM) }

// BenchmarkStartWasmd is start-to-ready of a single-validator wasmd chain as a child
// process (init, genesis, gentx, start, first block, REST answer) and its stop.
func BenchmarkStartWasmd(b *testing.B) { benchStart(b, Engine{}, vip.Wasm) }

// BenchmarkStartDevNode is start-to-ready of our dev node binary as a child process (ready
// line with its endpoints) and its stop.
func BenchmarkStartDevNode(b *testing.B) { benchStart(b, Engine{Node: DevNode}, vip.Wasm) }

// benchStart is start-to-ready of vm's node on e, and its stop.
func benchStart(b *testing.B, e Engine, vm vip.VM) {
	if err := e.Available(context.Background(), vm); err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	for b.Loop() {
		r, err := e.StartRollup(ctx, vm)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
