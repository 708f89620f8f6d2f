package evm

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
)

// panicCode is the code of a Solidity Panic(uint256) in err's revert data, -1 for none.
func panicCode(err error) int64 {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return -1
	}
	data, _ := de.ErrorData().(string)
	raw := common.FromHex(data)
	if len(raw) != 36 || common.Bytes2Hex(raw[:4]) != "4e487b71" {
		return -1
	}
	return new(big.Int).SetBytes(raw[4:]).Int64()
}

// A stage's total never wraps: every write that would take it past u64 reverts with the
// arithmetic Panic(0x11) the official contract's checked increaseScore raises, and leaves the
// stage as it was; the limit itself is a valid total.
func TestTotalNeverWraps(t *testing.T) {
	const max = math.MaxUint64
	c := newChain(t, Bin(), 1)
	addrs, _ := addresses(4, 45)
	if _, err := c.update(c.owner, 1, addrs[:1], []uint64{max}); err != nil {
		t.Fatalf("total at the limit refused: %v", err)
	}
	if got := c.stage(1).TotalScore; got != max {
		t.Fatalf("total %d, want %d", got, uint64(max))
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"updateScores one more", c.b.PackUpdateScores(1, addrs[1:2], []uint64{1})},
		{"updateScore one more", c.b.PackUpdateScore(1, addrs[1], 1)},
		{"increaseScore one more", c.b.PackIncreaseScore(1, addrs[1], 1)},
		{"updateScores passing then returning", c.b.PackUpdateScores(1, addrs[1:3], []uint64{2, 0})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.send(c.owner, &c.contract, tc.data)
			if code := panicCode(err); code != 0x11 {
				t.Fatalf("err %v, want Panic(0x11)", err)
			}
			if got := c.stage(1).TotalScore; got != max {
				t.Fatalf("a refused write changed the total to %d", got)
			}
		})
	}
	// Lowering the old score first makes room: the total is exact at each entry.
	if _, err := c.update(c.owner, 1, []common.Address{addrs[0], addrs[1]}, []uint64{max - 7, 7}); err != nil {
		t.Fatalf("an update that stays at the limit refused: %v", err)
	}
	if got := c.stage(1).TotalScore; got != max {
		t.Fatalf("total %d, want %d", got, uint64(max))
	}
	// Two halves of 2^64 on a new stage.
	if _, err := c.send(c.owner, &c.contract, c.b.PackFinalizeStage(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.update(c.owner, 2, addrs[2:4], []uint64{1 << 63, 1 << 63}); panicCode(err) != 0x11 {
		t.Fatalf("2^63 + 2^63: %v, want Panic(0x11)", err)
	}
}
