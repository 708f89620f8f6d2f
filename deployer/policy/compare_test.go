package policy

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/scores"
)

// contractStage is a scoring contract's stage in memory, read back in pages of 2.
type contractStage struct {
	info deployer.StageInfo
	rows []scores.Entry
}

func (c *contractStage) StageInfo(context.Context, uint64) (deployer.StageInfo, error) {
	return c.info, nil
}

func (c *contractStage) ScorePages(_ context.Context, _ uint64, each func([]scores.Row) error) error {
	rows, err := scores.RowsOf(c.rows, c.Codec())
	if err != nil {
		return err
	}
	for i := 0; i < len(rows); i += 2 {
		if err := each(rows[i:min(i+2, len(rows))]); err != nil {
			return err
		}
	}
	return nil
}

func (c *contractStage) Codec() scores.Codec { return scores.EVMCodec{} }

func row(a common.Address, v uint64) scores.Entry { return scores.Entry{Addr: a.Hex(), Amount: v} }

func TestCompareStage(t *testing.T) {
	policyScores := []Score{{bob, 3}, {alice, 7}, {carol, 2}}
	tests := []struct {
		name string
		rows []scores.Entry
		want []Difference
		err  error
	}{
		{"the same", []scores.Entry{row(carol, 2), row(alice, 7), row(bob, 3)}, nil, nil},
		{"a zero row is no score", []scores.Entry{row(carol, 2), row(alice, 7), row(bob, 3), row(team, 0)}, nil, nil},
		{"one differs, one missing, one extra", []scores.Entry{row(alice, 8), row(bob, 3), row(team, 5)},
			// In address byte order: 0x…7ea3 < 0x…0a11ce < 0x…0ca401.
			[]Difference{{team, 0, 5, true}, {alice, 7, 8, true}, {carol, 2, 0, false}}, nil},
		{"a zero row where the policy scores", []scores.Entry{row(alice, 7), row(bob, 3), row(carol, 0)},
			[]Difference{{carol, 2, 0, true}}, nil},
		{"a duplicate row", []scores.Entry{row(alice, 7), row(alice, 7)}, nil, audit.ErrDuplicate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var total uint64
			for _, r := range tc.rows {
				total += r.Amount
			}
			c, err := CompareStage(context.Background(), &contractStage{deployer.StageInfo{Stage: 2, Exists: true, Finalized: true, TotalScore: total}, tc.rows}, 2, policyScores)
			if !errors.Is(err, tc.err) {
				t.Fatalf("got %v, want %v", err, tc.err)
			}
			if tc.err != nil {
				return
			}
			if len(c.Differences) != len(tc.want) {
				t.Fatalf("differences %v, want %v", c.Differences, tc.want)
			}
			for i := range tc.want {
				if c.Differences[i] != tc.want[i] {
					t.Fatalf("differences %v, want %v", c.Differences, tc.want)
				}
			}
			if c.PolicyTotal != 12 || c.ContractTotal != total || c.Rows != len(tc.rows) {
				t.Fatalf("comparison %+v", c)
			}
		})
	}
	if _, err := CompareStage(context.Background(), &contractStage{info: deployer.StageInfo{Stage: 9}}, 9, policyScores); !errors.Is(err, audit.ErrStageMissing) {
		t.Fatalf("missing stage: %v", err)
	}
}
