package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/snapshot"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Snapshots reads the L1's VIP snapshots: l1node.Reader is one.
type Snapshots interface {
	BridgeVersion(ctx context.Context, bridgeID uint64) (uint64, error)
	Snapshot(ctx context.Context, bridgeID, version, stage uint64) (l1node.Snapshot, error)
}

// The verdicts of a tree set beside the L1's snapshot.
const (
	VerdictMatch               = "match"
	VerdictRootDiffers         = "root_differs"
	VerdictTotalDiffers        = "total_differs"
	VerdictNoSnapshot          = "no_snapshot"
	VerdictBridgeNotRegistered = "bridge_not_registered" // before registration: nothing to compare
)

// L1Comparison is the L1's side of an audit: the bridge version read, the verdict, and the
// snapshot (absent with no_snapshot and bridge_not_registered).
type L1Comparison struct {
	Version  uint64
	Verdict  string
	Snapshot *l1node.Snapshot
}

// AuditOptions are what an audit of a contract's stage reads.
type AuditOptions struct {
	Stage, BridgeID uint64
	// Version is the bridge's version on the L1; 0 is its current one.
	Version uint64
	// AllowOpen previews a stage that is not finalized.
	AllowOpen bool
	// L1, when set, is where the agent's snapshot is read to compare with.
	L1 Snapshots
	// ProofsFile, when set, receives every address's proof line (JSON lines).
	ProofsFile string
	// L1Proofs, when set, is a file of the agent's proof lines, checked against the L1's
	// root and the contract's scores (L1 then required).
	L1Proofs string
}

// Validated is o, or the first field that cannot be used.
func (o AuditOptions) Validated() (AuditOptions, error) {
	switch {
	case o.Stage == 0:
		return o, &deployer.ConfigError{Field: "Stage", Value: 0, Err: errors.New("want a stage >= 1")}
	case o.L1Proofs != "" && o.L1 == nil:
		return o, &deployer.ConfigError{Field: "L1Proofs", Value: o.L1Proofs, Err: errors.New("the proofs are checked against the L1's root: no L1")}
	}
	return o, nil
}

// Audited is an audit of a contract's stage: its tree, the stage as the contract holds it,
// and the L1's snapshot and proof check beside them (nil when not made).
type Audited struct {
	Tree     *snapshot.Tree
	Info     vip.StageInfo
	L1       *L1Comparison
	L1Proofs *audit.ProofCheck
}

// Fails are the audit's findings that fail it: the L1's total differs, or proof lines of the
// agent fail against the L1's root.
func (a *Audited) Fails() bool {
	return a.L1 != nil && a.L1.Verdict == VerdictTotalDiffers || a.L1Proofs != nil && a.L1Proofs.Failed > 0
}

// AuditStage builds the VIP merkle tree of the contract's finalized stage (the one the L1's
// vip module checks claims against), writes its proofs, and sets the L1's snapshot beside
// it. A stage not finalized (without AllowOpen) is audit.ErrNotFinalized; rows that do not
// sum to the stage's total are audit.ErrTotalsDiffer; a file of L1Proofs that cannot be
// read is a *deployer.ConfigError of L1Proofs.
func AuditStage(ctx context.Context, r scores.StageReader, o AuditOptions) (*Audited, error) {
	o, err := o.Validated()
	if err != nil {
		return nil, err
	}
	tree, info, err := audit.BuildFromStage(ctx, r, o.BridgeID, o.Stage, o.AllowOpen)
	if err != nil {
		return nil, err
	}
	a := &Audited{Tree: tree, Info: info}
	if o.ProofsFile != "" {
		if err := WriteProofs(tree, o.ProofsFile); err != nil {
			return nil, err
		}
	}
	if o.L1 == nil {
		return a, nil
	}
	var snap *l1node.Snapshot
	if a.L1, snap, err = CompareL1(ctx, o.L1, tree, o.BridgeID, o.Version, o.Stage); err != nil {
		return nil, err
	}
	if snap == nil || a.L1.Verdict == VerdictTotalDiffers || o.L1Proofs == "" {
		return a, nil
	}
	pc, err := checkProofs(o.L1Proofs, tree, *snap)
	if err != nil {
		return nil, err
	}
	a.L1Proofs = &pc
	return a, nil
}

// WriteProofs writes every address's proof line of tree to path.
func WriteProofs(tree *snapshot.Tree, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write proofs: %w", err)
	}
	if err := tree.WriteProofs(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write proofs: %w", err)
	}
	return nil
}

// checkProofs checks the proof lines in path against the snapshot's root and the tree's
// scores.
func checkProofs(path string, tree *snapshot.Tree, snap l1node.Snapshot) (audit.ProofCheck, error) {
	f, err := os.Open(path)
	if err != nil {
		return audit.ProofCheck{}, &deployer.ConfigError{Field: "L1Proofs", Value: path, Err: err}
	}
	defer f.Close()
	pc, err := audit.CheckProofs(f, tree, snap)
	if err != nil {
		return pc, &deployer.ConfigError{Field: "L1Proofs", Value: path, Err: err}
	}
	return pc, nil
}

// CompareL1 reads the L1's snapshot of (bridge, version, stage) (version 0: the bridge's
// current one) and sets tree beside it. A bridge the L1 does not know yet and no snapshot
// yet are verdicts, not errors; the snapshot is returned when the L1 holds one.
func CompareL1(ctx context.Context, l1 Snapshots, tree *snapshot.Tree, bridgeID, version, stage uint64) (*L1Comparison, *l1node.Snapshot, error) {
	if version == 0 {
		var err error
		version, err = l1.BridgeVersion(ctx, bridgeID)
		if errors.Is(err, l1node.ErrBridgeNotRegistered) {
			return &L1Comparison{Verdict: VerdictBridgeNotRegistered}, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
	c := &L1Comparison{Version: version}
	snap, err := l1.Snapshot(ctx, bridgeID, version, stage)
	switch {
	case errors.Is(err, l1node.ErrNoSnapshot):
		c.Verdict = VerdictNoSnapshot
		return c, nil, nil
	case err != nil:
		return c, nil, err
	}
	c.Snapshot = &snap
	switch audit.Compare(tree, snap) {
	case audit.Match:
		c.Verdict = VerdictMatch
	case audit.TotalDiffers:
		c.Verdict = VerdictTotalDiffers
	case audit.RootDiffers:
		c.Verdict = VerdictRootDiffers
	}
	return c, &snap, nil
}

// PolicyReader is what a policy audit reads of the contract: *deployer.Scorer is one.
type PolicyReader interface {
	scores.StageReader
	Contract() string
}

// PolicyAuditOptions are what an audit of a contract's stage against a policy reads.
type PolicyAuditOptions struct {
	// Compute says how the stage is computed (its Stage and BridgeID are the audit's).
	Compute ComputeOptions
	// Open opens the contract (and a function that closes it) once the policy's stage is
	// computed.
	Open func(ctx context.Context) (PolicyReader, func(), error)
	// Version is the bridge's version on the L1; 0 is its current one.
	Version uint64
	// L1 is where the agent's snapshot is read to compare with; nil is the L1 the stage's
	// times are read from.
	L1 Snapshots
	// ProofsFile, when set, receives the policy's tree's proof lines; Out, when set, the
	// policy's score file and manifest.
	ProofsFile, Out string
}

// Validated is o with its computation's defaults, or the first field that cannot be used.
func (o PolicyAuditOptions) Validated() (PolicyAuditOptions, error) {
	c, err := o.Compute.Validated()
	if err != nil {
		return o, err
	}
	o.Compute = c
	if o.L1 == nil {
		o.L1 = l1node.NewReader(c.L1REST, c.VIPModule, nil)
	}
	if o.Open == nil {
		return o, &deployer.ConfigError{Field: "Open", Value: nil, Err: errors.New("no contract to compare with")}
	}
	return o, nil
}

// PolicyAudited is a stage computed by a policy set beside the contract's and the L1's.
type PolicyAudited struct {
	Stage    *Stage
	Manifest policy.Manifest
	Tree     *snapshot.Tree
	Contract *policy.Comparison
	L1       *L1Comparison
}

// Fails are the findings that fail the audit: the contract's scores differ from the
// policy's, or the L1's total from the policy tree's.
func (a *PolicyAudited) Fails() bool {
	return len(a.Contract.Differences) > 0 || a.L1 != nil && a.L1.Verdict == VerdictTotalDiffers
}

// AuditPolicy recomputes the stage by the policy (ComputeStage), builds the tree of its
// scores, sets the contract's stage beside them (every address that differs or that one
// side lacks) and the L1's snapshot beside the tree. A contract without the stage is
// vip.ErrStageMissing.
func AuditPolicy(ctx context.Context, o PolicyAuditOptions) (*PolicyAudited, error) {
	o, err := o.Validated()
	if err != nil {
		return nil, err
	}
	stage, bridgeID := o.Compute.Stage, o.Compute.BridgeID
	ps, err := ComputeStage(ctx, o.Compute)
	if err != nil {
		return nil, err
	}
	if o.Out != "" {
		if err := policy.WriteOutputs(o.Out, ps.ScoreFile, ps.Manifest); err != nil {
			return nil, err
		}
	}
	tree, err := policy.Tree(bridgeID, stage, ps.Result.Scores)
	if err != nil {
		return nil, err
	}
	if o.ProofsFile != "" {
		if err := WriteProofs(tree, o.ProofsFile); err != nil {
			return nil, err
		}
	}
	a := &PolicyAudited{Stage: ps, Tree: tree}
	if err := json.Unmarshal(ps.Manifest, &a.Manifest); err != nil {
		return nil, fmt.Errorf("read back the manifest: %w", err)
	}
	if a.Contract, err = compareContract(ctx, o.Open, stage, ps.Result.Scores); err != nil {
		return nil, err
	}
	if a.L1, _, err = CompareL1(ctx, o.L1, tree, bridgeID, o.Version, stage); err != nil {
		return nil, err
	}
	return a, nil
}

// compareContract opens the contract and sets its stage beside the policy's scores.
func compareContract(ctx context.Context, open func(ctx context.Context) (PolicyReader, func(), error), stage uint64, ss []policy.Score) (*policy.Comparison, error) {
	r, closeFn, err := open(ctx)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	c, err := policy.CompareStage(ctx, r, stage, ss)
	if errors.Is(err, vip.ErrStageMissing) {
		return nil, fmt.Errorf("the contract %s has no stage %d: %w", r.Contract(), stage, err)
	}
	return c, err
}
