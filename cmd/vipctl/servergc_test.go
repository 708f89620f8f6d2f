package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"
)

// gcPercent is the collector's current GOGC, read without setting it: reading it by
// SetGCPercent(-1) and back raced serverGC's own set, and could put 100 back over its 200.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// serverGC runs at GOGC=200 while the live heap is small, gives the default back (and
// returns) once it passes serverGCLiveHeap, and leaves GOGC alone when the environment sets
// it.
func TestServerGC(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gogcEnv string
		live    uint64
		grows   bool // the live heap passes the bound while it runs
		want    []int
	}{
		{name: "small heap", live: 10 << 20, want: []int{200}},
		{name: "heap grows past the bound", live: 10 << 20, grows: true, want: []int{200, 100}},
		{name: "GOGC set", gogcEnv: "50", live: 10 << 20, want: []int{100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogcEnv)
			defer debug.SetGCPercent(debug.SetGCPercent(100))
			var live atomic.Uint64
			live.Store(tc.live)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() { serverGC(ctx, live.Load); close(done) }()
			for i, want := range tc.want {
				if i > 0 && tc.grows {
					live.Store(serverGCLiveHeap + 1)
				}
				deadline := time.Now().Add(5 * time.Second)
				for gcPercent() != want {
					if time.Now().After(deadline) {
						t.Fatalf("GOGC %d after 5 s, want %d", gcPercent(), want)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			if tc.grows || tc.gogcEnv != "" {
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("serverGC still running after it gave the default back")
				}
			}
		})
	}
}
