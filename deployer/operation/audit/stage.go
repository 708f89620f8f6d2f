// Package audit rebuilds the VIP snapshot (deployer/snapshot) of a finalized stage from the
// contract, page by page, and compares it with what the L1 holds: the root and total the
// agent submitted, and claims checked against their proofs.
package audit

import (
	"context"
	"errors"
	"fmt"

	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/snapshot"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Refusals of BuildFromStage.
var (
	ErrNotFinalized = errors.New("the stage is not finalized: its scores can still change")
	// ErrTotalsDiffer is a contract whose stage total is not the sum of its rows: the
	// agent's total and ours could then differ for reasons no tree explains.
	ErrTotalsDiffer = errors.New("the contract's stage total differs from the sum of its rows")
)

// BuildFromStage reads stage page by page and builds its tree for bridgeID. Each row is
// decoded with the VM's codec and kept as 40 bytes (32-byte address, score). A stage that
// is not finalized is refused unless allowOpen.
func BuildFromStage(ctx context.Context, r scores.StageReader, bridgeID, stage uint64, allowOpen bool) (*snapshot.Tree, vip.StageInfo, error) {
	info, err := r.StageInfo(ctx, stage)
	if err != nil {
		return nil, info, fmt.Errorf("audit stage %d: %w", stage, err)
	}
	if !info.Exists {
		return nil, info, fmt.Errorf("audit stage %d: %w", stage, vip.ErrStageMissing)
	}
	if !info.Finalized && !allowOpen {
		return nil, info, fmt.Errorf("audit stage %d: %w", stage, ErrNotFinalized)
	}
	codec := r.Codec()
	b := snapshot.NewBuilder(bridgeID, stage, 0)
	err = r.ScorePages(ctx, stage, func(page []scores.Row) error {
		for _, e := range page {
			if err := b.Add(e.Addr, e.Amount); err != nil {
				return fmt.Errorf("row of %q: %w", codec.Encode(e.Addr), err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, info, fmt.Errorf("audit stage %d: read back: %w", stage, err)
	}
	t, err := b.Build()
	if err != nil {
		return nil, info, fmt.Errorf("audit stage %d: %w", stage, err)
	}
	if t.Total != info.TotalScore {
		return t, info, fmt.Errorf("audit stage %d: contract total %d, rows sum to %d: %w", stage, info.TotalScore, t.Total, ErrTotalsDiffer)
	}
	return t, info, nil
}
