package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/snapshot"
	"github.com/vipharness/vipharness/deployer/tasks"
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
	f.Uint64Var(&po.logSpan, "log-span", tasks.DefaultLogSpan, "with --policy: blocks per eth_getLogs request")
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
	st, bridgeID, proofsFile, l1Proofs := o.st, o.bridgeID, o.proofsFile, o.l1Proofs
	// The tree's rows and hashes hold no pointers and stay live to the end: collecting at
	// 25% growth instead of 100% keeps a million-address audit's heap near what it holds
	// (BENCHMARKS.md, Audit) for little collector work. A GOGC the user set wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(auditGCPercent)
	}
	ao := tasks.AuditOptions{Stage: st, BridgeID: bridgeID, Version: o.version, AllowOpen: o.allowOpen, ProofsFile: proofsFile, L1Proofs: l1Proofs}
	if r, err := o.optionalL1Reader(); err != nil {
		return err
	} else if r != nil {
		ao.L1 = r
	}
	a, err := tasks.AuditStage(ctx, s, ao)
	var ce *deployer.ConfigError
	var pe *fs.PathError
	switch {
	case errors.Is(err, audit.ErrNotFinalized), errors.Is(err, vip.ErrStageMissing):
		return invalid(err)
	case errors.Is(err, audit.ErrTotalsDiffer):
		return &exitError{exitMismatch, err}
	case errors.As(err, &ce) && ce.Field == "L1Proofs" && errors.As(err, &pe):
		return invalid(fmt.Errorf("--l1-proofs: %w", ce.Err))
	case errors.As(err, &ce) && ce.Field == "L1Proofs":
		return invalid(fmt.Errorf("--l1-proofs %s: %w", l1Proofs, ce.Err))
	case err != nil:
		return classify(err)
	}
	tree := a.Tree
	out := auditOutput{BridgeID: bridgeID, Stage: st, MerkleRoot: tree.Root().String(), TotalL2Score: tree.Total, Leaves: tree.Len(), Finalized: a.Info.Finalized}
	human := fmt.Sprintf("bridge %d stage %d: merkle root %s, total_l2_score %d, %d leaves", bridgeID, st, out.MerkleRoot, out.TotalL2Score, out.Leaves)
	if !a.Info.Finalized {
		human += " (stage open: a preview)"
	}
	if proofsFile != "" {
		human += "\nproofs: " + proofsFile
	}
	l1, l1Human, fail := l1Words(a.L1, tree, bridgeID, st, "the contract's")
	out.L1, human = l1, human+l1Human
	if pc := a.L1Proofs; pc != nil {
		out.L1Proofs = pc
		human += fmt.Sprintf("\n--l1-proofs: %d lines, %d pass against the L1 root, %d fail", pc.Lines, pc.Passed, pc.Failed)
		for _, f := range pc.Failures {
			human += "\n  " + f
		}
		if pc.Failed > 0 {
			fail = fmt.Errorf("stage %d: %d of %d proof lines in %s fail against the L1's root with the contract's scores", st, pc.Failed, pc.Lines, l1Proofs)
		}
	}
	if err := sess.printResult(out, human); err != nil {
		return err
	}
	if fail != nil {
		return &exitError{exitMismatch, fail}
	}
	return nil
}

// l1Words is the L1's side of an audit (nil: no L1) in audit's JSON and words, with tree's
// side named whose; fail is another total (exit 4). A bridge the L1 does not know (before
// registration) and no snapshot yet are notes.
func l1Words(c *tasks.L1Comparison, tree *snapshot.Tree, bridgeID, st uint64, whose string) (a *auditL1, human string, fail error) {
	if c == nil {
		return nil, "", nil
	}
	a = &auditL1{Version: c.Version, Verdict: c.Verdict}
	if snap := c.Snapshot; snap != nil {
		a.MerkleRoot, a.TotalL2Score, a.CreateTime = fmt.Sprintf("%x", snap.MerkleRoot), snap.TotalL2Score, snap.CreateTime
	}
	switch c.Verdict {
	case tasks.VerdictBridgeNotRegistered:
		return a, fmt.Sprintf("\nnote: the L1 does not know bridge %d yet (not registered): the root and proofs above are %s own, with no snapshot to compare; they hold once the rollup registers under bridge id %d", bridgeID, whose, bridgeID), nil
	case tasks.VerdictNoSnapshot:
		return a, fmt.Sprintf("\nthe L1 holds no snapshot of bridge %d version %d stage %d yet (the agent submits it after the stage ends)", bridgeID, c.Version, st), nil
	case tasks.VerdictMatch:
		return a, fmt.Sprintf("\nmatches the L1 snapshot (bridge %d version %d stage %d)", bridgeID, c.Version, st), nil
	case tasks.VerdictTotalDiffers:
		return a, "", fmt.Errorf("stage %d: the L1 snapshot's total_l2_score is %d, %s %d: every leaf (which holds the total) differs, so no user's claim can pass with %s scores", st, c.Snapshot.TotalL2Score, whose, tree.Total, whose)
	case tasks.VerdictRootDiffers:
		return a, fmt.Sprintf("\nwarning: the L1 snapshot has the same total but another root (%x): the agent's tree shape is not published, so this alone proves no fault; our proofs verify against our root only. Check the agent's proofs with --l1-proofs", c.Snapshot.MerkleRoot), nil
	}
	return a, "", nil
}
