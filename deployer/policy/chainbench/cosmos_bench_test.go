package chainbench_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	api "github.com/vipharness/vipharness/bindings/indexer"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/localnet/indexer"
)

// cosmosPolicies score the synthetic Cosmos rollup's plays and sends as the demo arena
// policies do (fixtures/policies/demo-arena-*.yaml): Move events (a capped sum, a count,
// distinct days) and bank transfers; Wasm events, a cosmos_event count and bank transfers.
var cosmosPolicies = map[string]string{
	"move": `policy: 1
name: bench-move
vm: move
actions:
  - {title: Play, description: Every point and round counts.}
sources:
  - name: plays
    move_event: {type_tag: ` + synthArenaMove + `::arena::PlayEvent}
  - name: sends
    native_transfer: {denom: ` + synthDenom + `}
rules:
  - {name: points, source: plays, user: args.player, amount: uint(args.points), aggregate: sum, cap: 500}
  - {name: rounds, source: plays, user: args.player, aggregate: count, weight: 5}
  - {name: days, source: plays, user: args.player, aggregate: distinct_days, weight: 2}
  - {name: sends, source: sends, user: args.from, amount: args.value / 1000.0, aggregate: sum}
`,
	"wasm": `policy: 1
name: bench-wasm
vm: wasm
actions:
  - {title: Play, description: Every point and round counts.}
sources:
  - name: plays
    wasm_event: {contract: ` + synthArenaWasm + `, action: play}
  - name: msgsends
    cosmos_event: {type: message, attributes: {action: /cosmos.bank.v1beta1.MsgSend}}
  - name: sends
    native_transfer: {denom: ` + synthDenom + `}
rules:
  - {name: points, source: plays, user: args.player, amount: uint(args.points), aggregate: sum, cap: 500}
  - {name: rounds, source: plays, user: args.player, aggregate: count, weight: 5}
  - {name: msgsends, source: msgsends, user: args.sender, aggregate: count, weight: 3}
  - {name: sends, source: sends, user: args.from, amount: args.value / 1000.0, aggregate: sum}
`,
}

// readCosmos opens the Cosmos stage from the CometBFT node (headers, tx_search) or from
// the indexer alone (its blocks and Cosmos txs), as scores compute does.
func readCosmos(ctx context.Context, start, end uint64) (*policy.Policy, policy.Run, policy.Reader, func(), error) {
	run := policy.Run{Stage: 1, BridgeID: 1, SourceKind: "node", Prefix: "init"}
	text, ok := cosmosPolicies[os.Getenv(childCosmos)]
	if !ok {
		return nil, run, nil, nil, fmt.Errorf("%s=%q: no such policy", childCosmos, os.Getenv(childCosmos))
	}
	p, err := policy.Parse([]byte(text), nil)
	if err != nil {
		return nil, run, nil, nil, err
	}
	var src interface {
		policy.Headers
		policy.Reader
	}
	if u := os.Getenv(childIxEnv); u != "" {
		c, err := api.NewClient(u)
		if err != nil {
			return nil, run, nil, nil, err
		}
		src, run.SourceKind = &policy.CosmosIndexer{Client: c}, "indexer"
	} else if src, err = policy.DialComet(os.Getenv(childEnv)); err != nil {
		return nil, run, nil, nil, err
	}
	if run.Span, err = policy.FindWindow(ctx, src, start, end); err != nil {
		return nil, run, nil, nil, err
	}
	return p, run, src, func() {}, nil
}

// BenchmarkComputeCosmos is a stage of the synthetic Cosmos rollup (10,000 blocks of 10 txs:
// 100,000 txs, 10,000 users; every tx a bank send and a play) read and scored by a child process
// from the CometBFT node (tx_search pages of 100 txs, one search per source, headers cached)
// and from the indexer stand-in alone (Cosmos txs 1,000 a page), for the Move policy
// (move_event, native_transfer: 2 records a tx) and the Wasm one (wasm_event, cosmos_event,
// native_transfer: 3 a tx). Figures as BenchmarkComputeChain's.
func BenchmarkComputeCosmos(b *testing.B) {
	ctx := context.Background()
	cosmosBlocks := uint64(10_000)
	if v := os.Getenv("VIPHARNESS_POLICY_BENCH_COSMOS_BLOCKS"); v != "" { // a quick look
		if _, err := fmt.Sscan(v, &cosmosBlocks); err != nil || cosmosBlocks < 2 {
			b.Fatalf("VIPHARNESS_POLICY_BENCH_COSMOS_BLOCKS=%q: want a number of blocks, at least 2", v)
		}
	}
	chain := (&synthCosmos{Blocks: cosmosBlocks + 1, TxsPerBlock: 10, Users: 10_000, Genesis: 1_700_000_000, ChainID: "synth-1"}).build()
	url, stop, err := chain.serve()
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	ix := follow(b, chain.Blocks, func() (*indexer.Indexer, error) {
		return indexer.NewCosmos(ctx, url, url, indexer.WithPollInterval(time.Millisecond))
	})
	// The stage's blocks are 1..cosmosBlocks; the last block is past its end.
	window := fmt.Sprintf("%d,%d", chain.Genesis+1, chain.Genesis+int64(chain.Blocks))
	n := int(chain.Txs())
	for _, vm := range []string{"move", "wasm"} {
		want := map[string]int{"plays": n, "sends": n}
		if vm == "wasm" {
			want["msgsends"] = n
		}
		digests := map[string]string{}
		for _, source := range []string{"node", "indexer"} {
			b.Run(fmt.Sprintf("vm=%s/source=%s", vm, source), func(b *testing.B) {
				env := []string{childEnv + "=" + url, childWin + "=" + window, childCosmos + "=" + vm, childIxEnv + "="}
				if source == "indexer" {
					env = append(env, childIxEnv+"="+ix.URL())
				}
				digests[source] = measureChild(b, env, want)
			})
		}
		if digests["node"] != "" && digests["indexer"] != "" && digests["node"] != digests["indexer"] {
			b.Fatalf("%s: the node and the indexer gave different scores or inputs: %s / %s", vm, digests["node"], digests["indexer"])
		}
	}
}
