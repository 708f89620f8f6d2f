package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func TestBoundHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // the test binary's own limit, restored
	for _, tc := range []struct {
		name, env string
		expect    int64
		bounded   bool
	}{
		{name: "bounded around what is in use", expect: 100 << 20, bounded: true},
		{name: "the user's GOMEMLIMIT wins", env: "1GiB", expect: 100 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", tc.env)
			debug.SetMemoryLimit(math.MaxInt64)
			boundHeap(tc.expect)
			got := debug.SetMemoryLimit(-1)
			if !tc.bounded {
				if got != math.MaxInt64 {
					t.Fatalf("limit %d set over the user's GOMEMLIMIT", got)
				}
				return
			}
			if lo := tc.expect + heapHeadroom; got < lo || got > lo+(1<<30) {
				t.Fatalf("limit %d, want what is in use plus %d", got, lo)
			}
		})
	}
}

func TestScoreFileSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	if err := os.WriteFile(path, make([]byte, 800), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := scoreFileSize(path); got != 500 {
		t.Fatalf("scoreFileSize = %d, want 500", got)
	}
	if got := scoreFileSize(filepath.Join(t.TempDir(), "missing.csv")); got != 0 {
		t.Fatalf("missing file: %d", got)
	}
}
