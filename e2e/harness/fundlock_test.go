package harness

import (
	"context"
	"os"
	"sync"
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
	if left, _ := os.ReadDir(os.TempDir()); len(left) != 0 {
		t.Fatalf("the lock left %d files behind", len(left))
	}
}

// Holders that come and go while others wait never hold the lock together, though each
// holder removes the lock file before it unlocks.
func TestLockFunderExcludesAcrossRemovals(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ctx := context.Background()
	var (
		mu      sync.Mutex
		holders int
		wg      sync.WaitGroup
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				unlock, err := lockFunder(ctx, "0xFunder")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				holders++
				if holders != 1 {
					t.Errorf("%d holders at once", holders)
				}
				mu.Unlock()
				time.Sleep(time.Millisecond)
				mu.Lock()
				holders--
				mu.Unlock()
				unlock()
			}
		}()
	}
	wg.Wait()
}
