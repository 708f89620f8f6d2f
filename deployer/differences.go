package deployer

import (
	"context"
	"fmt"

	"github.com/vipharness/vipharness/deployer/scores"
)

// Differences reads stage page by page against want and returns what must be written for
// the stage to hold want: every entry of want whose row differs or is missing and, with
// zeroUnlisted, a zero for every nonzero row that want does not list. It is nil when the
// stage already holds want. The exact sum of the stage's rows comes with it. Beside want it keeps
// one bit per entry and the differences, never the rows read.
func Differences(ctx context.Context, r scores.StagePager, stage uint64, want *scores.Set, zeroUnlisted bool) (*scores.Set, scores.Total, error) {
	if want == nil {
		want = &scores.Set{}
	}
	b := scores.NewBuilder(r.Codec())
	seen := make([]uint64, (want.Len()+63)/64)
	var sum scores.Total
	rows := 0
	err := r.ScorePages(ctx, stage, func(page []scores.Row) error {
		rows += len(page)
		for _, row := range page {
			sum.Add(row.Amount)
			addr := row.Addr
			i, listed := want.Find(addr)
			if !listed {
				if zeroUnlisted && row.Amount != 0 {
					b.AddBytes(addr, 0)
				}
				continue
			}
			seen[i/64] |= 1 << (i % 64)
			if _, score := want.At(i); score != row.Amount {
				b.AddBytes(addr, score)
			}
		}
		return nil
	})
	if err != nil {
		return nil, scores.Total{}, fmt.Errorf("read stage %d: %w", stage, err)
	}
	if rows == 0 && want.Len() > 0 {
		return want, scores.Total{}, nil // an empty stage takes the whole set: no copy of it
	}
	for i := range want.Len() {
		if seen[i/64]&(1<<(i%64)) == 0 {
			b.AddBytes(want.At(i))
		}
	}
	if b.Len() == 0 {
		return nil, sum, nil
	}
	d, err := b.Finish()
	if err != nil {
		return nil, scores.Total{}, fmt.Errorf("read stage %d: %w", stage, err)
	}
	return d, sum, nil
}
