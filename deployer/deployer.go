// Package deployer is the VM-neutral face of a VIP scoring contract: one Scorer per VM
// (deployer/evm, deployer/move, deployer/wasm) deploys it at a stage, pushes scores in
// journaled chunks, finalizes stages and reads them back.
package deployer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
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

// Scorer is a scoring contract on one chain, seen through one VM's deployer.
type Scorer interface {
	VM() VM
	// Contract is the contract's address ("" before Deploy or Attach).
	Contract() string
	// CheckAddress validates an address for this VM and returns its canonical form.
	CheckAddress(addr string) (string, error)
	// Deploy creates the contract with initStage as its first open stage, journaled and
	// retry-safe (RunDeploy): a re-run finishes a deploy an earlier run sent, and a deployer
	// with a healthy deployment gets it back (StatusAlready) unless AnotherDeployment.
	Deploy(ctx context.Context, initStage uint64, opts ...DeployOption) (Deployment, error)
	// Codec is how the VM writes account addresses: CheckAddress is its Decode then Encode.
	Codec() scores.Codec
	// Plan validates entries against the contract and chain limits and returns the chunks
	// an update would send, without sending anything.
	Plan(ctx context.Context, stage uint64, entries []scores.Entry) (Plan, error)
	// PlanSet is Plan of a set validated already (scores.LoadSet, scores.NewSet).
	PlanSet(ctx context.Context, stage uint64, set *scores.Set) (Plan, error)
	// UpdateScores validates entries, then pushes them in journaled chunks; a re-run with the
	// same input resumes.
	UpdateScores(ctx context.Context, stage uint64, entries []scores.Entry) (push.Result, error)
	// UpdateSet is UpdateScores of a set validated already: the way for large sets, which
	// are then never held as text.
	UpdateSet(ctx context.Context, stage uint64, set *scores.Set) (push.Result, error)
	// FinalizeStage finalizes stage and so opens stage+1; it returns the tx hash.
	FinalizeStage(ctx context.Context, stage uint64) (string, error)
	StageInfo(ctx context.Context, stage uint64) (StageInfo, error)
	// Scores reads every (address, score) of a stage, paging through the contract.
	Scores(ctx context.Context, stage uint64) ([]scores.Entry, error)
	// ScorePages reads a stage page by page, in the contract's order, handing each page to
	// each (which must not keep it) and stopping at its first error.
	ScorePages(ctx context.Context, stage uint64, each func(page []scores.Entry) error) error
	// OpenStage is the stage that accepts updates now.
	OpenStage(ctx context.Context) (uint64, error)
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
