package policy

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/scores"
)

// Difference is an address whose score the policy and the contract disagree on (0 where
// one of them has none).
type Difference struct {
	Addr             common.Address
	Policy, Contract uint64
	// OnChain says whether the contract holds a row for the address (a missing row and a
	// row of 0 both score 0).
	OnChain bool
}

// Comparison is a stage of the scoring contract set beside the policy's scores.
type Comparison struct {
	Stage     uint64
	Finalized bool
	// Rows is how many rows the contract holds for the stage.
	Rows                       int
	PolicyTotal, ContractTotal uint64
	// Differences are in address order.
	Differences []Difference
}

// CompareStage reads the contract's stage page by page and names every address whose score
// differs from the policy's (a row of 0 and no score are the same).
func CompareStage(ctx context.Context, r audit.StageReader, stage uint64, ss []Score) (*Comparison, error) {
	info, err := r.StageInfo(ctx, stage)
	if err != nil {
		return nil, fmt.Errorf("compare stage %d: %w", stage, err)
	}
	if !info.Exists {
		return nil, fmt.Errorf("compare stage %d: %w", stage, audit.ErrStageMissing)
	}
	want := make(map[common.Address]uint64, len(ss))
	c := &Comparison{Stage: stage, Finalized: info.Finalized, ContractTotal: info.TotalScore}
	for _, s := range ss {
		want[s.Addr] = s.Score
		c.PolicyTotal += s.Score
	}
	codec := r.Codec()
	seen := map[common.Address]bool{}
	err = r.ScorePages(ctx, stage, func(page []scores.Row) error {
		for _, e := range page {
			if len(e.Addr) != common.AddressLength {
				return fmt.Errorf("row of %q: %d bytes, an EVM address has 20", codec.Encode(e.Addr), len(e.Addr))
			}
			a := common.BytesToAddress(e.Addr)
			if seen[a] {
				return fmt.Errorf("row of %s: %w", a.Hex(), audit.ErrDuplicate)
			}
			seen[a] = true
			c.Rows++
			if p := want[a]; p != e.Amount {
				c.Differences = append(c.Differences, Difference{Addr: a, Policy: p, Contract: e.Amount, OnChain: true})
			}
			delete(want, a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("compare stage %d: read back: %w", stage, err)
	}
	for a, p := range want {
		c.Differences = append(c.Differences, Difference{Addr: a, Policy: p})
	}
	slices.SortFunc(c.Differences, func(x, y Difference) int { return bytes.Compare(x.Addr[:], y.Addr[:]) })
	return c, nil
}
