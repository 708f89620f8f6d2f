package router

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	api "github.com/vipharness/vipharness/bindings/router"
)

func TestFixtureGraphIsValid(t *testing.T) {
	g := DefaultGraph()
	if len(g.Chains) < 3 || len(g.Bridges) < 3 {
		t.Fatalf("graph too small: %d chains, %d bridges", len(g.Chains), len(g.Bridges))
	}
	var ibc, op, hook bool
	ix := newIndex(g)
	for _, b := range g.Bridges {
		ibc = ibc || b.Type == api.BridgeIBC
		op = op || b.Type == api.BridgeOPInit
	}
	hook = requiresOPHook(ix.findRoute(evmChain, evmNative, moveChain, ethOnMove, routeFilter{}))
	if !ibc || !op || !hook {
		t.Fatalf("fixture must hold an IBC hop (%v), an OP hop (%v) and a route requiring the OP hook (%v)", ibc, op, hook)
	}
}

func TestGraphValidateRejectsBrokenGraphs(t *testing.T) {
	base := func() *Graph {
		g := DefaultGraph()
		b, _ := json.Marshal(g)
		var c Graph
		_ = json.Unmarshal(b, &c)
		return &c
	}
	cases := map[string]struct {
		edit func(*Graph)
		want string
	}{
		"unknown chain type":     {func(g *Graph) { g.Chains[0].ChainType = "solana" }, "chain_type"},
		"cosmos without prefix":  {func(g *Graph) { g.Chains[0].Bech32Prefix = "" }, "bech32_prefix"},
		"asset on unknown chain": {func(g *Graph) { g.Assets[0].ChainID = "nope" }, "unknown chain"},
		"bridge denom not asset": {func(g *Graph) { g.Bridges[0].Denoms[0].Out = "ghost" }, "is not an asset"},
		"evm bridge no escrow":   {func(g *Graph) { g.Bridges[0].EscrowAddress = "" }, "escrow_address"},
		"ibc without channel":    {func(g *Graph) { g.Bridges[0].Channel = "" }, "port and channel"},
		"op without bridge id":   {func(g *Graph) { g.Bridges[4].OPInitBridgeID = "" }, "op_init_bridge_id"},
		"duplicate bridge id":    {func(g *Graph) { g.Bridges[1].ID = g.Bridges[0].ID }, "repeated"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := base()
			tc.edit(g)
			err := g.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error mentioning %q", err, tc.want)
			}
			if _, err := Start(context.Background(), WithGraph(g)); err == nil {
				t.Fatal("Start accepted an invalid graph")
			}
		})
	}
}

func TestRouteComputation(t *testing.T) {
	s := startRouter(t)
	c := newClient(t, s)
	yes := true
	cases := []struct {
		name                string
		req                 api.RouteRequest
		kinds               []string // operation kinds in order
		chains              []string
		amountIn, amountOut string
		hook                bool
		seconds             int64
		notFound            bool
	}{
		{name: "one IBC hop from the EVM rollup",
			req:   api.RouteRequest{AmountIn: "1000", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: l1Chain, DestAssetDenom: ethOnL1},
			kinds: []string{"transfer"}, chains: []string{evmChain, l1Chain}, amountIn: "1000", amountOut: "1000", seconds: 30},
		{name: "two IBC hops with a fee on the second",
			req:   api.RouteRequest{AmountIn: "1000000", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: nobleChain, DestAssetDenom: ethOnNoble},
			kinds: []string{"transfer", "transfer"}, chains: []string{evmChain, l1Chain, nobleChain}, amountIn: "1000000", amountOut: "999000", seconds: 55},
		{name: "IBC then OP deposit needs the OP hook",
			req:   api.RouteRequest{AmountIn: "5000", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: moveChain, DestAssetDenom: ethOnMove},
			kinds: []string{"transfer", "op_init_transfer"}, chains: []string{evmChain, l1Chain, moveChain}, amountIn: "5000", amountOut: "5000", hook: true, seconds: 90},
		{name: "OP deposit first needs no hook",
			req:   api.RouteRequest{AmountIn: "77", SourceAssetChainID: l1Chain, SourceAssetDenom: "uinit", DestAssetChainID: moveChain, DestAssetDenom: initOnMove},
			kinds: []string{"op_init_transfer"}, chains: []string{l1Chain, moveChain}, amountIn: "77", amountOut: "77", seconds: 60},
		{name: "amount_out is inverted through the fees",
			req:   api.RouteRequest{AmountOut: "999000", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: nobleChain, DestAssetDenom: ethOnNoble},
			kinds: []string{"transfer", "transfer"}, chains: []string{evmChain, l1Chain, nobleChain}, amountIn: "999999", amountOut: "999000", seconds: 55},
		{name: "withdrawal only when asked",
			req:      api.RouteRequest{AmountIn: "10", SourceAssetChainID: moveChain, SourceAssetDenom: initOnMove, DestAssetChainID: l1Chain, DestAssetDenom: "uinit"},
			notFound: true},
		{name: "is_op_withdraw takes the OPinit withdrawal",
			req:   api.RouteRequest{AmountIn: "10", SourceAssetChainID: moveChain, SourceAssetDenom: initOnMove, DestAssetChainID: l1Chain, DestAssetDenom: "uinit", IsOPWithdraw: &yes},
			kinds: []string{"op_init_transfer"}, chains: []string{moveChain, l1Chain}, amountIn: "10", amountOut: "10", seconds: 604800},
		{name: "bridges filter excludes IBC",
			req:      api.RouteRequest{AmountIn: "1", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: l1Chain, DestAssetDenom: ethOnL1, Bridges: []string{"OPINIT"}},
			notFound: true},
		{name: "no path between unrelated assets",
			req:      api.RouteRequest{AmountIn: "1", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: nobleChain, DestAssetDenom: "uusdc"},
			notFound: true},
		{name: "a fee rounds down to zero on a tiny amount",
			req:   api.RouteRequest{AmountIn: "1", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: nobleChain, DestAssetDenom: ethOnNoble},
			kinds: []string{"transfer", "transfer"}, chains: []string{evmChain, l1Chain, nobleChain}, amountIn: "1", amountOut: "1", seconds: 55},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := c.Route(context.Background(), tc.req)
			if tc.notFound {
				if !api.IsNotFound(err) {
					t.Fatalf("want NOT_FOUND, got %v (%+v)", err, r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, op := range r.Operations {
				kinds = append(kinds, op.Kind())
				if op.TxIndex != 0 {
					t.Errorf("tx_index %d", op.TxIndex)
				}
			}
			if strings.Join(kinds, ",") != strings.Join(tc.kinds, ",") {
				t.Errorf("kinds %v, want %v", kinds, tc.kinds)
			}
			if strings.Join(r.ChainIDs, ",") != strings.Join(tc.chains, ",") || strings.Join(r.RequiredChainAddresses, ",") != strings.Join(tc.chains, ",") {
				t.Errorf("chain_ids %v required %v, want %v", r.ChainIDs, r.RequiredChainAddresses, tc.chains)
			}
			if r.AmountIn != tc.amountIn || r.AmountOut != tc.amountOut || r.EstimatedAmountOut != tc.amountOut {
				t.Errorf("amounts in %s out %s est %s, want %s / %s", r.AmountIn, r.AmountOut, r.EstimatedAmountOut, tc.amountIn, tc.amountOut)
			}
			if r.RequiredOPHook != tc.hook {
				t.Errorf("required_op_hook %v", r.RequiredOPHook)
			}
			if r.EstimatedRouteDurationSeconds != tc.seconds {
				t.Errorf("duration %d, want %d", r.EstimatedRouteDurationSeconds, tc.seconds)
			}
			// operations chain up: each amount_out feeds the next amount_in
			prev := r.AmountIn
			for i, op := range r.Operations {
				if op.AmountIn != prev {
					t.Errorf("op %d amount_in %s, want %s", i, op.AmountIn, prev)
				}
				prev = op.AmountOut
			}
			if prev != r.AmountOut {
				t.Errorf("last op amount_out %s, route %s", prev, r.AmountOut)
			}
		})
	}
}

func TestAmountInForInvertsFees(t *testing.T) {
	ix := newIndex(DefaultGraph())
	path := ix.findRoute(evmChain, evmNative, nobleChain, ethOnNoble, routeFilter{})
	for _, want := range []int64{1, 2, 999, 1000, 1001, 123456789} {
		in := amountInFor(path, big.NewInt(want))
		outs := amountsForward(path, in)
		if outs[len(outs)-1].Cmp(big.NewInt(want)) < 0 {
			t.Fatalf("in %s gives %s < %d", in, outs[len(outs)-1], want)
		}
		less := amountsForward(path, new(big.Int).Sub(in, big.NewInt(1)))
		if in.Int64() > 1 && less[len(less)-1].Cmp(big.NewInt(want)) >= 0 {
			t.Fatalf("in %s is not the smallest for %d", in, want)
		}
	}
}

func TestRouteJSONUsesServiceFieldNames(t *testing.T) {
	s := startRouter(t)
	body := `{"amount_in":"5000","source_asset_chain_id":"3370758106842963","source_asset_denom":"evm-native","dest_asset_chain_id":"minimove-1","dest_asset_denom":"` + ethOnMove + `"}`
	raw := postRaw(t, s.URL()+api.PathRoute, body, 200)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"amount_in", "amount_out", "operations", "chain_ids", "required_chain_addresses", "estimated_route_duration_seconds", "required_op_hook", "source_asset_chain_id", "dest_asset_denom", "txs_required", "does_swap"} {
		if _, ok := m[k]; !ok {
			t.Errorf("route reply lacks %q: %s", k, raw)
		}
	}
	ops := m["operations"].([]any)
	first, second := ops[0].(map[string]any), ops[1].(map[string]any)
	if _, ok := first["transfer"].(map[string]any)["channel"]; !ok {
		t.Errorf("transfer op lacks channel: %v", first)
	}
	opi := second["op_init_transfer"].(map[string]any)
	for _, k := range []string{"from_chain_id", "to_chain_id", "denom_in", "denom_out", "op_init_bridge_id"} {
		if _, ok := opi[k]; !ok {
			t.Errorf("op_init_transfer lacks %q: %v", k, opi)
		}
	}
	for _, k := range []string{"tx_index", "amount_in", "amount_out"} {
		if _, ok := second[k]; !ok {
			t.Errorf("operation lacks %q", k)
		}
	}
}
