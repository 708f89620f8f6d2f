package journal

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Push is a push journal found on disk.
type Push struct {
	Path  string
	Begin Record
}

// FindPushes lists the push journals below dir of contract (on any chain) whose input
// fingerprint is input, newest plan first.
func FindPushes(dir, contract, input string) ([]Push, error) {
	short := input
	if len(short) > 16 {
		short = short[:16]
	}
	pattern := filepath.Join(dir, "*", sanitize(strings.ToLower(contract)), "stage-*-"+short+".jsonl")
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("find journals %s: %w", pattern, err)
	}
	var out []Push
	for _, p := range paths {
		b, ok, err := ReadBegin(p)
		if err != nil {
			return nil, err
		}
		if ok && b.Input == input {
			out = append(out, Push{Path: p, Begin: b})
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].Begin.Time.After(out[k].Begin.Time) })
	return out, nil
}

// ReadBegin reads the plan of the journal at path from its first line only, without folding
// the rest (a million-address push journals thousands of lines); ok is false when the
// journal has no complete first record.
func ReadBegin(path string) (Record, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return Record{}, false, fmt.Errorf("read journal %s: %w", path, err)
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil {
		if errors.Is(err, io.EOF) { // empty, or a torn first line: no plan was made
			return Record{}, false, nil
		}
		return Record{}, false, fmt.Errorf("read journal %s: %w", path, err)
	}
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return Record{}, false, fmt.Errorf("journal %s line 1: %w", path, err)
	}
	return r, r.Op == OpBegin, nil
}
