package audit

import (
	"fmt"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/snapshot"
)

// ClaimArgs is the BCS arguments (after the signer) of the vip module's
// batch_claim_user_reward_script(account, bridge_id, version, stages, merkle_proofs,
// l2_scores) for one account's proof lines, one per stage: what a frontend sends in a
// MsgExecute signed by that account. stages must be consecutive and ascending, as the module
// requires.
func ClaimArgs(bridgeID, version uint64, stages []uint64, lines []snapshot.ProofLine) ([][]byte, error) {
	if len(stages) == 0 || len(stages) != len(lines) {
		return nil, fmt.Errorf("claim: %d stages and %d proof lines: want one line per stage", len(stages), len(lines))
	}
	proofs := movebcs.NewWriter(64)
	proofs.ULEB128(uint64(len(lines)))
	scores := make([]uint64, len(lines))
	for i, l := range lines {
		if i > 0 && (stages[i] != stages[i-1]+1 || l.Address != lines[0].Address) {
			return nil, fmt.Errorf("claim: stage %d, line %d: stages must be consecutive and the lines one account's", stages[i], i)
		}
		proofs.ULEB128(uint64(len(l.Proof)))
		for _, p := range l.Proof {
			proofs.Bytes(p)
		}
		scores[i] = l.Score
	}
	return [][]byte{movebcs.ArgU64(bridgeID), movebcs.ArgU64(version), movebcs.ArgU64s(stages), proofs.Out(), movebcs.ArgU64s(scores)}, nil
}
