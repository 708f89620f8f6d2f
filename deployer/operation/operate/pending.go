package operate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/scores"
)

// pending is a push the operator started: the exact set handed to UpdateSet, saved before
// it runs, so that a restart resumes that push through its journal (the same set finds the
// same journal) instead of sending a recomputed one beside it.
type pending struct {
	stage uint64
	set   *scores.Set
}

// pendingRecord is the pending file: the stage, and the set's scores in a CSV file beside
// it (canonical order, written a page at a time). Entries is the form of an older vipctl,
// which kept the entries in the record itself; it is still read.
type pendingRecord struct {
	Stage   uint64         `json:"stage"`
	Scores  string         `json:"scores,omitempty"`
	Entries []scores.Entry `json:"entries,omitempty"`
}

type pendingFile struct{ path string }

// scoresPath is the CSV file of the pending set.
func (p pendingFile) scoresPath() string { return strings.TrimSuffix(p.path, ".json") + ".csv" }

func (p pendingFile) load(codec scores.Codec) (*pending, error) {
	b, err := os.ReadFile(p.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read pending push %s: %w", p.path, err)
	}
	var rec pendingRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("read pending push %s: %w", p.path, err)
	}
	var set *scores.Set
	if rec.Scores != "" {
		set, err = scores.LoadSet(filepath.Join(filepath.Dir(p.path), rec.Scores), string(scores.CSV), codec)
	} else {
		set, err = scores.NewSet(rec.Entries, codec)
	}
	if err != nil {
		return nil, fmt.Errorf("read pending push %s: %w", p.path, err)
	}
	return &pending{stage: rec.Stage, set: set}, nil
}

// save writes the set, then the record naming it, each atomically and durably (temporary
// file, fsync, rename, folder sync).
func (p pendingFile) save(stage uint64, set *scores.Set) error {
	if err := journal.WriteFileDurably(p.scoresPath(), 0o666, set.WriteCSV); err != nil {
		return fmt.Errorf("save pending push: %w", err)
	}
	b, err := json.Marshal(pendingRecord{Stage: stage, Scores: filepath.Base(p.scoresPath())})
	if err != nil {
		return fmt.Errorf("save pending push: %w", err)
	}
	if err := journal.WriteFileDurably(p.path, 0o666, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("save pending push: %w", err)
	}
	return nil
}

func (p pendingFile) clear() error {
	for _, path := range []string{p.path, p.scoresPath()} {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("clear pending push: %w", err)
		}
	}
	return journal.SyncDir(filepath.Dir(p.path))
}
