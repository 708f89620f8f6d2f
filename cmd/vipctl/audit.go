package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/snapshot"
	"github.com/vipharness/vipharness/deployer/vip"
)

// auditGCPercent is the collector's pacing during an audit (see audit).
const auditGCPercent = 25

// auditOutput is what `audit --json` prints: the tree's root and total, and the L1's
// snapshot beside it when the L1 was read.
type auditOutput struct {
	BridgeID     uint64 `json:"bridge_id"`
	Stage        uint64 `json:"stage"`
	MerkleRoot   string `json:"merkle_root"`
	TotalL2Score uint64 `json:"total_l2_score"`
	Leaves       int    `json:"leaves"`
	Finalized    bool   `json:"finalized"`
	// L1 is the L1's snapshot and how it compares ("match", "root_differs",
	// "total_differs", "no_snapshot"); absent without an L1.
	L1       *auditL1          `json:"l1,omitempty"`
	L1Proofs *audit.ProofCheck `json:"l1_proofs,omitempty"`
	// Policy is the policy's recomputation of the stage beside the contract's (--policy).
	Policy *auditPolicy `json:"policy,omitempty"`
}

// auditPolicy is what audit --policy found: the policy's stage and every address whose
// score on chain differs from it.
type auditPolicy struct {
	Name          string           `json:"name"`
	Manifest      *policy.Manifest `json:"manifest"`
	ContractRows  int              `json:"contract_rows"`
	ContractTotal uint64           `json:"contract_total"`
	Differences   []auditDiff      `json:"differences"`
}

type auditDiff struct {
	Address  string `json:"address"`
	Policy   uint64 `json:"policy"`
	Contract uint64 `json:"contract"`
	// OnChain is false where the contract holds no row for the address.
	OnChain bool `json:"on_chain"`
}

type auditL1 struct {
	Version uint64 `json:"version,omitempty"`
	// Verdict: match, root_differs, total_differs, no_snapshot, or bridge_not_registered
	// (the L1 does not know the bridge yet: nothing to compare with).
	Verdict      string `json:"verdict"`
	MerkleRoot   string `json:"merkle_root,omitempty"`
	TotalL2Score uint64 `json:"total_l2_score"`
	CreateTime   uint64 `json:"create_time,omitempty"`
}

// auditOptions are audit's flags.
type auditOptions struct {
	*chainOptions
	st, bridgeID, version uint64
	allowOpen             bool
	proofsFile, l1Proofs  string
	policy                computeOptions // --policy and its reading flags
}

func newAuditCmd(ro *rootOptions) *cobra.Command {
	o := &auditOptions{chainOptions: newChainOptions()}
	po := &o.policy
	cmd := &cobra.Command{
		Use:   "audit --stage N --bridge-id B [--proofs FILE] [--l1-proofs FILE]",
		Short: "Rebuild the VIP snapshot of a finalized stage (merkle root, total, every address's proof) and check it against the L1's",
		Long: `audit reads a finalized stage back from the scoring contract, builds the merkle tree the
L1's vip module checks claims against (leaf: sha3-256 of BCS bridge_id, stage, the 32-byte
address, l2_score, total_l2_score; leaves sorted by address; nodes hash the smaller child
first) and prints its root and total. --proofs writes one JSON line per address for
batch_claim_user_reward_script. With an L1 (--network, or --l1-rest and --vip-address) it
reads the agent's snapshot of (bridge, the bridge's current version, stage) and compares:
another total exits 4; the same total with another root is a warning (the agent's tree
shape is not published), and --l1-proofs then checks the agent's proof lines against the
L1's root and the contract's scores (exit 4 on any failure).

With --policy, audit recomputes the stage from the rollup's own activity by the published
scoring policy (as scores compute does: the L1's stage times, the node or --indexer), builds
the tree of the policy's scores (--proofs writes their proofs; --out the score file and
manifest), and reads the contract's stage beside it: every address whose score there differs
from the policy's, or that only one side holds, is named (exit 4). A bridge the L1 does not
know yet (before registration) gives the root and the proofs with a note, not a failure.`,
		Args: cobra.NoArgs,
		RunE: ro.runs(o.run),
	}
	f := cmd.Flags()
	f.Uint64Var(&o.st, "stage", 0, "the stage to audit")
	f.Uint64Var(&o.bridgeID, "bridge-id", 0, "the rollup's bridge id on the L1")
	f.Uint64Var(&o.version, "bridge-version", 0, "the bridge's version on the L1; default its current one (get_bridge_infos)")
	f.BoolVar(&o.allowOpen, "allow-open", false, "preview a stage that is not finalized (its scores may still change)")
	f.StringVar(&o.proofsFile, "proofs", "", "write every address's proof line (JSON lines) to this file")
	f.StringVar(&o.l1Proofs, "l1-proofs", "", "proof lines from the agent's API to check against the L1's root")
	f.StringVar(&po.policy, "policy", "", "recompute the stage by this scoring policy (YAML) and name every address whose score on chain differs")
	f.StringArrayVar(&po.params, "param", nil, "with --policy: override a policy param: name=value (repeatable)")
	f.StringVar(&po.indexerURL, "indexer", "", "with --policy: read activity from this indexer (rollytics API) instead of the node")
	f.Uint64Var(&po.logSpan, "log-span", 2000, "with --policy: blocks per eth_getLogs request")
	f.StringVar(&po.out, "out", "", "with --policy: also write the policy's score file and manifest into this folder")
	return o.addFlags(cmd, rollupFlags, l1Flags)
}

// run refuses what audit cannot do, then audits the contract's stage, or with --policy the
// policy's scores against it.
func (o *auditOptions) run(ctx context.Context, sess session) error {
	if o.st == 0 {
		return invalid(errors.New("--stage is required (a finalized stage >= 1)"))
	}
	if !o.changed("bridge-id") {
		return invalid(errors.New("--bridge-id is required: the bridge id the L1 registered the rollup under (every leaf holds it)"))
	}
	if o.policy.policy != "" {
		if o.l1Proofs != "" || o.allowOpen {
			return invalid(errors.New("--policy audits the policy's scores against the contract's: --l1-proofs and --allow-open are for an audit of the contract alone"))
		}
		return o.auditPolicy(ctx, sess)
	}
	if o.l1Proofs != "" && !o.l1Configured() {
		return invalid(errors.New("--l1-proofs needs the L1 (--network, or --l1-rest and --vip-address): its proofs are checked against the L1's root"))
	}
	return o.withScorer(ctx, sess, func(ctx context.Context, s *deployer.Scorer) error {
		return o.audit(ctx, sess, s)
	})
}

// audit builds the tree of the contract's stage and sets the L1's snapshot beside it.
func (o *auditOptions) audit(ctx context.Context, sess session, s *deployer.Scorer) error {
	st, bridgeID, version, allowOpen, proofsFile, l1Proofs := o.st, o.bridgeID, o.version, o.allowOpen, o.proofsFile, o.l1Proofs
	// The tree's rows and hashes hold no pointers and stay live to the end: collecting at
	// 25% growth instead of 100% keeps a million-address audit's heap near what it holds
	// (BENCHMARKS.md, Audit) for little collector work. A GOGC the user set wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(auditGCPercent)
	}
	tree, info, err := audit.BuildFromStage(ctx, s, bridgeID, st, allowOpen)
	switch {
	case errors.Is(err, audit.ErrNotFinalized), errors.Is(err, vip.ErrStageMissing):
		return invalid(err)
	case errors.Is(err, audit.ErrTotalsDiffer):
		return &exitError{exitMismatch, err}
	case err != nil:
		return classify(err)
	}
	out := auditOutput{BridgeID: bridgeID, Stage: st, MerkleRoot: tree.Root().String(), TotalL2Score: tree.Total, Leaves: tree.Len(), Finalized: info.Finalized}
	if proofsFile != "" {
		if err := writeProofs(tree, proofsFile); err != nil {
			return err
		}
	}
	human := fmt.Sprintf("bridge %d stage %d: merkle root %s, total_l2_score %d, %d leaves", bridgeID, st, out.MerkleRoot, out.TotalL2Score, out.Leaves)
	if !info.Finalized {
		human += " (stage open: a preview)"
	}
	if proofsFile != "" {
		human += "\nproofs: " + proofsFile
	}
	l1, l1Human, fail, err := o.compareL1(ctx, tree, bridgeID, version, st, "the contract's", func(snap l1node.Snapshot) (*audit.ProofCheck, string, error, error) {
		if l1Proofs == "" {
			return nil, "", nil, nil
		}
		pc, err := checkL1Proofs(l1Proofs, tree, snap)
		if err != nil {
			return nil, "", nil, err
		}
		human := fmt.Sprintf("\n--l1-proofs: %d lines, %d pass against the L1 root, %d fail", pc.Lines, pc.Passed, pc.Failed)
		for _, f := range pc.Failures {
			human += "\n  " + f
		}
		if pc.Failed > 0 {
			return &pc, human, fmt.Errorf("stage %d: %d of %d proof lines in %s fail against the L1's root with the contract's scores", st, pc.Failed, pc.Lines, l1Proofs), nil
		}
		return &pc, human, nil, nil
	})
	if err != nil {
		return err
	}
	out.L1, human = l1.snap, human+l1Human
	out.L1Proofs = l1.proofs
	if err := sess.printResult(out, human); err != nil {
		return err
	}
	if fail != nil {
		return &exitError{exitMismatch, fail}
	}
	return nil
}

func writeProofs(tree *snapshot.Tree, path string) error {
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

func checkL1Proofs(path string, tree *snapshot.Tree, snap l1node.Snapshot) (audit.ProofCheck, error) {
	f, err := os.Open(path)
	if err != nil {
		return audit.ProofCheck{}, invalid(fmt.Errorf("--l1-proofs: %w", err))
	}
	defer f.Close()
	pc, err := audit.CheckProofs(f, tree, snap)
	if err != nil {
		return pc, invalid(fmt.Errorf("--l1-proofs %s: %w", path, err))
	}
	return pc, nil
}

// l1Comparison is the L1's side of an audit.
type l1Comparison struct {
	snap   *auditL1
	proofs *audit.ProofCheck
}

// compareL1 reads the L1's snapshot of (bridge, version, stage) and sets tree beside it
// (whose names the tree's side in messages); check runs on a snapshot whose total matches.
// No L1 configured: nothing. A bridge the L1 does not know (before registration) and no
// snapshot yet are notes; another total is fail (exit 4); err is a failure to read.
func (o *l1Options) compareL1(ctx context.Context, tree *snapshot.Tree, bridgeID, version, st uint64, whose string,
	check func(l1node.Snapshot) (pc *audit.ProofCheck, human string, fail, err error)) (c l1Comparison, human string, fail, err error) {
	r, err := o.optionalL1Reader()
	if err != nil || r == nil {
		return c, "", nil, err
	}
	l1 := r
	if version == 0 {
		version, err = l1.BridgeVersion(ctx, bridgeID)
		if errors.Is(err, l1node.ErrBridgeNotRegistered) {
			c.snap = &auditL1{Verdict: "bridge_not_registered"}
			return c, fmt.Sprintf("\nnote: the L1 does not know bridge %d yet (not registered): the root and proofs above are %s own, with no snapshot to compare; they hold once the rollup registers under bridge id %d", bridgeID, whose, bridgeID), nil, nil
		}
		if err != nil {
			return c, "", nil, err
		}
	}
	a := &auditL1{Version: version}
	c.snap = a
	snap, err := l1.Snapshot(ctx, bridgeID, version, st)
	switch {
	case errors.Is(err, l1node.ErrNoSnapshot):
		a.Verdict = "no_snapshot"
		return c, fmt.Sprintf("\nthe L1 holds no snapshot of bridge %d version %d stage %d yet (the agent submits it after the stage ends)", bridgeID, version, st), nil, nil
	case err != nil:
		return c, "", nil, err
	}
	a.MerkleRoot, a.TotalL2Score, a.CreateTime = fmt.Sprintf("%x", snap.MerkleRoot), snap.TotalL2Score, snap.CreateTime
	switch audit.Compare(tree, snap) {
	case audit.Match:
		a.Verdict = "match"
		human = fmt.Sprintf("\nmatches the L1 snapshot (bridge %d version %d stage %d)", bridgeID, version, st)
	case audit.TotalDiffers:
		a.Verdict = "total_differs"
		return c, "", fmt.Errorf("stage %d: the L1 snapshot's total_l2_score is %d, %s %d: every leaf (which holds the total) differs, so no user's claim can pass with %s scores", st, snap.TotalL2Score, whose, tree.Total, whose), nil
	case audit.RootDiffers:
		a.Verdict = "root_differs"
		human = fmt.Sprintf("\nwarning: the L1 snapshot has the same total but another root (%x): the agent's tree shape is not published, so this alone proves no fault; our proofs verify against our root only. Check the agent's proofs with --l1-proofs", snap.MerkleRoot)
	}
	if check == nil {
		return c, human, nil, nil
	}
	pc, more, fail, err := check(snap)
	c.proofs = pc
	return c, human + more, fail, err
}
