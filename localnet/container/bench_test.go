package container

import (
	"context"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet/process"
)

// BenchmarkStartGethContainer is start-to-ready of the geth container (image build from
// the cached layer, create, start, readiness line, first JSON-RPC answer) and its removal.
func BenchmarkStartGethContainer(b *testing.B) {
	ctx := context.Background()
	e := Engine{}
	if err := e.Available(ctx, deployer.EVM); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		r, err := e.StartRollup(ctx, deployer.EVM)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartWasmdContainer is start-to-ready of the wasmd container (host-side init
// and genesis, image from the layer cache, first block, REST answer) and its removal.
func BenchmarkStartWasmdContainer(b *testing.B) {
	ctx := context.Background()
	e := Engine{}
	if err := e.Available(ctx, deployer.Wasm); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		r, err := e.StartRollup(ctx, deployer.Wasm)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartDevNodeContainer is start-to-ready of our dev node binary in a container
// (image from the layer cache, ready line) and its removal.
func BenchmarkStartDevNodeContainer(b *testing.B) {
	ctx := context.Background()
	e := Engine{WasmNode: process.DevNode}
	if err := e.Available(ctx, deployer.Wasm); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		r, err := e.StartRollup(ctx, deployer.Wasm)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
