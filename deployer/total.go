package deployer

import (
	"context"
	"fmt"

	"github.com/vipharness/vipharness/deployer/scores"
)

// CheckTotal refuses an update of stage with set, before anything is sent, when the stage's
// total score would pass the u64 limit at any entry as the contract applies them in order
// (each entry takes its address's old score off the total and adds its new one). The sum of
// set and the stage's total on chain decide it at once when they fit together; only then
// are the stage's rows read, for the exact running total. The error is a
// *TotalOverflowError.
func CheckTotal(ctx context.Context, r scores.StageReader, stage uint64, set *scores.Set) error {
	info, err := r.StageInfo(ctx, stage)
	if err != nil {
		return fmt.Errorf("update scores stage %d: read the stage's total: %w", stage, err)
	}
	bound := scores.TotalOf(info.TotalScore)
	for i := range set.Len() {
		_, v := set.At(i)
		bound.Add(v)
	}
	if bound.Fits() {
		return nil // the old scores only lower it
	}
	old := make([]uint64, set.Len())
	err = r.ScorePages(ctx, stage, func(page []scores.Row) error {
		for _, row := range page {
			if i, ok := set.Find(row.Addr); ok {
				old[i] = row.Amount
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("update scores stage %d: read the stage's scores: %w", stage, err)
	}
	running := scores.TotalOf(info.TotalScore)
	for i := range set.Len() {
		addr, v := set.At(i)
		running.Sub(old[i])
		running.Add(v)
		if !running.Fits() {
			return &TotalOverflowError{Stage: stage, Total: running, Entry: set.Position(i) + 1, Addr: set.Codec().Encode(addr)}
		}
	}
	return nil
}
