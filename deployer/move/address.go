package move

import (
	"github.com/cosmos/cosmos-sdk/types/bech32"
)

func decodeBech32(s string) (string, []byte, error) { return bech32.DecodeAndConvert(s) }

func encodeBech32(prefix string, bz []byte) (string, error) {
	return bech32.ConvertAndEncode(prefix, bz)
}
