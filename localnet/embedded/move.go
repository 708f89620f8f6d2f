package embedded

import (
	"context"

	"github.com/vipharness/vipharness/deployer/vip"
)

// DefaultMoveChainID is the chain id of the embedded Move rollup.
const DefaultMoveChainID = "vip-move-1"

// StartMove starts an embedded Move rollup: the project's minitia application with x/move over
// the MoveVM and the MinitiaStdlib a minimove v1.1.11 runs, under an in-process CometBFT, as a
// minimove chain would run. By default it has chain id DefaultMoveChainID, bech32 prefix
// "init", fee denom "umin" at a minimum gas price of 0.15, and two fresh mnemonics whose
// eth_secp256k1 (coin type 60, Initia's keys) and secp256k1 (coin type 118, CosmJS's)
// accounts are both funded. It needs the Move libraries (`make setup`).
func StartMove(ctx context.Context, opts ...MoveOption) (*MoveRollup, error) {
	return StartCosmos(ctx, vip.Move, opts...)
}
