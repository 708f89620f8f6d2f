package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/tasks"
	"github.com/vipharness/vipharness/deployer/vip"
)

// auditPolicy recomputes the stage by the policy, builds the tree of its scores, sets the
// contract's stage beside them (every address that differs or that one side lacks is named:
// exit 4) and the L1's snapshot beside the tree (a bridge the L1 does not know yet is a
// note).
func (ao *auditOptions) auditPolicy(ctx context.Context, sess session) error {
	o := ao.policy // the policy's reading flags, for the stage and bridge audited
	o.stage, o.bridgeID = ao.st, ao.bridgeID
	proofsFile := ao.proofsFile
	if err := ao.checkVMFlag(); err != nil {
		return err
	}
	p, err := loadPolicy(o)
	if err != nil {
		return err
	}
	to, err := ao.stageOptions(o, p, o.stage)
	if err != nil {
		return err
	}
	a, err := tasks.AuditPolicy(ctx, tasks.PolicyAuditOptions{Compute: to, Version: ao.version, ProofsFile: proofsFile, Out: o.out,
		Open: func(ctx context.Context) (tasks.PolicyReader, func(), error) {
			return ao.reader(ctx, sess, scorerRequest{})
		}})
	if errors.Is(err, vip.ErrStageMissing) {
		return invalid(err)
	}
	if err != nil {
		return classify(err)
	}
	ps, tree, c := a.Stage, a.Tree, a.Contract
	out := auditOutput{BridgeID: o.bridgeID, Stage: o.stage, MerkleRoot: tree.Root().String(), TotalL2Score: tree.Total, Leaves: tree.Len(), Finalized: c.Finalized,
		Policy: &auditPolicy{Name: p.Name, Manifest: &a.Manifest, ContractRows: c.Rows, ContractTotal: c.ContractTotal, Differences: []auditDiff{}}}
	var b strings.Builder
	fmt.Fprintf(&b, "policy %s, stage %d: blocks %d..%d from the %s at height %d: %d addresses, total %d\n",
		p.Name, o.stage, ps.Run.Span.FirstBlock, ps.Run.Span.LastBlock, ps.Run.SourceKind, ps.Run.SourceHeight, len(ps.Result.Scores), ps.Total())
	fmt.Fprintf(&b, "bridge %d stage %d by the policy: merkle root %s, total_l2_score %d, %d leaves", o.bridgeID, o.stage, out.MerkleRoot, tree.Total, tree.Len())
	if proofsFile != "" {
		fmt.Fprintf(&b, "\nproofs: %s", proofsFile)
	}
	if o.out != "" {
		fmt.Fprintf(&b, "\nwrote %s and %s", filepath.Join(o.out, policy.ScoreFileName), filepath.Join(o.out, policy.ManifestName))
	}

	var fails []error
	state := "open"
	if c.Finalized {
		state = "finalized"
	}
	if len(c.Differences) == 0 {
		fmt.Fprintf(&b, "\nthe contract's stage %d (%s, %d rows, total %d) holds the policy's scores", o.stage, state, c.Rows, c.ContractTotal)
	} else {
		fmt.Fprintf(&b, "\nthe contract's stage %d (%s, %d rows, total %d; the policy's total %d) differs from the policy at %s:", o.stage, state, c.Rows, c.ContractTotal, c.PolicyTotal, addresses(len(c.Differences)))
		ap := out.Policy
		for _, d := range c.Differences {
			ap.Differences = append(ap.Differences, auditDiff{Address: d.Text, Policy: d.Policy, Contract: d.Contract, OnChain: d.OnChain})
			switch {
			case !d.OnChain:
				fmt.Fprintf(&b, "\n  %s: policy %d, missing on chain", d.Text, d.Policy)
			case d.Policy == 0:
				fmt.Fprintf(&b, "\n  %s: contract %d, the policy gives no score", d.Text, d.Contract)
			default:
				fmt.Fprintf(&b, "\n  %s: policy %d, contract %d", d.Text, d.Policy, d.Contract)
			}
		}
		fails = append(fails, fmt.Errorf("stage %d: the contract's scores differ from the policy's at %s", o.stage, addresses(len(c.Differences))))
	}
	l1, human, fail := l1Words(a.L1, tree, o.bridgeID, o.stage, "the policy's")
	out.L1 = l1
	b.WriteString(human)
	if fail != nil {
		fails = append(fails, fail)
	}
	if err := sess.printResult(out, b.String()); err != nil {
		return err
	}
	if len(fails) > 0 {
		return &exitError{exitMismatch, errors.Join(fails...)}
	}
	return nil
}

// addresses is "1 address" or "n addresses".
func addresses(n int) string {
	if n == 1 {
		return "1 address"
	}
	return fmt.Sprintf("%d addresses", n)
}
