package policy

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/snapshot"
	"github.com/vipharness/vipharness/deployer/vip"
)

// contractStage is a scoring contract's stage in memory, read back in pages of 2.
type contractStage struct {
	info  vip.StageInfo
	rows  []scores.Entry
	codec scores.Codec // nil: EVM's
}

func (c *contractStage) StageInfo(context.Context, uint64) (vip.StageInfo, error) {
	return c.info, nil
}

func (c *contractStage) ScorePages(_ context.Context, _ uint64, each func([]scores.Row) error) error {
	return scores.PageEntries(c.rows, c.Codec(), 2, each)
}

func (c *contractStage) Codec() scores.Codec {
	if c.codec == nil {
		return scores.EVMCodec{}
	}
	return c.codec
}

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
			[]Difference{{team, 0, 5, true, team.Hex()}, {alice, 7, 8, true, alice.Hex()}, {carol, 2, 0, false, carol.Hex()}}, nil},
		{"a zero row where the policy scores", []scores.Entry{row(alice, 7), row(bob, 3), row(carol, 0)},
			[]Difference{{carol, 2, 0, true, carol.Hex()}}, nil},
		{"a duplicate row", []scores.Entry{row(alice, 7), row(alice, 7)}, nil, snapshot.ErrDuplicate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var total uint64
			for _, r := range tc.rows {
				total += r.Amount
			}
			c, err := CompareStage(context.Background(), &contractStage{vip.StageInfo{Stage: 2, Exists: true, Finalized: true, TotalScore: total}, tc.rows, nil}, 2, policyScores)
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
	if _, err := CompareStage(context.Background(), &contractStage{info: vip.StageInfo{Stage: 9}}, 9, policyScores); !errors.Is(err, vip.ErrStageMissing) {
		t.Fatalf("missing stage: %v", err)
	}
}

// TestCompareStageCosmos reads a Cosmos rollup's rows (bech32): a 20-byte account is the
// policy's address; a 32-byte one (a contract) is named by its text, as no policy scores it.
func TestCompareStageCosmos(t *testing.T) {
	codec := scores.Bech32Codec{Prefix: "init"}
	bytes32 := make([]byte, 32)
	bytes32[0] = 1 // not a padded 20-byte account
	contract32 := codec.Encode(bytes32)
	padded := codec.Encode(common.LeftPadBytes(bob[:], 32))
	rows := []scores.Entry{{Addr: codec.Encode(alice[:]), Amount: 7}, {Addr: padded, Amount: 3}, {Addr: contract32, Amount: 9}}
	c, err := CompareStage(context.Background(), &contractStage{vip.StageInfo{Stage: 2, Exists: true, TotalScore: 19}, rows, codec}, 2,
		[]Score{{alice, 7}, {bob, 3}, {carol, 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Difference{{Contract: 9, OnChain: true, Text: contract32}, {Addr: carol, Policy: 1, Text: codec.Encode(carol[:])}}
	if len(c.Differences) != len(want) || c.Differences[0] != want[0] || c.Differences[1] != want[1] || c.Rows != 3 {
		t.Fatalf("differences %+v (rows %d), want %+v", c.Differences, c.Rows, want)
	}
}
