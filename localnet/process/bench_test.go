package process

import (
	"context"
	"testing"

	"github.com/vipharness/vipharness/deployer"
)

// BenchmarkStartGeth is start-to-ready of geth --dev as a child process (genesis, init,
// start, first JSON-RPC answer) and its stop.
func BenchmarkStartGeth(b *testing.B) {
	e := Engine{}
	if err := e.Available(deployer.EVM); err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
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

// BenchmarkStartWasmd is start-to-ready of a single-validator wasmd chain as a child
// process (init, genesis, gentx, start, first block, REST answer) and its stop.
func BenchmarkStartWasmd(b *testing.B) {
	e := Engine{}
	if err := e.Available(deployer.Wasm); err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
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

// BenchmarkStartDevNode is start-to-ready of our dev node binary as a child process (ready
// line with its endpoints) and its stop.
func BenchmarkStartDevNode(b *testing.B) {
	e := Engine{WasmNode: DevNode}
	if err := e.Available(deployer.Wasm); err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
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
