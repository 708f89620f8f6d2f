package policy

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/snapshot"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Difference is an address whose score the policy and the contract disagree on (0 where
// one of them has none).
type Difference struct {
	Addr             common.Address
	Policy, Contract uint64
	// OnChain says whether the contract holds a row for the address (a missing row and a
	// row of 0 both score 0).
	OnChain bool
	// Text is the address as the contract's codec writes it (0x hex, or bech32 on a Cosmos
	// rollup). A row of a 32-byte account, which no policy scores, has only its Text.
	Text string
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
func CompareStage(ctx context.Context, r scores.StageReader, stage uint64, ss []Score) (*Comparison, error) {
	info, err := r.StageInfo(ctx, stage)
	if err != nil {
		return nil, fmt.Errorf("compare stage %d: %w", stage, err)
	}
	if !info.Exists {
		return nil, fmt.Errorf("compare stage %d: %w", stage, vip.ErrStageMissing)
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
			b := e.Addr
			switch {
			case len(b) == common.AddressLength:
			case len(b) == 32 && bytes.Equal(b[:12], make([]byte, 12)):
				b = b[12:] // the 20-byte account as a 32-byte Move address holds it
			case len(b) == 32:
				// A 32-byte account (an object, a contract): no policy scores one.
				c.Rows++
				if e.Amount != 0 {
					c.Differences = append(c.Differences, Difference{Contract: e.Amount, OnChain: true, Text: codec.Encode(e.Addr)})
				}
				continue
			default:
				return fmt.Errorf("row of %q: %d bytes, want a 20-byte account", codec.Encode(e.Addr), len(b))
			}
			a := common.BytesToAddress(b)
			if seen[a] {
				return fmt.Errorf("row of %s: %w", a.Hex(), snapshot.ErrDuplicate)
			}
			seen[a] = true
			c.Rows++
			if p := want[a]; p != e.Amount {
				c.Differences = append(c.Differences, Difference{Addr: a, Policy: p, Contract: e.Amount, OnChain: true, Text: codec.Encode(e.Addr)})
			}
			delete(want, a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("compare stage %d: read back: %w", stage, err)
	}
	for a, p := range want {
		c.Differences = append(c.Differences, Difference{Addr: a, Policy: p, Text: codec.Encode(a[:])})
	}
	slices.SortFunc(c.Differences, func(x, y Difference) int {
		if d := bytes.Compare(x.Addr[:], y.Addr[:]); d != 0 {
			return d
		}
		return strings.Compare(x.Text, y.Text)
	})
	return c, nil
}
