package policy

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// memHeaders is a chain of block times.
type memHeaders []uint64

func (m memHeaders) Head(ctx context.Context) (Header, error) { return m.Header(ctx, uint64(len(m)-1)) }
func (m memHeaders) Header(_ context.Context, n uint64) (Header, error) {
	if n >= uint64(len(m)) {
		return Header{}, errors.New("no such block")
	}
	return Header{Number: n, Time: m[n], Hash: common.BigToHash(new(big.Int).SetUint64(n + 1))}, nil
}

func TestFindWindow(t *testing.T) {
	// Blocks 0..9; several blocks may share a second.
	chain := memHeaders{100, 105, 110, 110, 120, 130, 130, 140, 150, 160}
	tests := []struct {
		name        string
		start, end  uint64
		first, last uint64
		err         error
	}{
		{"inside", 110, 130, 2, 4, nil},
		{"edges at block times: start included, end excluded", 105, 140, 1, 6, nil},
		{"from before genesis", 0, 106, 0, 1, nil},
		{"end at the head's time is complete", 150, 160, 8, 8, nil},
		{"the head before the end", 150, 161, 0, 0, ErrBehind},
		{"no block inside", 111, 119, 0, 0, ErrNoBlocks},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := FindWindow(context.Background(), chain, tc.start, tc.end)
			if !errors.Is(err, tc.err) {
				t.Fatalf("got %v, want %v", err, tc.err)
			}
			if tc.err != nil {
				return
			}
			if sp.FirstBlock != tc.first || sp.LastBlock != tc.last || sp.First.Number != tc.first || sp.Last.Number != tc.last {
				t.Fatalf("got blocks %d..%d (%d, %d), want %d..%d", sp.FirstBlock, sp.LastBlock, sp.First.Number, sp.Last.Number, tc.first, tc.last)
			}
			if sp.First.Time < tc.start || sp.Last.Time >= tc.end {
				t.Fatalf("boundary times %d, %d outside [%d, %d)", sp.First.Time, sp.Last.Time, tc.start, tc.end)
			}
		})
	}
}
