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

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/indexer"
	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/scorers"
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
	f.Uint64Var(&o.logSpan, "log-span", 2000, "blocks per eth_getLogs request")
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

// policyStage is a stage computed by a policy: the run (window, source), the result, and
// the score file and manifest made of them.
type policyStage struct {
	run                 policy.Run
	res                 *policy.Result
	scoreFile, manifest []byte
}

// total is the sum of the stage's scores.
func (ps *policyStage) total() uint64 {
	var t uint64
	for _, s := range ps.res.Scores {
		t += s.Score
	}
	return t
}

// computeStage reads stage's times from the L1, maps them to the rollup's blocks, reads the
// policy's sources from the node (or the indexer) and scores them: what scores compute,
// audit --policy and operate --policy share.
func (c *chainOptions) computeStage(ctx context.Context, o computeOptions, p *policy.Policy, stage uint64) (*policyStage, error) {
	if err := c.policyReads(o, p); err != nil {
		return nil, err
	}
	src, err := c.l1Source(true)
	if err != nil {
		return nil, err
	}
	if src.REST.Value == "" || src.VIP.Value == "" {
		return nil, invalid(errors.New("the stage's times come from the L1: pass --l1-rest and --vip-address, or --network"))
	}
	times, err := l1node.NewReader(src.REST.Value, src.VIP.Value, nil).StageTimes(ctx, stage)
	if err != nil {
		return nil, err
	}
	var (
		span   policy.Span
		run    policy.Run
		reader policy.Reader
	)
	if p.IsCosmos() {
		span, run, reader, err = c.cosmosReader(ctx, o, stage, times.Start, times.End)
	} else {
		var node *policy.Node
		node, span, run, reader, err = c.evmReader(ctx, o, stage, times.Start, times.End)
		if node != nil {
			defer node.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	run.Stage, run.BridgeID = stage, o.bridgeID
	res, err := policy.Compute(ctx, p, span.Window, reader)
	if err != nil {
		return nil, fmt.Errorf("stage %d: %w", stage, err)
	}
	scoreFile, manifest, err := policy.Outputs(p, run, res)
	if err != nil {
		return nil, fmt.Errorf("stage %d: %w", stage, err)
	}
	return &policyStage{run: run, res: res, scoreFile: scoreFile, manifest: manifest}, nil
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

// policyReads refuses a policy for another VM than --vm names (when given) and a rollup
// endpoint missing for the policy's VM: EVM reads the JSON-RPC; Move and Wasm the CometBFT
// RPC, or the indexer alone.
func (c *rollupOptions) policyReads(o computeOptions, p *policy.Policy) error {
	vm, err := vip.ParseVM(p.VM)
	if err != nil {
		return invalid(fmt.Errorf("policy %s: vm: %w", p.Name, err))
	}
	if o.vmSet && c.vm != p.VM {
		return invalid(fmt.Errorf("--vm %s: the policy %s's vm is %s", c.vm, p.Name, p.VM))
	}
	switch cosmos := scorers.MustDescribe(vm).Cosmos; {
	case !cosmos && c.rpc == "":
		return invalid(errors.New("--rpc (or JSON_RPC_URL) is required: the rollup's EVM JSON-RPC"))
	case cosmos && c.cometRPC == "" && o.indexerURL == "":
		return invalid(fmt.Errorf("a %s policy reads the rollup's CometBFT RPC (--comet-rpc or COMET_RPC_URL) or an indexer (--indexer)", p.VM))
	}
	return nil
}

// evmReader maps the stage to an EVM rollup's blocks over its JSON-RPC and reads them from
// the node, or from the indexer with block times and inputs from the node.
func (c *rollupOptions) evmReader(ctx context.Context, o computeOptions, stage, start, end uint64) (*policy.Node, policy.Span, policy.Run, policy.Reader, error) {
	var run policy.Run
	node, err := policy.DialNode(ctx, c.rpc)
	if err != nil {
		return nil, policy.Span{}, run, nil, err
	}
	node.LogSpan = max(o.logSpan, 1)
	span, err := policy.FindWindow(ctx, node, start, end)
	if err != nil {
		return node, span, run, nil, fmt.Errorf("stage %d: %w", stage, err)
	}
	run.Span = span
	if o.indexerURL == "" {
		head, err := node.Head(ctx)
		if err != nil {
			return node, span, run, nil, err
		}
		run.SourceKind, run.SourceHeight = "node", head.Number
		return node, span, run, node, nil
	}
	client, err := indexer.NewClient(o.indexerURL)
	if err != nil {
		return node, span, run, nil, invalid(fmt.Errorf("--indexer: %w", err))
	}
	ix := &policy.IndexerSource{Client: client, Node: node}
	h, err := ix.Height(ctx)
	if err != nil {
		return node, span, run, nil, err
	}
	if h < span.LastBlock {
		return node, span, run, nil, fmt.Errorf("stage %d: the indexer has collected blocks up to %d, the stage ends at block %d: %w", stage, h, span.LastBlock, policy.ErrBehind)
	}
	run.SourceKind, run.SourceHeight = "indexer", h
	return node, span, run, ix, nil
}

// cosmosReader maps the stage to a Move or Wasm rollup's blocks and reads them from one
// place: the node's CometBFT RPC (headers, tx_search), or the indexer alone (its blocks and
// Cosmos txs). The score file's addresses take the chain's bech32 prefix, asked of --rest
// when given (Initia's rollups all use "init").
func (c *rollupOptions) cosmosReader(ctx context.Context, o computeOptions, stage, start, end uint64) (policy.Span, policy.Run, policy.Reader, error) {
	var (
		run     policy.Run
		headers policy.Headers
		reader  policy.Reader
	)
	if o.indexerURL != "" {
		client, err := indexer.NewClient(o.indexerURL)
		if err != nil {
			return policy.Span{}, run, nil, invalid(fmt.Errorf("--indexer: %w", err))
		}
		ix := &policy.CosmosIndexer{Client: client}
		headers, reader, run.SourceKind = ix, ix, "indexer"
	} else {
		node, err := policy.DialComet(c.cometRPC)
		if err != nil {
			return policy.Span{}, run, nil, err
		}
		headers, reader, run.SourceKind = node, node, "node"
	}
	// The newest block is the source's: the window's search refuses while it is behind.
	span, err := policy.FindWindow(ctx, headers, start, end)
	if err != nil {
		return span, run, nil, fmt.Errorf("stage %d: %w", stage, err)
	}
	head, err := headers.Head(ctx)
	if err != nil {
		return span, run, nil, err
	}
	run.Span, run.SourceHeight = span, head.Number
	run.Prefix = "init"
	if c.rest != "" {
		if run.Prefix, err = cosmosnode.New(c.rest, "", nil).Bech32Prefix(ctx); err != nil {
			return span, run, nil, err
		}
	}
	return span, run, reader, nil
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
	run, res, span, scoreFile, manifest := ps.run, ps.res, ps.run.Span, ps.scoreFile, ps.manifest
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
		total := ps.total()
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
