package l1

import (
	"context"
	"testing"
	"time"
)

// An L1 started again on its data dir is the same chain at the stage it had, and its agent
// (the kept mnemonic's) moves it on; --stage is for a new chain only.
func TestKeptInADataDir(t *testing.T) {
	requireLibs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	start := func(stage uint64) *Server {
		t.Helper()
		s, err := Start(ctx, WithStage(stage), WithDataDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	s := start(3)
	if s.Resumed() {
		t.Fatal("a new data dir resumed a chain")
	}
	if st, err := s.Advance(ctx); err != nil || st != 4 {
		t.Fatalf("advance: %d, %v", st, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	again := start(1)
	if !again.Resumed() {
		t.Fatal("the kept chain was not resumed")
	}
	if st, err := again.Stage(ctx); err != nil || st != 4 {
		t.Fatalf("stage after the restart: %d, %v; want 4", st, err)
	}
	if st, err := again.Advance(ctx); err != nil || st != 5 {
		t.Fatalf("the kept agent's advance: %d, %v", st, err)
	}
}
