package operate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/scores"
)

// pending is a push the operator started: the exact entries handed to UpdateScores, saved
// before it runs, so that a restart resumes that push through its journal (the same input
// finds the same journal) instead of sending a recomputed one beside it.
type pending struct {
	Stage   uint64         `json:"stage"`
	Entries []scores.Entry `json:"entries"`
}

type pendingFile struct{ path string }

func (p pendingFile) load() (*pending, error) {
	b, err := os.ReadFile(p.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read pending push %s: %w", p.path, err)
	}
	var out pending
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("read pending push %s: %w", p.path, err)
	}
	return &out, nil
}

// save writes atomically and durably: temp file, fsync, rename, fsync of the directory.
func (p pendingFile) save(v pending) error {
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		return fmt.Errorf("save pending push: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("save pending push: %w", err)
	}
	tmp := p.path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("save pending push: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("save pending push: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("save pending push: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save pending push: %w", err)
	}
	if err := os.Rename(tmp, p.path); err != nil {
		return fmt.Errorf("save pending push: %w", err)
	}
	return journal.SyncDir(filepath.Dir(p.path))
}

func (p pendingFile) clear() error {
	if err := os.Remove(p.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("clear pending push: %w", err)
	}
	return journal.SyncDir(filepath.Dir(p.path))
}
