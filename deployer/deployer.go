// Package deployer is the VM-neutral face of a VIP scoring contract: one Scorer type over
// a per-VM Contract (deployer/vm/evm, deployer/vm/move, deployer/vm/wasm) deploys it at a stage,
// pushes scores in journaled chunks, finalizes stages and reads them back.
package deployer

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vipharness/vipharness/deployer/journal"
)

// Plan is what an update would send; nothing is sent to make it.
type Plan struct {
	Stage        uint64 `json:"stage"`
	Entries      int    `json:"entries"`
	Chunks       int    `json:"chunks"`
	ChunkSize    int    `json:"chunk_size"`
	EstimatedGas uint64 `json:"estimated_gas"` // upper bound for all chunks
	AlreadyDone  int    `json:"already_done"`  // chunks a journal already holds as confirmed
	Journal      string `json:"journal"`
}

// MakePlan cuts a set of entries into chunks of size and counts the chunks the journal at
// path already holds as confirmed; gasLimit(n) is the gas limit a chunk of n entries is
// signed with.
func MakePlan(stage uint64, entries, size int, path string, gasLimit func(n int) uint64) Plan {
	chunks := (entries + size - 1) / size
	plan := Plan{Stage: stage, Entries: entries, Chunks: chunks, ChunkSize: size, Journal: path}
	for i := range chunks {
		plan.EstimatedGas += gasLimit(min(size, entries-i*size))
	}
	if _, err := os.Stat(path); err != nil {
		return plan // nothing journaled yet; a plan creates no file
	}
	if j, err := journal.Open(path); err == nil {
		for i := range chunks {
			if j.Chunk(i).Confirmed {
				plan.AlreadyDone++
			}
		}
		j.Close()
	}
	return plan
}

// JournalDir is the folder a Scorer journals in: dir made absolute (so a later change of
// working directory cannot move it), or journal.DefaultDir() when dir is "".
func JournalDir(dir string) (string, error) {
	if dir == "" {
		return journal.DefaultDir()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("journal folder %q: %w", dir, err)
	}
	return abs, nil
}
