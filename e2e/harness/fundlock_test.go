package harness

import (
	"context"
	"testing"
	"time"
)

func TestLockFunderExcludesASecondHolder(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ctx := context.Background()
	account := "0xFunder"
	unlock, err := lockFunder(ctx, account)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if u, err := lockFunder(short, account); err == nil {
		u()
		t.Fatal("a second holder took the funder's lock while the first held it")
	}
	unlock()
	again, err := lockFunder(ctx, account)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	again()
}
