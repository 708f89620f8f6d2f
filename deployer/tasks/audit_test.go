package tasks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer/deployertest"
	"github.com/vipharness/vipharness/deployer/operation/audit"
)

// fakeL1 holds one snapshot (nil: none yet) of one bridge, or knows no bridge.
type fakeL1 struct {
	unregistered bool
	snap         *l1node.Snapshot
}

func (f fakeL1) BridgeVersion(context.Context, uint64) (uint64, error) {
	if f.unregistered {
		return 0, l1node.ErrBridgeNotRegistered
	}
	return 2, nil
}

func (f fakeL1) Snapshot(_ context.Context, _, _, _ uint64) (l1node.Snapshot, error) {
	if f.snap == nil {
		return l1node.Snapshot{}, l1node.ErrNoSnapshot
	}
	return *f.snap, nil
}

// auditedContract is a contract whose stage 1 holds two scores, finalized unless open.
func auditedContract(t *testing.T, open bool) *deployertest.Scorer {
	t.Helper()
	ctx := context.Background()
	c := deployertest.New(1)
	if _, err := c.UpdateScores(ctx, 1, testSet(t).Entries(0, 2)); err != nil {
		t.Fatal(err)
	}
	if !open {
		if _, err := c.FinalizeStage(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestAuditOptionsValidated(t *testing.T) {
	for _, tc := range []struct {
		name  string
		o     AuditOptions
		field string
	}{
		{"a stage", AuditOptions{Stage: 1}, ""},
		{"stage 0", AuditOptions{}, "Stage"},
		{"L1 proofs without an L1", AuditOptions{Stage: 1, L1Proofs: "p.jsonl"}, "L1Proofs"},
		{"L1 proofs with an L1", AuditOptions{Stage: 1, L1Proofs: "p.jsonl", L1: fakeL1{}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.o.Validated()
			if tc.field == "" && err != nil || tc.field != "" && !isConfigError(err, tc.field) {
				t.Fatalf("error %v; want field %q", err, tc.field)
			}
		})
	}
}

func TestAuditStage(t *testing.T) {
	ctx := context.Background()
	// The contract's own tree, for snapshots that match it or not.
	own, err := AuditStage(ctx, auditedContract(t, false), AuditOptions{Stage: 1, BridgeID: 7})
	if err != nil {
		t.Fatal(err)
	}
	root := own.Tree.Root()
	same := &l1node.Snapshot{MerkleRoot: root[:], TotalL2Score: own.Tree.Total}
	otherRoot := &l1node.Snapshot{MerkleRoot: make([]byte, 32), TotalL2Score: own.Tree.Total}
	otherTotal := &l1node.Snapshot{MerkleRoot: root[:], TotalL2Score: own.Tree.Total + 1}
	for _, tc := range []struct {
		name    string
		open    bool
		o       AuditOptions
		err     error
		verdict string // "" without an L1
		fails   bool
	}{
		{"no L1", false, AuditOptions{}, nil, "", false},
		{"an open stage", true, AuditOptions{}, audit.ErrNotFinalized, "", false},
		{"an open stage previewed", true, AuditOptions{AllowOpen: true}, nil, "", false},
		{"the L1's snapshot", false, AuditOptions{L1: fakeL1{snap: same}}, nil, VerdictMatch, false},
		{"another root", false, AuditOptions{L1: fakeL1{snap: otherRoot}}, nil, VerdictRootDiffers, false},
		{"another total", false, AuditOptions{L1: fakeL1{snap: otherTotal}}, nil, VerdictTotalDiffers, true},
		{"no snapshot yet", false, AuditOptions{L1: fakeL1{}}, nil, VerdictNoSnapshot, false},
		{"a bridge not registered", false, AuditOptions{L1: fakeL1{unregistered: true}}, nil, VerdictBridgeNotRegistered, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Stage, o.BridgeID = 1, 7
			a, err := AuditStage(ctx, auditedContract(t, tc.open), o)
			if tc.err != nil || err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v; want %v", err, tc.err)
				}
				return
			}
			if a.Tree.Len() != 2 || a.Tree.Total != 30 {
				t.Fatalf("tree of %d leaves, total %d", a.Tree.Len(), a.Tree.Total)
			}
			if got := ""; a.L1 != nil {
				got = a.L1.Verdict
				if got != tc.verdict {
					t.Fatalf("verdict %q, want %q", got, tc.verdict)
				}
			} else if tc.verdict != "" {
				t.Fatalf("no L1 comparison, want %q", tc.verdict)
			}
			if a.Fails() != tc.fails {
				t.Fatalf("fails %v, want %v", a.Fails(), tc.fails)
			}
		})
	}
}

// The proof lines written are checked against the L1's root; a file that is not there is
// the L1Proofs setting's error.
func TestAuditStageProofs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	proofs := filepath.Join(dir, "proofs.jsonl")
	a, err := AuditStage(ctx, auditedContract(t, false), AuditOptions{Stage: 1, BridgeID: 7, ProofsFile: proofs})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(proofs); err != nil || len(b) == 0 {
		t.Fatalf("proofs file: %d bytes, %v", len(b), err)
	}
	root := a.Tree.Root()
	l1 := fakeL1{snap: &l1node.Snapshot{MerkleRoot: root[:], TotalL2Score: a.Tree.Total}}
	a, err = AuditStage(ctx, auditedContract(t, false), AuditOptions{Stage: 1, BridgeID: 7, L1: l1, L1Proofs: proofs})
	if err != nil {
		t.Fatal(err)
	}
	if pc := a.L1Proofs; pc == nil || pc.Lines != 2 || pc.Passed != 2 || a.Fails() {
		t.Fatalf("proof check %+v, fails %v", pc, a.Fails())
	}
	_, err = AuditStage(ctx, auditedContract(t, false), AuditOptions{Stage: 1, BridgeID: 7, L1: l1, L1Proofs: filepath.Join(dir, "none")})
	if !isConfigError(err, "L1Proofs") {
		t.Fatalf("a missing proofs file: %v", err)
	}
}
