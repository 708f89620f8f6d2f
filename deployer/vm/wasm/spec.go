package wasm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cosmos/cosmos-sdk/types/bech32"

	"github.com/vipharness/vipharness/deployer/vip"
)

// Spec is what Wasm means to the code around it. Its key type is the classic secp256k1
// (coin type 118) that wasmd and most CosmWasm tools derive; miniwasm's own wallets use
// coin type 60, which --key-type selects.
var Spec = vip.Spec{
	VM:        vip.Wasm,
	Minitia:   "miniwasm",
	NodeNames: []string{"wasm", "wasmd"},
	Label:     "MiniWasm",
	VMType:    1,
	KeyType:   vip.Secp256k1,
	Cosmos:    true,
	Artifact:  "a .wasm module",
	ReadArtifact: func(b []byte) ([]byte, error) {
		if len(b) < 4 || string(b[:4]) != "\x00asm" {
			return nil, errors.New("not a Wasm module (no \\0asm header)")
		}
		return b, nil
	},
	CheckContract: func(addr string) error {
		_, bz, err := bech32.DecodeAndConvert(strings.TrimSpace(addr))
		if err != nil {
			return fmt.Errorf("%q is not a bech32 contract address: %v", addr, err)
		}
		if len(bz) != 20 && len(bz) != 32 {
			return fmt.Errorf("%q is %d bytes, want 20 or 32", addr, len(bz))
		}
		return nil
	},
	Gas: vip.GasEstimate{Deploy: 850_799, Fixed: 150_000, PerAddress: 7_335},
	Reasons: map[string]string{
		"not allowed":   NotAllowed,
		"finalized":     StageFinalized,
		"missing stage": StageNotFound,
		"refinalize":    StageAlreadyFinalized,
	},
	Events: map[string][]string{"update": {"wasm-update-score"}, "finalize": {"wasm-finalize-stage", "wasm-create-stage"}},
}
