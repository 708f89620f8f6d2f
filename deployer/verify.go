package deployer

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

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
	Stage       uint64     `json:"stage"`
	Input       int        `json:"input"`
	OnChain     int        `json:"on_chain"`
	Matched     int        `json:"matched"`
	Extra       int        `json:"extra"` // on-chain addresses not in the input (earlier pushes)
	Mismatches  []Mismatch `json:"mismatches,omitempty"`
	TotalScore  uint64     `json:"total_score"`
	InputTotal  uint64     `json:"input_total"`
	Finalized   bool       `json:"finalized"`
	TotalsAgree bool       `json:"totals_agree"` // the contract's total equals the sum of its rows
}

// OK is true when every input address holds its input score and the totals agree.
func (r Report) OK() bool { return len(r.Mismatches) == 0 && r.TotalsAgree }

// Verify reads stage back and compares it with entries (canonical, as validated).
func Verify(ctx context.Context, s Scorer, stage uint64, entries []scores.Entry) (Report, error) {
	info, err := s.StageInfo(ctx, stage)
	if err != nil {
		return Report{}, fmt.Errorf("verify stage %d: %w", stage, err)
	}
	rows, err := s.Scores(ctx, stage)
	if err != nil {
		return Report{}, fmt.Errorf("verify stage %d: %w", stage, err)
	}
	var sum uint64
	for _, r := range rows {
		sum += r.Amount
	}
	rep := Report{Stage: stage, Input: len(entries), OnChain: len(rows), TotalScore: info.TotalScore,
		Finalized: info.Finalized, TotalsAgree: sum == info.TotalScore}
	// Both sides in address order, walked together: an index per input entry instead of
	// maps over both sides, so a million-address stage verifies in little more memory than
	// its rows. Mismatches are reported in input order.
	in := make([]int32, len(entries))
	for i := range in {
		in[i] = int32(i)
	}
	slices.SortFunc(in, func(a, b int32) int { return strings.Compare(entries[a].Addr, entries[b].Addr) })
	slices.SortFunc(rows, func(a, b scores.Entry) int { return strings.Compare(a.Addr, b.Addr) })
	type miss struct {
		at int32
		m  Mismatch
	}
	var misses []miss
	k := 0
	for _, i := range in {
		e := entries[i]
		rep.InputTotal += e.Amount
		for k < len(rows) && rows[k].Addr < e.Addr {
			rep.Extra++
			k++
		}
		switch {
		case k == len(rows) || rows[k].Addr != e.Addr:
			misses = append(misses, miss{i, Mismatch{Addr: e.Addr, Want: e.Amount, Missing: true}})
			continue
		case rows[k].Amount != e.Amount:
			misses = append(misses, miss{i, Mismatch{Addr: e.Addr, Want: e.Amount, Got: rows[k].Amount}})
		default:
			rep.Matched++
		}
		k++
	}
	rep.Extra += len(rows) - k
	slices.SortFunc(misses, func(a, b miss) int { return cmp.Compare(a.at, b.at) })
	for _, m := range misses {
		rep.Mismatches = append(rep.Mismatches, m.m)
	}
	return rep, nil
}

// SyncStage finalizes the contract's open stages one by one until target is open. confirm
// is asked once with the stages to finalize; it returns false to stop without sending.
func SyncStage(ctx context.Context, s Scorer, target uint64, confirm func(from, to uint64) bool) ([]uint64, error) {
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
