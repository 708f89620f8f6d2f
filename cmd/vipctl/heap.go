package main

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// heapHeadroom is the garbage a bounded command lets pile up between collections: a few
// chunks' worth (their txs, journal lines and replies). Collections are cheap here: a set's
// records hold no pointers, so the collector does not scan them.
const heapHeadroom = 8 << 20

// boundHeap sets a soft memory limit for a command that holds a large score set for
// minutes (scores update, verify): Go's default pacing (GOGC=100) lets the heap grow to
// twice what is live before it collects, which at a million addresses is another ~50 MB of
// garbage beside a 32 MB set, for nothing. The limit is what the runtime holds in use now,
// plus expect (what the command is about to keep live), plus heapHeadroom, so the collector
// runs sooner instead. It is soft: a heap that needs more goes over it rather than fail,
// the collector then taking at most about half the CPU. A GOMEMLIMIT the user set wins.
func boundHeap(expect int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(runtimeInUse() + expect + heapHeadroom)
}

// settleHeap collects once, so that what is live now (a set just loaded, without the
// garbage of reading it) is what boundHeap counts.
func settleHeap() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	runtime.GC()
	boundHeap(0)
}

// runtimeInUse is the memory the Go runtime holds and uses, as its memory limit counts it,
// less the free heap it keeps.
func runtimeInUse() int64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64() - s[2].Value.Uint64())
}

// scoreFileSize is what a score file's set will keep live: its records take about five
// eighths of the file's CSV text (a 51-byte line of a 20-byte address and a 6-digit score
// is a 32-byte record; a 72-byte line of a 32-byte bech32 address a 44-byte one), less of
// JSON's; 0 when the file cannot be read (loading it reports why). An estimate a little
// short only makes the collector work harder at the end of the load.
func scoreFileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size() * 5 / 8
}

// followHeap keeps the soft memory limit of a long-running command (operate) at what the
// last collection found live, plus the runtime's own memory and heapHeadroom, re-read every
// interval until ctx ends: the operator loads a stage's set, pushes it, then holds little
// until its next read, and Go's default pacing would let the heap grow to twice the set at
// each step. Between two reads a growing heap makes the collector run sooner (records hold
// no pointers: cheap), never fail. A GOMEMLIMIT the user set wins.
func followHeap(ctx context.Context, every time.Duration) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				debug.SetMemoryLimit(liveLimit())
			}
		}
	}()
}

// liveLimit is the runtime's memory in use with the heap counted as the last collection
// found it live (not the garbage since), plus heapHeadroom.
func liveLimit() int64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	metrics.Read(s)
	return runtimeInUse() - int64(s[0].Value.Uint64()) + int64(s[1].Value.Uint64()) + heapHeadroom
}
