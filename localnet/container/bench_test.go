package container

import (
	"context"
	"testing"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/process"
)

// BenchmarkStartGethContainer is start-to-ready of the geth container (image build from
// the cached layer, create, start, readiness line, first JSON-RPC answer) and its removal.
func BenchmarkStartGethContainer(b *testing.B) { benchStart(b, Engine{}, vip.EVM) }

// BenchmarkStartWasmdContainer is start-to-ready of the wasmd container (host-side init
// and genesis, image from the layer cache, first block, REST answer) and its removal.
func BenchmarkStartWasmdContainer(b *testing.B) { benchStart(b, Engine{}, vip.Wasm) }

// BenchmarkStartDevNodeContainer is start-to-ready of our dev node binary in a container
// (image from the layer cache, ready line) and its removal.
func BenchmarkStartDevNodeContainer(b *testing.B) {
	benchStart(b, Engine{Node: process.DevNode}, vip.Wasm)
}

// benchStart is start-to-ready of vm's node in a container on e, and its removal.
func benchStart(b *testing.B, e Engine, vm vip.VM) {
	ctx := context.Background()
	if err := e.Available(ctx, vm); err != nil {
		b.Skip(err)
	}
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
