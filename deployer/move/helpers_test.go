package move_test

import (
	"os"

	"github.com/cosmos/cosmos-sdk/types/bech32"

	"github.com/vipharness/vipharness/localnet/movevm"
)

func requireNodes() bool { return os.Getenv("REQUIRE_NODES") == "1" }

func le64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

func uleb(b []byte, n int) []byte {
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}

func bech32Account(s string) (movevm.Address, error) {
	_, bz, err := bech32.DecodeAndConvert(s)
	if err != nil {
		return movevm.Address{}, err
	}
	return movevm.AccountAddress(bz), nil
}
