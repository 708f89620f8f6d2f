package audit

import (
	"bytes"
	"fmt"
	"io"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer/snapshot"
)

// Verdict is how a rebuilt tree compares with the L1's snapshot of the same stage.
type Verdict int

const (
	// Match: same total and root.
	Match Verdict = iota
	// RootDiffers: same total, another root. The agent's tree shape is not published, so
	// this alone proves no fault: our proofs then verify against our root only, and the
	// agent's own proofs (CheckProofs) tell whether its root holds our scores.
	RootDiffers
	// TotalDiffers: the agent snapshotted another total than the contract holds; every
	// leaf (which holds the total) differs, whatever the tree shape.
	TotalDiffers
)

// Compare sets t beside snap.
func Compare(t *snapshot.Tree, snap l1node.Snapshot) Verdict {
	switch root := t.Root(); {
	case snap.TotalL2Score != t.Total:
		return TotalDiffers
	case !bytes.Equal(snap.MerkleRoot, root[:]):
		return RootDiffers
	}
	return Match
}

// ProofCheck is the outcome of checking proof lines against the L1's root.
type ProofCheck struct {
	Lines  int `json:"lines"`
	Passed int `json:"passed"`
	// Failures lists the first MaxFailures failures, one sentence each; Failed counts all.
	Failed   int      `json:"failed"`
	Failures []string `json:"failures,omitempty"`
	// Missing counts leaves of our tree no line covered (informational: a proofs file may
	// hold part of a stage).
	Missing int `json:"missing"`
}

// MaxFailures bounds the failures a ProofCheck lists.
const MaxFailures = 100

// CheckProofs checks each line of r (the proofs file format, e.g. from the agent's API)
// the way the module's claim would, with our scores: the address must be a leaf of t with
// the line's score, and unless that score is 0 (the claim skips the proof) the proof must
// lead from score_hash(bridge, stage, address, score, the L1's total) to the L1's root.
func CheckProofs(r io.Reader, t *snapshot.Tree, snap l1node.Snapshot) (ProofCheck, error) {
	var pc ProofCheck
	var root snapshot.Hash
	rootOK := len(snap.MerkleRoot) == 32
	copy(root[:], snap.MerkleRoot)
	seen := make([]uint64, (t.Len()+63)/64)
	fail := func(n int, format string, args ...any) {
		pc.Failed++
		if len(pc.Failures) < MaxFailures {
			pc.Failures = append(pc.Failures, fmt.Sprintf("line %d: ", n)+fmt.Sprintf(format, args...))
		}
	}
	err := snapshot.ReadProofs(r, func(n int, l snapshot.ProofLine) error {
		pc.Lines++
		i, ok := t.Find(l.Address)
		if !ok {
			fail(n, "%s holds no score in stage %d on the rollup", l.Address, t.Stage)
			return nil
		}
		seen[i/64] |= 1 << (i % 64)
		_, score, _ := t.Leaf(i)
		if score != l.Score {
			fail(n, "%s: the line says l2_score %d, the rollup's contract %d", l.Address, l.Score, score)
			return nil
		}
		if score != 0 {
			if !rootOK {
				fail(n, "the L1's merkle root has %d bytes, not 32: no proof can reach it", len(snap.MerkleRoot))
				return nil
			}
			if err := snapshot.Verify(l.Proof, root, snapshot.ScoreHash(t.BridgeID, t.Stage, l.Address, score, snap.TotalL2Score)); err != nil {
				fail(n, "%s: %v", l.Address, err)
				return nil
			}
		}
		pc.Passed++
		return nil
	})
	for i := range t.Len() {
		if seen[i/64]&(1<<(i%64)) == 0 {
			pc.Missing++
		}
	}
	return pc, err
}
