package deployer_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
)

// stageRows is a stage on chain: its total and rows; reads counts the page walks.
type stageRows struct {
	total uint64
	rows  []scores.Entry
	reads int
}

func (s *stageRows) Codec() scores.Codec { return scores.EVMCodec{} }
func (s *stageRows) StageInfo(_ context.Context, stage uint64) (vip.StageInfo, error) {
	return vip.StageInfo{Stage: stage, TotalScore: s.total, Exists: true}, nil
}
func (s *stageRows) ScorePages(_ context.Context, _ uint64, each func([]scores.Row) error) error {
	s.reads++
	return scores.PageEntries(s.rows, scores.EVMCodec{}, 2, each)
}

func addr(b byte) string {
	return "0x00000000000000000000000000000000000000" + string("0123456789abcdef"[b>>4]) + string("0123456789abcdef"[b&15])
}

// The stage total is checked before anything is sent, exactly, at the u64 boundary and part
// way through an update, reading the stage only when the quick bound does not decide it.
func TestCheckTotal(t *testing.T) {
	const max = math.MaxUint64
	for _, tc := range []struct {
		name      string
		chain     stageRows
		update    []scores.Entry
		wantTotal string // "" accepted
		wantReads int
	}{
		{"the limit itself is accepted", stageRows{}, []scores.Entry{{Addr: addr(1), Amount: max}}, "", 0},
		{"one past the limit is refused", stageRows{}, []scores.Entry{{Addr: addr(1), Amount: max}, {Addr: addr(2), Amount: 1}}, "18446744073709551616", 1},
		{"two at 2^63", stageRows{}, []scores.Entry{{Addr: addr(1), Amount: 1 << 63}, {Addr: addr(2), Amount: 1 << 63}}, "18446744073709551616", 1},
		{"on chain plus the update passes", stageRows{total: max - 1, rows: []scores.Entry{{Addr: addr(9), Amount: max - 1}}},
			[]scores.Entry{{Addr: addr(1), Amount: 2}}, "18446744073709551616", 1},
		{"an overwrite that lowers the old score fits", stageRows{total: max, rows: []scores.Entry{{Addr: addr(1), Amount: max}}},
			[]scores.Entry{{Addr: addr(1), Amount: 5}, {Addr: addr(2), Amount: 10}}, "", 1},
		{"the same set again (a resume) fits", stageRows{total: max, rows: []scores.Entry{{Addr: addr(1), Amount: 1 << 63}, {Addr: addr(2), Amount: max - 1<<63}}},
			[]scores.Entry{{Addr: addr(1), Amount: 1 << 63}, {Addr: addr(2), Amount: max - 1<<63}}, "", 1},
		{"fits without reading the rows", stageRows{total: 10, rows: []scores.Entry{{Addr: addr(1), Amount: 10}}},
			[]scores.Entry{{Addr: addr(2), Amount: 1 << 40}}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := scores.NewSet(tc.update, scores.EVMCodec{})
			if err != nil {
				t.Fatal(err)
			}
			chain := tc.chain
			err = deployer.CheckTotal(context.Background(), &chain, 7, set)
			if chain.reads != tc.wantReads {
				t.Errorf("read the stage's rows %d times, want %d", chain.reads, tc.wantReads)
			}
			if tc.wantTotal == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var oe *deployer.TotalOverflowError
			if !errors.As(err, &oe) || !errors.Is(err, deployer.ErrTotalOverflow) {
				t.Fatalf("err %v, want a TotalOverflowError", err)
			}
			if oe.Total.String() != tc.wantTotal || oe.Stage != 7 {
				t.Errorf("stage %d total %s, want stage 7 total %s", oe.Stage, oe.Total, tc.wantTotal)
			}
			for _, want := range []string{"stage 7", tc.wantTotal, "18446744073709551615", "nothing was sent"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not name %q", err, want)
				}
			}
		})
	}
}

// A stage whose rows sum past u64 never agrees with a total that wrapped, nor does the
// input's total wrap (the EVM contract before it checked its total held 0 here).
func TestVerifySumsWithoutWrapping(t *testing.T) {
	rows := []scores.Entry{{Addr: addr(1), Amount: 1 << 63}, {Addr: addr(2), Amount: 1 << 63}}
	rep, err := deployer.Verify(context.Background(), &stageRows{total: 0, rows: rows}, 3, rows)
	if err != nil {
		t.Fatal(err)
	}
	if rep.TotalsAgree || rep.OK() {
		t.Errorf("a wrapped total agrees with the rows: %+v", rep)
	}
	if got := rep.InputTotal.String(); got != "18446744073709551616" {
		t.Errorf("input total %s, want 18446744073709551616", got)
	}
}
