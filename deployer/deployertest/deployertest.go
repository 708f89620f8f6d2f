// Package deployertest is an in-memory scoring contract for tests of code written over the
// views of a deployer.Scorer (guard, operate): it keeps the rules every VM's contract shares (one open stage; finalizing
// N opens N+1; a finalized or missing stage refuses updates and a second finalize) and counts
// every write, so a test can assert that a retry sent nothing.
package deployertest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
)

// ErrFinalized is the contract's refusal to touch a finalized stage.
var ErrFinalized = errors.New("stage finalized")

// Scorer is an in-memory stand-in for a deployer.Scorer holding EVM-style addresses.
type Scorer struct {
	mu        sync.Mutex
	open      uint64
	stages    map[uint64]map[string]uint64
	finalized map[uint64]bool
	finalTx   map[uint64]string

	// Updates and Finalizes count the writes that reached the contract.
	Updates   int
	Finalizes int
	// Written counts the entries written by successful updates.
	Written int
	// FailNext makes the next write fail with this error (and change nothing).
	FailNext error
}

var (
	_ scores.StageReader   = (*Scorer)(nil)
	_ deployer.StageCloser = (*Scorer)(nil)
)

// New returns a contract whose open stage is initStage.
func New(initStage uint64) *Scorer {
	return &Scorer{open: initStage, stages: map[uint64]map[string]uint64{initStage: {}},
		finalized: map[uint64]bool{}, finalTx: map[uint64]string{}}
}

func (m *Scorer) VM() vip.VM                            { return vip.EVM }
func (m *Scorer) Contract() string                      { return "0x00000000000000000000000000000000000000c0" }
func (m *Scorer) CheckAddress(a string) (string, error) { return scores.CheckEVMAddress(a) }
func (m *Scorer) Codec() scores.Codec                   { return scores.EVMCodec{} }
func (m *Scorer) Deploy(context.Context, uint64, ...deployer.DeployOption) (vip.Deployment, error) {
	return vip.Deployment{}, errors.New("deployertest: already deployed")
}

// Plan validates entries and reports one chunk.
func (m *Scorer) Plan(_ context.Context, stage uint64, entries []scores.Entry) (deployer.Plan, error) {
	canonical, err := scores.Validate(entries, m.CheckAddress)
	if err != nil {
		return deployer.Plan{}, err
	}
	return deployer.Plan{Stage: stage, Entries: len(canonical), Chunks: 1, ChunkSize: len(canonical)}, nil
}

// PlanSet reports one chunk of a validated set.
func (m *Scorer) PlanSet(ctx context.Context, stage uint64, set *scores.Set) (deployer.Plan, error) {
	return m.Plan(ctx, stage, set.Entries(0, set.Len()))
}

// UpdateSet writes a validated set as UpdateScores does.
func (m *Scorer) UpdateSet(ctx context.Context, stage uint64, set *scores.Set) (push.Result, error) {
	return m.UpdateScores(ctx, stage, set.Entries(0, set.Len()))
}

// OpenStage is the stage that accepts updates.
func (m *Scorer) OpenStage(context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.open, nil
}

func (m *Scorer) takeFailure() error {
	err := m.FailNext
	m.FailNext = nil
	return err
}

// UpdateScores validates entries and writes them to an open stage.
func (m *Scorer) UpdateScores(_ context.Context, stage uint64, entries []scores.Entry) (push.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	canonical, err := scores.Validate(entries, m.CheckAddress)
	if err != nil {
		return push.Result{}, fmt.Errorf("update scores stage %d: %w", stage, err)
	}
	if err := m.takeFailure(); err != nil {
		return push.Result{}, err
	}
	st, ok := m.stages[stage]
	if !ok {
		return push.Result{}, fmt.Errorf("update scores stage %d: stage not found", stage)
	}
	if m.finalized[stage] {
		return push.Result{}, fmt.Errorf("update scores stage %d: %w", stage, ErrFinalized)
	}
	for _, e := range canonical {
		st[e.Addr] = e.Amount
	}
	m.Updates++
	m.Written += len(canonical)
	return push.Result{Stage: stage, Chunks: 1, Confirmed: 1}, nil
}

// UpdateCount is Updates, read under the lock (while another goroutine writes).
func (m *Scorer) UpdateCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.Updates
}

// FinalizeStage finalizes the open stage and opens the next.
func (m *Scorer) FinalizeStage(_ context.Context, stage uint64) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.takeFailure(); err != nil {
		return "", err
	}
	if m.finalized[stage] {
		return "", fmt.Errorf("finalize stage %d: %w", stage, ErrFinalized)
	}
	if stage != m.open {
		return "", fmt.Errorf("finalize stage %d: stage not found", stage)
	}
	m.finalized[stage] = true
	m.finalTx[stage] = fmt.Sprintf("0x%064x", 0xf1000+stage)
	m.open++
	m.stages[m.open] = map[string]uint64{}
	m.Finalizes++
	return m.finalTx[stage], nil
}

// FinalizeTx is the tx that finalized stage, as a chain's event index would report it.
func (m *Scorer) FinalizeTx(_ context.Context, stage uint64) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.finalTx[stage], nil
}

// StageInfo reads a stage.
func (m *Scorer) StageInfo(_ context.Context, stage uint64) (vip.StageInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.stages[stage]
	var total uint64
	for _, v := range st {
		total += v
	}
	return vip.StageInfo{Stage: stage, TotalScore: total, Finalized: m.finalized[stage], Exists: ok}, nil
}

// Scores reads a stage's rows in address order.
func (m *Scorer) Scores(_ context.Context, stage uint64) ([]scores.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []scores.Entry{}
	for a, v := range m.stages[stage] {
		out = append(out, scores.Entry{Addr: a, Amount: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out, nil
}

// ScorePages hands the stage's rows, in address order, in pages of up to 3.
func (m *Scorer) ScorePages(ctx context.Context, stage uint64, each func([]scores.Row) error) error {
	entries, err := m.Scores(ctx, stage)
	if err != nil {
		return err
	}
	return scores.PageEntries(entries, m.Codec(), 3, each)
}

// Finalized reports whether stage is finalized.
func (m *Scorer) Finalized(stage uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.finalized[stage]
}

// L1 is a settable L1 stage.
type L1 struct {
	mu    sync.Mutex
	stage uint64
	// Err, when set, is returned by Stage.
	Err error
}

// NewL1 returns an L1 at stage.
func NewL1(stage uint64) *L1 { return &L1{stage: stage} }

// Stage reports the L1's stage.
func (l *L1) Stage(context.Context) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Err != nil {
		return 0, l.Err
	}
	return l.stage, nil
}

// Set moves the L1 to stage.
func (l *L1) Set(stage uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stage = stage
}
