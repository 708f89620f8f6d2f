package move

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/vipharness/vipharness/deployer/vip"
)

// Spec is what Move means to the code around it. A Move module is named by its
// publisher's address, so one deployer holds one vip_score.
var Spec = vip.Spec{
	VM:                     vip.Move,
	Minitia:                "minimove",
	Label:                  "MiniMove",
	VMType:                 0,
	KeyType:                vip.EthSecp256k1,
	Cosmos:                 true,
	OneContractPerDeployer: true,
	Artifact:               "a compiled .mv module",
	ReadArtifact: func(b []byte) ([]byte, error) {
		if len(b) < 4 || hex.EncodeToString(b[:4]) != "a11ceb0b" {
			return nil, errors.New("not a compiled Move module (.mv: no a11ceb0b magic)")
		}
		return b, nil
	},
	CheckContract: func(addr string) error {
		t := strings.TrimSpace(addr)
		h, ok := strings.CutPrefix(strings.ToLower(t), "0x")
		if !ok || h == "" || len(h) > 64 {
			return fmt.Errorf("the vip_score module's address %q: want 0x and 1 to 64 hex digits", addr)
		}
		if len(h)%2 == 1 {
			h = "0" + h
		}
		if _, err := hex.DecodeString(h); err != nil {
			return fmt.Errorf("the vip_score module's address %q: want 0x and 1 to 64 hex digits", addr)
		}
		return nil
	},
	Gas: vip.GasEstimate{Deploy: 319_502, Fixed: 10_360, PerAddress: 4_492},
	Reasons: map[string]string{
		"not allowed":     "EUNAUTHORIZED",
		"finalized":       "EFINALIZED_STAGE",
		"missing stage":   "EINVALID_STAGE",
		"refinalize":      "EFINALIZED_STAGE",
		"length mismatch": "ENOT_MATCH_LENGTH",
	},
	Events: map[string][]string{"update": {"UpdateScoreEvent"}, "finalize": {"FinalizedScoreEvent"}},
}
