package tasks

import (
	"context"
	"fmt"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/indexer"
	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

// DefaultLogSpan is how many blocks one eth_getLogs covers unless ComputeOptions says.
const DefaultLogSpan = 2000

// ComputeOptions are what a stage computed by a policy reads.
type ComputeOptions struct {
	Policy   *policy.Policy
	Stage    uint64 // >= 1, a stage the L1 has moved past for the result to be whole
	BridgeID uint64 // the bridge every merkle leaf holds

	// VM, when set, must be the policy's (a caller that names the rollup's VM).
	VM vip.VM
	// JSONRPC is an EVM rollup's JSON-RPC; CometRPC a Move or Wasm rollup's CometBFT RPC
	// (not needed when Indexer is set); REST, when set, gives a Cosmos rollup's bech32
	// prefix ("init" without it, as on all of Initia's rollups).
	JSONRPC, CometRPC, REST string
	// L1REST and VIPModule say where the stage's times are read (the L1's vip module).
	L1REST, VIPModule string
	// Indexer, when set, is the rollytics API activity is read from instead of the node.
	Indexer string
	// LogSpan is how many blocks one eth_getLogs covers (DefaultLogSpan when 0).
	LogSpan uint64
}

// Validated is o with its defaults, or the first field that cannot be used.
func (o ComputeOptions) Validated() (ComputeOptions, error) {
	bad := func(field string, v any, format string, a ...any) (ComputeOptions, error) {
		return o, &deployer.ConfigError{Field: field, Value: v, Err: fmt.Errorf(format, a...)}
	}
	switch {
	case o.Policy == nil:
		return bad("Policy", nil, "no policy")
	case o.Stage == 0:
		return bad("Stage", 0, "want a stage >= 1")
	case o.L1REST == "" || o.VIPModule == "":
		return bad("L1REST and VIPModule", fmt.Sprintf("%q %q", o.L1REST, o.VIPModule), "the stage's times come from the L1's vip module")
	}
	vm, err := vip.ParseVM(o.Policy.VM)
	if err != nil {
		return bad("Policy.VM", o.Policy.VM, "policy %s: %w", o.Policy.Name, err)
	}
	if o.VM != "" && o.VM != vm {
		return bad("VM", o.VM, "the policy %s's vm is %s", o.Policy.Name, vm)
	}
	switch cosmos := vip.MustDescribe(vm).Cosmos; {
	case !cosmos && o.JSONRPC == "":
		return bad("JSONRPC", `""`, "an EVM policy reads the rollup's JSON-RPC")
	case cosmos && o.CometRPC == "" && o.Indexer == "":
		return bad("CometRPC or Indexer", `""`, "a %s policy reads the rollup's CometBFT RPC or an indexer", vm)
	}
	if o.LogSpan == 0 {
		o.LogSpan = DefaultLogSpan
	}
	return o, nil
}

// Stage is a stage computed by a policy: where it was read (window, source), the result,
// and the score file and manifest made of them.
type Stage struct {
	Run       policy.Run
	Result    *policy.Result
	ScoreFile []byte
	Manifest  []byte
}

// Total is the sum of the stage's scores.
func (s *Stage) Total() uint64 {
	var t uint64
	for _, sc := range s.Result.Scores {
		t += sc.Score
	}
	return t
}

// ComputeStage reads the stage's times from the L1, maps them to the rollup's blocks,
// reads the policy's sources from the node (or the indexer) and scores them. A source
// behind the stage's end is policy.ErrBehind.
func ComputeStage(ctx context.Context, o ComputeOptions) (*Stage, error) {
	o, err := o.Validated()
	if err != nil {
		return nil, err
	}
	times, err := l1node.NewReader(o.L1REST, o.VIPModule, nil).StageTimes(ctx, o.Stage)
	if err != nil {
		return nil, err
	}
	var (
		run    policy.Run
		reader policy.Reader
	)
	if o.Policy.IsCosmos() {
		run, reader, err = cosmosReader(ctx, o, times.Start, times.End)
	} else {
		var node *policy.Node
		node, run, reader, err = evmReader(ctx, o, times.Start, times.End)
		if node != nil {
			defer node.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	run.Stage, run.BridgeID = o.Stage, o.BridgeID
	res, err := policy.Compute(ctx, o.Policy, run.Span.Window, reader)
	if err != nil {
		return nil, fmt.Errorf("stage %d: %w", o.Stage, err)
	}
	scoreFile, manifest, err := policy.Outputs(o.Policy, run, res)
	if err != nil {
		return nil, fmt.Errorf("stage %d: %w", o.Stage, err)
	}
	return &Stage{Run: run, Result: res, ScoreFile: scoreFile, Manifest: manifest}, nil
}

// evmReader maps the stage to an EVM rollup's blocks over its JSON-RPC and reads them from
// the node, or from the indexer with block times and inputs from the node.
func evmReader(ctx context.Context, o ComputeOptions, start, end uint64) (*policy.Node, policy.Run, policy.Reader, error) {
	var run policy.Run
	node, err := policy.DialNode(ctx, o.JSONRPC)
	if err != nil {
		return nil, run, nil, err
	}
	node.LogSpan = o.LogSpan
	if run.Span, err = policy.FindWindow(ctx, node, start, end); err != nil {
		return node, run, nil, fmt.Errorf("stage %d: %w", o.Stage, err)
	}
	if o.Indexer == "" {
		head, err := node.Head(ctx)
		if err != nil {
			return node, run, nil, err
		}
		run.SourceKind, run.SourceHeight = "node", head.Number
		return node, run, node, nil
	}
	client, err := indexer.NewClient(o.Indexer)
	if err != nil {
		return node, run, nil, &deployer.ConfigError{Field: "Indexer", Value: o.Indexer, Err: err}
	}
	ix := &policy.IndexerSource{Client: client, Node: node}
	h, err := ix.Height(ctx)
	if err != nil {
		return node, run, nil, err
	}
	if h < run.Span.LastBlock {
		return node, run, nil, fmt.Errorf("stage %d: the indexer has collected blocks up to %d, the stage ends at block %d: %w", o.Stage, h, run.Span.LastBlock, policy.ErrBehind)
	}
	run.SourceKind, run.SourceHeight = "indexer", h
	return node, run, ix, nil
}

// cosmosReader maps the stage to a Move or Wasm rollup's blocks and reads them from one
// place: the node's CometBFT RPC (headers, tx_search), or the indexer alone (its blocks and
// Cosmos txs).
func cosmosReader(ctx context.Context, o ComputeOptions, start, end uint64) (policy.Run, policy.Reader, error) {
	var (
		run     policy.Run
		headers policy.Headers
		reader  policy.Reader
	)
	if o.Indexer != "" {
		client, err := indexer.NewClient(o.Indexer)
		if err != nil {
			return run, nil, &deployer.ConfigError{Field: "Indexer", Value: o.Indexer, Err: err}
		}
		ix := &policy.CosmosIndexer{Client: client}
		headers, reader, run.SourceKind = ix, ix, "indexer"
	} else {
		node, err := policy.DialComet(o.CometRPC)
		if err != nil {
			return run, nil, err
		}
		headers, reader, run.SourceKind = node, node, "node"
	}
	// The newest block is the source's: the window's search refuses while it is behind.
	span, err := policy.FindWindow(ctx, headers, start, end)
	if err != nil {
		return run, nil, fmt.Errorf("stage %d: %w", o.Stage, err)
	}
	head, err := headers.Head(ctx)
	if err != nil {
		return run, nil, err
	}
	run.Span, run.SourceHeight = span, head.Number
	run.Prefix = "init"
	if o.REST != "" {
		if run.Prefix, err = cosmosnode.New(o.REST, "", nil).Bech32Prefix(ctx); err != nil {
			return run, nil, err
		}
	}
	return run, reader, nil
}
