package journal

import (
	"fmt"
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
		j, err := Open(p)
		if err != nil {
			return nil, err
		}
		b, ok := j.Begin()
		j.Close()
		if ok && b.Input == input {
			out = append(out, Push{Path: p, Begin: b})
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].Begin.Time.After(out[k].Begin.Time) })
	return out, nil
}
