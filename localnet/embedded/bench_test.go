package embedded

import (
	"context"
	"testing"
)

// BenchmarkStartEVM measures start-to-ready of the embedded EVM rollup (the minitia app
// with x/evm, CometBFT's first block, JSON-RPC serving) and its stop.
func BenchmarkStartEVM(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		r, err := StartEVM(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartGeth measures start-to-ready of the EVM rollup on go-ethereum's simulated
// chain (JSON-RPC serving, auto-mining armed) and its stop.
func BenchmarkStartGeth(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		r, err := StartGeth(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartWasm measures start-to-ready of the embedded Wasm rollup (the minitia app with
// x/wasm, CometBFT's first block, the API server answering) and its stop.
func BenchmarkStartWasm(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		r, err := StartWasm(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartMove measures start-to-ready of the embedded Move rollup (MoveVM allocated,
// framework genesis, RPC and REST serving) and its stop.
func BenchmarkStartMove(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		r, err := StartMove(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
