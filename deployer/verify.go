package deployer

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"slices"

	"github.com/vipharness/vipharness/deployer/scores"
)

// Mismatch is one address whose on-chain score differs from the input.
type Mismatch struct {
	Addr    string `json:"address"`
	Want    uint64 `json:"want"`
	Got     uint64 `json:"got"`
	Missing bool   `json:"missing"`
}

// Report compares a stage on chain with the score set that was pushed.
type Report struct {
	Stage   uint64 `json:"stage"`
	Input   int    `json:"input"`
	OnChain int    `json:"on_chain"`
	Matched int    `json:"matched"`
	Extra   int    `json:"extra"` // on-chain addresses not in the input (earlier pushes)
	// Mismatches lists the first MaxListed mismatches in input order; MismatchCount counts
	// them all (a stage read back before its push misses every input address).
	Mismatches    []Mismatch   `json:"mismatches,omitempty"`
	MismatchCount int          `json:"mismatch_count"`
	TotalScore    uint64       `json:"total_score"`
	InputTotal    scores.Total `json:"input_total"` // exact: a set may sum past u64
	Finalized     bool         `json:"finalized"`
	TotalsAgree   bool         `json:"totals_agree"` // the contract's total equals the exact sum of its rows
}

// MaxListed bounds the mismatches a Report lists.
const MaxListed = 1000

// OK is true when every input address holds its input score and the totals agree.
func (r Report) OK() bool { return len(r.Mismatches) == 0 && r.MismatchCount == 0 && r.TotalsAgree }

// Verify reads stage back and compares it with entries, validated for the contract's VM.
func Verify(ctx context.Context, s scores.StageReader, stage uint64, entries []scores.Entry) (Report, error) {
	set := &scores.Set{}
	if len(entries) > 0 {
		var err error
		if set, err = scores.NewSet(entries, s.Codec()); err != nil {
			return Report{}, fmt.Errorf("verify stage %d: %w", stage, err)
		}
	}
	return VerifySet(ctx, s, stage, set)
}

// VerifySet reads stage back page by page and compares each row with set as it arrives:
// beside the set it holds one bit per entry (seen on chain) and the listed mismatches, never
// the rows read back, so a million-address stage verifies in little more than its set.
func VerifySet(ctx context.Context, s scores.StageReader, stage uint64, set *scores.Set) (Report, error) {
	info, err := s.StageInfo(ctx, stage)
	if err != nil {
		return Report{}, fmt.Errorf("verify stage %d: %w", stage, err)
	}
	rep := Report{Stage: stage, Input: set.Len(), TotalScore: info.TotalScore, Finalized: info.Finalized}
	seen := make([]uint64, (set.Len()+63)/64)
	var misses missList
	var sum scores.Total // exact: rows that sum past u64 never agree with a wrapped total
	err = s.ScorePages(ctx, stage, func(page []scores.Row) error {
		for _, r := range page {
			rep.OnChain++
			sum.Add(r.Amount)
			i, ok := set.Find(r.Addr)
			if !ok || seen[i/64]&(1<<(i%64)) != 0 {
				rep.Extra++
				continue
			}
			seen[i/64] |= 1 << (i % 64)
			if _, want := set.At(i); want != r.Amount {
				misses.add(set, i, r.Amount, false)
				continue
			}
			rep.Matched++
		}
		return nil
	})
	if err != nil {
		return Report{}, fmt.Errorf("verify stage %d: %w", stage, err)
	}
	for i := range set.Len() {
		_, want := set.At(i)
		rep.InputTotal.Add(want)
		if seen[i/64]&(1<<(i%64)) == 0 {
			misses.add(set, i, 0, true)
		}
	}
	rep.TotalsAgree = sum.Equal(info.TotalScore)
	rep.MismatchCount = misses.n
	rep.Mismatches = misses.list(set)
	return rep, nil
}

// missList keeps the MaxListed mismatches first in input order (a max-heap by input
// position) and counts them all.
type missList struct {
	n    int
	heap []miss
}

type miss struct {
	pos, i  int
	got     uint64
	missing bool
}

func (l *missList) Len() int           { return len(l.heap) }
func (l *missList) Less(a, b int) bool { return l.heap[a].pos > l.heap[b].pos }
func (l *missList) Swap(a, b int)      { l.heap[a], l.heap[b] = l.heap[b], l.heap[a] }
func (l *missList) Push(x any)         { l.heap = append(l.heap, x.(miss)) }
func (l *missList) Pop() any {
	last := l.heap[len(l.heap)-1]
	l.heap = l.heap[:len(l.heap)-1]
	return last
}

func (l *missList) add(set *scores.Set, i int, got uint64, missing bool) {
	l.n++
	m := miss{pos: set.Position(i), i: i, got: got, missing: missing}
	if len(l.heap) < MaxListed {
		heap.Push(l, m)
		return
	}
	if m.pos < l.heap[0].pos {
		l.heap[0] = m
		heap.Fix(l, 0)
	}
}

func (l *missList) list(set *scores.Set) []Mismatch {
	slices.SortFunc(l.heap, func(a, b miss) int { return cmp.Compare(a.pos, b.pos) })
	var out []Mismatch
	for _, m := range l.heap {
		addr, want := set.At(m.i)
		out = append(out, Mismatch{Addr: set.Codec().Encode(addr), Want: want, Got: m.got, Missing: m.missing})
	}
	return out
}

// StageCloser finalizes the open stage of a contract (a Scorer is one).
type StageCloser interface {
	OpenStage(ctx context.Context) (uint64, error)
	FinalizeStage(ctx context.Context, stage uint64) (string, error)
}

// SyncStage finalizes the contract's open stages one by one until target is open. confirm
// is asked once with the stages to finalize; it returns false to stop without sending.
func SyncStage(ctx context.Context, s StageCloser, target uint64, confirm func(from, to uint64) bool) ([]uint64, error) {
	open, err := s.OpenStage(ctx)
	if err != nil {
		return nil, fmt.Errorf("sync stage: read open stage: %w", err)
	}
	if open > target {
		return nil, fmt.Errorf("sync stage: contract is at stage %d, ahead of the L1 stage %d", open, target)
	}
	if open == target {
		return nil, nil
	}
	if confirm != nil && !confirm(open, target-1) {
		return nil, fmt.Errorf("sync stage: not confirmed: stages %d..%d stay open", open, target-1)
	}
	var done []uint64
	for st := open; st < target; st++ {
		if _, err := s.FinalizeStage(ctx, st); err != nil {
			return done, fmt.Errorf("sync stage: finalize stage %d: %w", st, err)
		}
		done = append(done, st)
	}
	return done, nil
}
