package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/tasks"
	"github.com/vipharness/vipharness/deployer/vip"
)

// computeOptions are scores compute's own flags.
type computeOptions struct {
	policy, out, indexerURL string
	stage, bridgeID         uint64
	params                  []string
	logSpan                 uint64
	check, compare          bool
	vmSet                   bool // --vm (or VM) was given: it must be the policy's
}

// scoresComputeOptions are scores compute's flags.
type scoresComputeOptions struct {
	*chainOptions
	policy computeOptions
}

func newScoresComputeCmd(ro *rootOptions) *cobra.Command {
	so := &scoresComputeOptions{chainOptions: newChainOptions()}
	o := &so.policy
	cmd := &cobra.Command{
		Use:   "compute --policy P --stage N --bridge-id B",
		Short: "Compute a stage's scores from the rollup's own activity by a published scoring policy",
		Long: `compute reads the stage's start and end times from the L1's vip module, maps them to the
rollup's first and last blocks inside them, reads the policy's sources over those blocks from
the node (EVM: eth_getLogs, block receipts over --rpc; Move and Wasm: CometBFT tx_search over
--comet-rpc) or from the indexer (--indexer: rollytics' evm-txs, with block times and
transaction inputs from the node; on Move and Wasm its Cosmos txs and blocks alone, and the
stage's blocks from its block API), and writes DIR/scores.csv and
DIR/manifest.json (the policy's digest, the block range and its boundary hashes, the source
and its height, the input digest, the score file's digest and the VIP merkle root for
--bridge-id). The same policy and chain give the same bytes from either source. It refuses
while the node or the indexer is behind the stage's end. --check only checks the policy
(schema, expressions, signatures, params) and prints what it reads and scores. --compare
then reads the stage back from the scoring contract (--contract) and names every address
whose score there differs from the policy's (exit 4).`,
		Args: cobra.NoArgs,
		RunE: ro.runs(so.run),
	}
	f := cmd.Flags()
	f.StringVar(&o.policy, "policy", "", "scoring policy file (YAML)")
	f.Uint64Var(&o.stage, "stage", 0, "the stage to score")
	f.Uint64Var(&o.bridgeID, "bridge-id", 0, "the rollup's bridge id on the L1 (for the merkle root)")
	f.StringVar(&o.out, "out", "", "output folder; default scores-stage-N")
	f.StringArrayVar(&o.params, "param", nil, "override a policy param: name=value (repeatable)")
	f.StringVar(&o.indexerURL, "indexer", "", "read activity from this indexer (rollytics API) instead of the node")
	f.Uint64Var(&o.logSpan, "log-span", tasks.DefaultLogSpan, "blocks per eth_getLogs request")
	f.BoolVar(&o.check, "check", false, "only check the policy file (no chain): print its sources, rules and actions")
	f.BoolVar(&o.compare, "compare", false, "compare the scores with the stage the scoring contract holds (exit 4 on any difference)")
	return so.addFlags(cmd, rollupFlags, l1Flags)
}

// run refuses a missing flag, then checks the policy (--check) or computes the stage.
func (so *scoresComputeOptions) run(ctx context.Context, sess session) error {
	o := so.policy
	switch {
	case o.policy == "":
		return invalid(errors.New("--policy is required: the scoring policy file (YAML)"))
	case o.check:
		return checkPolicy(sess, o)
	case o.stage == 0:
		return invalid(errors.New("--stage is required (a stage >= 1 the L1 has moved past)"))
	case !so.changed("bridge-id"):
		return invalid(errors.New("--bridge-id is required: the bridge id every merkle leaf holds"))
	}
	o.vmSet = so.changed("vm") || os.Getenv("VM") != ""
	return so.computeScores(ctx, sess, o)
}

// loadPolicy reads the policy with the --param overrides; a policy that fails its checks
// is bad input (exit 2).
func loadPolicy(o computeOptions) (*policy.Policy, error) {
	params := map[string]string{}
	for _, kv := range o.params {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, invalid(fmt.Errorf("--param %q: want name=value", kv))
		}
		params[k] = v
	}
	p, err := policy.Load(o.policy, params)
	if err != nil {
		var pe policy.Errors
		if errors.As(err, &pe) {
			return nil, invalid(err)
		}
		var fe *fs.PathError // a file that is not there or cannot be read: bad input too
		if errors.As(err, &fe) {
			return nil, invalid(fmt.Errorf("--policy: %w", err))
		}
		return nil, err
	}
	return p, nil
}

// checkPolicy prints what a policy that passes its checks reads and scores.
func checkPolicy(sess session, o computeOptions) error {
	p, err := loadPolicy(o)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "policy %s: sha256:%x\n", p.Name, p.Digest)
	for _, kv := range policy.SortedParams(p.Params) {
		fmt.Fprintf(&b, "param %s\n", kv)
	}
	for _, s := range p.Sources {
		what := s.Kind
		switch {
		case s.Event != nil:
			what += fmt.Sprintf(" %s of %s (topic0 %s)", s.Event.Sig, s.Contract.Hex(), s.Event.ID.Hex())
		case s.Method != nil:
			what += fmt.Sprintf(" %s on %s (selector 0x%x)", s.Method.Sig, s.Contract.Hex(), s.Method.ID)
		case s.Kind == policy.KindMove:
			what += " " + s.TypeTag
		case s.Kind == policy.KindWasm:
			what += fmt.Sprintf(" %s of %s", s.EventType, s.ContractText)
		case s.Kind == policy.KindCosmos:
			what += " " + s.EventType
		case s.Denom != "":
			what += " of " + s.Denom + " (x/bank transfer events of messages)"
		}
		for _, k := range policySortedKeys(s.Attrs) {
			what += fmt.Sprintf(" %s=%q", k, s.Attrs[k])
		}
		if s.Genesis {
			what += ", from genesis"
		}
		fmt.Fprintf(&b, "source %s: %s\n", s.Name, what)
	}
	for _, r := range p.Rules {
		fmt.Fprintf(&b, "rule %s: %s of %s, weight %s\n", r.Name, r.Aggregate, r.Source.Name, r.Weight.RatString())
	}
	for _, a := range p.Actions {
		fmt.Fprintf(&b, "action %q: %s\n", a.Title, a.Description)
	}
	fmt.Fprintf(&b, "%d excluded addresses\n", len(p.Exclude))
	_, err = fmt.Fprint(sess.out, b.String())
	return err
}

// stageOptions are the task options of stage by policy p from the rollup and L1 flags;
// tasks.ComputeOptions.Validated checks them (its errors name fields; classify words them
// as flags).
func (c *chainOptions) stageOptions(o computeOptions, p *policy.Policy, stage uint64) (tasks.ComputeOptions, error) {
	src, err := c.l1Source(true)
	if err != nil {
		return tasks.ComputeOptions{}, err
	}
	to := tasks.ComputeOptions{Policy: p, Stage: stage, BridgeID: o.bridgeID, JSONRPC: c.rpc, CometRPC: c.cometRPC, REST: c.rest,
		L1REST: src.REST.Value, VIPModule: src.VIP.Value, Indexer: o.indexerURL, LogSpan: o.logSpan}
	if o.vmSet {
		to.VM = vip.VM(c.vm)
	}
	return to, nil
}

// computeStage computes stage by policy p: what scores compute, audit --policy and operate
// --policy share.
func (c *chainOptions) computeStage(ctx context.Context, o computeOptions, p *policy.Policy, stage uint64) (*tasks.Stage, error) {
	to, err := c.stageOptions(o, p, stage)
	if err != nil {
		return nil, err
	}
	ps, err := tasks.ComputeStage(ctx, to)
	return ps, classify(err)
}

// checkVMFlag refuses a --vm that names no VM (the policy says which VM it reads).
func (o *rollupOptions) checkVMFlag() error {
	if o.vm == "" {
		return nil
	}
	if _, err := vip.ParseVM(o.vm); err != nil {
		return invalid(fmt.Errorf("--vm: %w", err))
	}
	return nil
}

// computeScores computes the stage o asks by the policy, writes the score file and
// manifest, and with --compare sets the contract's stage beside them.
func (so *scoresComputeOptions) computeScores(ctx context.Context, sess session, o computeOptions) error {
	if err := so.checkVMFlag(); err != nil {
		return err
	}
	p, err := loadPolicy(o)
	if err != nil {
		return err
	}
	ps, err := so.computeStage(ctx, o, p, o.stage)
	if err != nil {
		return err
	}
	run, res, span, scoreFile, manifest := ps.Run, ps.Result, ps.Run.Span, ps.ScoreFile, ps.Manifest
	dir := o.out
	if dir == "" {
		dir = fmt.Sprintf("scores-stage-%d", o.stage)
	}
	if err := policy.WriteOutputs(dir, scoreFile, manifest); err != nil {
		return err
	}
	if sess.jsonOut {
		if _, err := sess.out.Write(manifest); err != nil {
			return err
		}
	} else {
		total := ps.Total()
		_, err = fmt.Fprintf(sess.out, "stage %d: blocks %d..%d (%s..%s) from the %s at height %d: %d addresses, total %d\nwrote %s and %s\n",
			o.stage, span.FirstBlock, span.LastBlock, p.BlockHash(span.First.Hash), p.BlockHash(span.Last.Hash), run.SourceKind, run.SourceHeight,
			len(res.Scores), total, filepath.Join(dir, policy.ScoreFileName), filepath.Join(dir, policy.ManifestName))
		if err != nil {
			return err
		}
	}
	if !o.compare {
		return nil
	}
	return so.withScorer(ctx, sess, func(ctx context.Context, s *deployer.Scorer) error {
		c, err := policy.CompareStage(ctx, s, o.stage, res.Scores)
		if err != nil {
			return err
		}
		state := "open"
		if c.Finalized {
			state = "finalized"
		}
		w := sess.errOut
		if !sess.jsonOut {
			w = sess.out
		}
		if len(c.Differences) == 0 {
			_, err := fmt.Fprintf(w, "the contract's stage %d (%s, %d rows, total %d) holds the policy's scores\n", o.stage, state, c.Rows, c.ContractTotal)
			return err
		}
		fmt.Fprintf(w, "the contract's stage %d (%s, %d rows, total %d; the policy's total %d) differs at %d addresses:\n", o.stage, state, c.Rows, c.ContractTotal, c.PolicyTotal, len(c.Differences))
		for _, d := range c.Differences {
			fmt.Fprintf(w, "  %s: policy %d, contract %d\n", s.Codec().Encode(d.Addr[:]), d.Policy, d.Contract)
		}
		return &exitError{exitMismatch, fmt.Errorf("stage %d: the contract's scores differ from the policy's at %d addresses", o.stage, len(c.Differences))}
	})
}

func policySortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
