package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// serverGC tunes the garbage collector of a long-running localnet while its live heap is
// small: a collection when the heap has grown by twice what is live (GOGC=200) instead of
// once. The chains allocate per block and keep little: the EVM chain's CPU for a
// 20,000-address push fell by ~12% (BenchmarkBesideAnvil, one run beside the default). Once
// the live heap passes serverGCLiveHeap the default comes back for good, so a large chain
// (1,000,000 addresses) holds what it held before, and no heap limit can make the collector
// run without pause on one that outgrows it. GOGC set in the environment wins. It returns
// when ctx ends or the default is back.
func serverGC(ctx context.Context, live func() uint64) {
	if os.Getenv("GOGC") != "" {
		return
	}
	prev := debug.SetGCPercent(200)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if live() > serverGCLiveHeap {
			debug.SetGCPercent(prev)
			return
		}
	}
}

// serverGCLiveHeap is the live heap past which serverGC gives the default back.
const serverGCLiveHeap = 128 << 20

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
