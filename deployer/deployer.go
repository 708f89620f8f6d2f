// Package deployer is the VM-neutral face of a VIP scoring contract: one Scorer type over
// a per-VM Contract (deployer/vm/evm, deployer/vm/move, deployer/vm/wasm) deploys it at a stage,
// pushes scores in journaled chunks, finalizes stages and reads them back.
package deployer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vipharness/vipharness/deployer/journal"
)

// VM names the virtual machine kind of a rollup.
type VM string

const (
	EVM  VM = "evm"
	Move VM = "move"
	Wasm VM = "wasm"
)

// VMs lists every VM kind in a stable order.
var VMs = []VM{EVM, Move, Wasm}

// ParseVM accepts "evm", "move" or "wasm" (any case).
func ParseVM(s string) (VM, error) {
	switch v := VM(strings.ToLower(strings.TrimSpace(s))); v {
	case EVM, Move, Wasm:
		return v, nil
	}
	return "", fmt.Errorf("unknown vm %q: want evm, move or wasm", s)
}

// Deployment describes a deployed scoring contract.
type Deployment struct {
	VM        VM     `json:"vm"`
	ChainID   string `json:"chain_id"`
	Contract  string `json:"contract"`
	InitStage uint64 `json:"init_stage"`
	TxHash    string `json:"tx_hash"`
	Deployer  string `json:"deployer"`
	GasUsed   uint64 `json:"gas_used"`
	CodeID    uint64 `json:"code_id,omitempty"` // Wasm: the stored code instantiated
	// Status is StatusDeployed, StatusResumed (an earlier run's deploy finished) or
	// StatusAlready (nothing sent).
	Status string `json:"status,omitempty"`
}

// StageInfo is a stage as the contract holds it.
type StageInfo struct {
	Stage      uint64 `json:"stage"`
	TotalScore uint64 `json:"total_score"`
	Finalized  bool   `json:"finalized"`
	Exists     bool   `json:"exists"`
}

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
