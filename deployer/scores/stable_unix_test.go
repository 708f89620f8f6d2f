//go:build unix

package scores

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFileRefusesAPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	// No writer: a read would block, so the refusal must come before the open.
	err := ReadFile(path, "", func(Entry) { t.Fatal("an entry from a pipe") })
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("got %v; want a refusal naming the pipe", err)
	}
}
