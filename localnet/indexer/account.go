package indexer

import (
	"encoding/hex"
	"errors"
	"strings"

	"github.com/cosmos/cosmos-sdk/types/bech32"
)

// Bech32Prefix is the account prefix of Initia chains; by_account accepts init1... too.
const Bech32Prefix = "init"

// parseAccount reads an account the way the service does: bech32 with the chain's prefix
// (20 or 32 bytes) unless it starts with 0x, otherwise hex, with or without 0x, leading
// zeros ignored, left-padded to 20 bytes (or 32 when longer than 40 digits).
func parseAccount(s string) ([]byte, error) {
	if !strings.HasPrefix(s, "0x") && strings.TrimSpace(s) != "" {
		if hrp, b, err := bech32.DecodeAndConvert(s); err == nil && hrp == Bech32Prefix && (len(b) == 20 || len(b) == 32) {
			return b, nil
		}
	}
	return parseHexAccount(s)
}

func parseHexAccount(s string) ([]byte, error) {
	h := strings.ToLower(strings.TrimLeft(strings.TrimPrefix(s, "0x"), "0"))
	switch {
	case len(h) <= 40:
		h = strings.Repeat("0", 40-len(h)) + h
	case len(h) <= 64:
		h = strings.Repeat("0", 64-len(h)) + h
	default:
		return nil, errors.New("address too long")
	}
	return hex.DecodeString(h)
}

// parseHash reads a tx hash as the service does: 0x optional, an odd digit count padded.
func parseHash(s string) ([]byte, error) {
	h := strings.TrimPrefix(s, "0x")
	if h == "" {
		return []byte{}, nil
	}
	if len(h)%2 == 1 {
		h = "0" + h
	}
	return hex.DecodeString(h)
}
