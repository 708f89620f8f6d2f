package evm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/deployer/vip"
)

// Spec is what the EVM means to the code around it.
var Spec = vip.Spec{
	VM:           vip.EVM,
	Minitia:      "minievm",
	Label:        "MiniEVM",
	VMType:       2,
	KeyType:      vip.EthSecp256k1,
	Artifact:     "solc's .bin (hex creation code) or a Foundry/Hardhat .json",
	ReadArtifact: ReadArtifact,
	CheckContract: func(addr string) error {
		t := strings.TrimSpace(addr)
		if !common.IsHexAddress(t) || !strings.HasPrefix(t, "0x") || len(t) != 42 {
			return fmt.Errorf("%q is not an EVM address (0x and 40 hex digits)", addr)
		}
		if common.HexToAddress(t) == (common.Address{}) {
			return errors.New("the zero address")
		}
		return nil
	},
	// The deploy is estimated by the node. A new address costs 9,843 on a minievm v1.2.18
	// (EIP-4762 gas; vipctl demo: 2,020 addresses in 3 txs), a third of plain EVM gas rules'
	// 30,664 (Osaka, 100 a call), which a VIP rollup does not run.
	Gas: vip.GasEstimate{Deploy: 0, Fixed: 50_000, PerAddress: 9_843},
	Reasons: map[string]string{
		"not allowed":     "PermissionDenied",
		"finalized":       "StageFinalized",
		"missing stage":   "StageNotFound",
		"refinalize":      "StageFinalized",
		"length mismatch": "AddrsAndAmountsLengthMistmatch",
	},
	Events: map[string][]string{"update": {"UpdateScore"}, "finalize": {"FinalizeStage", "CreateStage"}},
}
