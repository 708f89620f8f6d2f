package router

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/router"
	fixtures "github.com/vipharness/vipharness/fixtures/router"
)

// Chain kinds of a graph.
const (
	ChainEVM    = "evm"
	ChainCosmos = "cosmos"
)

// Graph is the network the stand-in routes over: chains, the assets on them and directed
// bridges that carry assets from one chain to another.
type Graph struct {
	Chains  []Chain  `json:"chains"`
	Assets  []Asset  `json:"assets"`
	Bridges []Bridge `json:"bridges"`
}

// Chain is a chain of the graph.
type Chain struct {
	ChainID      string `json:"chain_id"`
	ChainName    string `json:"chain_name"`
	ChainType    string `json:"chain_type"`    // "evm" or "cosmos"
	Bech32Prefix string `json:"bech32_prefix"` // cosmos chains: the address prefix
	// ExplorerTxURL is the explorer link of a transaction, with {tx_hash} in it.
	ExplorerTxURL string `json:"explorer_tx_url"`
	// PFMEnabled: the chain forwards IBC packets on (packet-forward middleware).
	PFMEnabled bool `json:"pfm_enabled"`
	// PrettyName is the display name /v2/info/chains gives (chain_name when empty).
	PrettyName string `json:"pretty_name,omitempty"`
	// IsTestnet puts the chain in /v2/info/chains?only_testnets=true instead of the
	// default (mainnet) list.
	IsTestnet bool `json:"is_testnet,omitempty"`
	// FeeAssets are the denoms the chain takes fees in, with gas prices.
	FeeAssets []api.FeeAsset `json:"fee_assets,omitempty"`
}

// Asset is a denom on a chain.
type Asset struct {
	ChainID  string `json:"chain_id"`
	Denom    string `json:"denom"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
}

// DenomPair is a denom a bridge takes in and the denom it delivers.
type DenomPair struct {
	In  string `json:"in"`
	Out string `json:"out"`
}

// Bridge is a directed edge of the graph: an IBC channel end or one direction of an
// OPinit bridge.
type Bridge struct {
	ID          string `json:"id"`
	Type        string `json:"type"` // api.BridgeIBC or api.BridgeOPInit
	FromChainID string `json:"from_chain_id"`
	ToChainID   string `json:"to_chain_id"`
	// IBC: the channel end on the from chain.
	Port    string `json:"port,omitempty"`
	Channel string `json:"channel,omitempty"`
	// OPinit: the bridge id; Withdrawal marks the L2 -> L1 direction, which routes use only
	// when the request sets is_op_withdraw (as Initia's router does).
	OPInitBridgeID string `json:"op_init_bridge_id,omitempty"`
	Withdrawal     bool   `json:"withdrawal,omitempty"`
	// EscrowAddress receives the amount when the bridge starts on an EVM chain: the
	// evm_tx of such a route is a value transfer to it.
	EscrowAddress string `json:"escrow_address,omitempty"`
	// FeeBPS is taken from each amount crossing, in basis points.
	FeeBPS int `json:"fee_bps,omitempty"`
	// EstimatedSeconds adds up to a route's estimated_route_duration_seconds.
	EstimatedSeconds int64       `json:"estimated_seconds"`
	Denoms           []DenomPair `json:"denoms"`
}

// LoadGraph reads a graph from JSON and checks it.
func LoadGraph(b []byte) (*Graph, error) {
	var g Graph
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return nil, fmt.Errorf("router graph: %w", err)
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return &g, nil
}

// LoadGraphFile reads a graph file.
func LoadGraphFile(path string) (*Graph, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("router graph: %w", err)
	}
	return LoadGraph(b)
}

// DefaultGraph is fixtures/router/graph.json.
func DefaultGraph() *Graph {
	g, err := LoadGraph(fixtures.GraphJSON)
	if err != nil {
		panic(err) // the fixture is checked by the tests
	}
	return g
}

// Validate checks references and the fields each kind of chain and bridge needs.
func (g *Graph) Validate() error {
	var errs []error
	chains := map[string]Chain{}
	for i, c := range g.Chains {
		switch {
		case c.ChainID == "":
			errs = append(errs, fmt.Errorf("chains[%d]: chain_id is empty", i))
		case chains[c.ChainID].ChainID != "":
			errs = append(errs, fmt.Errorf("chains[%d]: duplicate chain %s", i, c.ChainID))
		}
		switch c.ChainType {
		case ChainEVM:
		case ChainCosmos:
			if c.Bech32Prefix == "" {
				errs = append(errs, fmt.Errorf("chain %s: a cosmos chain needs bech32_prefix", c.ChainID))
			}
		default:
			errs = append(errs, fmt.Errorf("chain %s: chain_type %q is not evm or cosmos", c.ChainID, c.ChainType))
		}
		chains[c.ChainID] = c
	}
	assets := map[[2]string]bool{}
	for i, a := range g.Assets {
		if _, ok := chains[a.ChainID]; !ok {
			errs = append(errs, fmt.Errorf("assets[%d]: unknown chain %q", i, a.ChainID))
		}
		if a.Denom == "" {
			errs = append(errs, fmt.Errorf("assets[%d]: denom is empty", i))
		}
		k := [2]string{a.ChainID, a.Denom}
		if assets[k] {
			errs = append(errs, fmt.Errorf("assets[%d]: duplicate asset %s on %s", i, a.Denom, a.ChainID))
		}
		assets[k] = true
	}
	ids := map[string]bool{}
	channels := map[[2]string]bool{}
	for i, b := range g.Bridges {
		where := fmt.Sprintf("bridges[%d] (%s)", i, b.ID)
		if b.ID == "" || ids[b.ID] {
			errs = append(errs, fmt.Errorf("%s: id empty or repeated", where))
		}
		ids[b.ID] = true
		from, okFrom := chains[b.FromChainID]
		_, okTo := chains[b.ToChainID]
		if !okFrom || !okTo || b.FromChainID == b.ToChainID {
			errs = append(errs, fmt.Errorf("%s: from %q / to %q must be two known chains", where, b.FromChainID, b.ToChainID))
		}
		switch b.Type {
		case api.BridgeIBC:
			if b.Port == "" || b.Channel == "" {
				errs = append(errs, fmt.Errorf("%s: an IBC bridge needs port and channel", where))
			}
			k := [2]string{b.FromChainID, b.Port + "/" + b.Channel}
			if channels[k] {
				errs = append(errs, fmt.Errorf("%s: channel %s/%s repeated on %s", where, b.Port, b.Channel, b.FromChainID))
			}
			channels[k] = true
			if b.Withdrawal {
				errs = append(errs, fmt.Errorf("%s: only OPINIT bridges are withdrawals", where))
			}
		case api.BridgeOPInit:
			if b.OPInitBridgeID == "" {
				errs = append(errs, fmt.Errorf("%s: an OPINIT bridge needs op_init_bridge_id", where))
			}
		default:
			errs = append(errs, fmt.Errorf("%s: type %q is not IBC or OPINIT", where, b.Type))
		}
		if okFrom && from.ChainType == ChainEVM && !common.IsHexAddress(b.EscrowAddress) {
			errs = append(errs, fmt.Errorf("%s: a bridge from an EVM chain needs a hex escrow_address", where))
		}
		if b.FeeBPS < 0 || b.FeeBPS >= 10_000 {
			errs = append(errs, fmt.Errorf("%s: fee_bps %d out of [0, 10000)", where, b.FeeBPS))
		}
		if len(b.Denoms) == 0 {
			errs = append(errs, fmt.Errorf("%s: no denoms", where))
		}
		for _, d := range b.Denoms {
			if !assets[[2]string{b.FromChainID, d.In}] {
				errs = append(errs, fmt.Errorf("%s: denom %q is not an asset of %s", where, d.In, b.FromChainID))
			}
			if !assets[[2]string{b.ToChainID, d.Out}] {
				errs = append(errs, fmt.Errorf("%s: denom %q is not an asset of %s", where, d.Out, b.ToChainID))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("router graph: %w", errors.Join(errs...))
	}
	return nil
}

// index is a graph prepared for lookups.
type index struct {
	g       *Graph
	chains  map[string]*Chain
	assets  map[[2]string]*Asset
	bridges []*Bridge
	out     map[string][]*Bridge // by from chain, sorted by id
	byID    map[string]*Bridge
}

func newIndex(g *Graph) *index {
	ix := &index{g: g, chains: map[string]*Chain{}, assets: map[[2]string]*Asset{}, out: map[string][]*Bridge{}, byID: map[string]*Bridge{}}
	for i := range g.Chains {
		ix.chains[g.Chains[i].ChainID] = &g.Chains[i]
	}
	for i := range g.Assets {
		a := &g.Assets[i]
		ix.assets[[2]string{a.ChainID, a.Denom}] = a
	}
	for i := range g.Bridges {
		b := &g.Bridges[i]
		ix.bridges = append(ix.bridges, b)
		ix.out[b.FromChainID] = append(ix.out[b.FromChainID], b)
		ix.byID[b.ID] = b
	}
	for _, l := range ix.out {
		sort.Slice(l, func(i, j int) bool { return l[i].ID < l[j].ID })
	}
	return ix
}

// hop is one edge of a route: a bridge crossed with a denom.
type hop struct {
	bridge   *Bridge
	denomIn  string
	denomOut string
}

func (b *Bridge) outDenom(in string) (string, bool) {
	for _, d := range b.Denoms {
		if d.In == in {
			return d.Out, true
		}
	}
	return "", false
}

// routeFilter narrows the bridges a search may use.
type routeFilter struct {
	types      map[string]bool // nil: all
	opWithdraw bool
}

func (f routeFilter) allows(b *Bridge) bool {
	if f.types != nil && !f.types[b.Type] {
		return false
	}
	if b.Withdrawal && !f.opWithdraw {
		return false
	}
	return true
}

// maxHops bounds route length.
const maxHops = 4

// findRoute returns the route with the fewest hops from (srcChain, srcDenom) to
// (dstChain, dstDenom); among those the shortest estimated duration, then the smallest
// sequence of bridge ids. With opWithdraw, a route must use a withdrawal bridge.
func (ix *index) findRoute(srcChain, srcDenom, dstChain, dstDenom string, f routeFilter) []hop {
	var (
		best     []hop
		bestSecs int64
		path     []hop
		visited  = map[[2]string]bool{{srcChain, srcDenom}: true}
	)
	better := func(p []hop) bool {
		if f.opWithdraw && !usesWithdrawal(p) {
			return false
		}
		secs := duration(p)
		switch {
		case best == nil || len(p) < len(best):
			return true
		case len(p) > len(best):
			return false
		case secs != bestSecs:
			return secs < bestSecs
		}
		return pathKey(p) < pathKey(best)
	}
	var walk func(chain, denom string)
	walk = func(chain, denom string) {
		if len(path) > 0 && chain == dstChain && denom == dstDenom {
			if better(path) {
				best, bestSecs = append([]hop(nil), path...), duration(path)
			}
			return
		}
		if len(path) == maxHops || (best != nil && len(path) >= len(best)) {
			return
		}
		for _, b := range ix.out[chain] {
			if !f.allows(b) {
				continue
			}
			out, ok := b.outDenom(denom)
			if !ok {
				continue
			}
			k := [2]string{b.ToChainID, out}
			if visited[k] {
				continue
			}
			visited[k] = true
			path = append(path, hop{bridge: b, denomIn: denom, denomOut: out})
			walk(b.ToChainID, out)
			path = path[:len(path)-1]
			visited[k] = false
		}
	}
	walk(srcChain, srcDenom)
	return best
}

func usesWithdrawal(p []hop) bool {
	for _, h := range p {
		if h.bridge.Withdrawal {
			return true
		}
	}
	return false
}

func duration(p []hop) int64 {
	var s int64
	for _, h := range p {
		s += h.bridge.EstimatedSeconds
	}
	return s
}

func pathKey(p []hop) string {
	ids := make([]string, len(p))
	for i, h := range p {
		ids[i] = h.bridge.ID
	}
	return strings.Join(ids, ",")
}

// requiresOPHook: an OPinit hop after the first hop runs as a hook the user signs ahead.
func requiresOPHook(p []hop) bool { return hookHop(p) >= 0 }

// hookHop is the index of the hop that runs as the OP hook, or -1.
func hookHop(p []hop) int {
	for i, h := range p {
		if i > 0 && h.bridge.Type == api.BridgeOPInit {
			return i
		}
	}
	return -1
}

// amountsForward returns the amount after each hop, from amount in.
func amountsForward(p []hop, in *big.Int) []*big.Int {
	out := make([]*big.Int, len(p))
	cur := new(big.Int).Set(in)
	for i, h := range p {
		fee := new(big.Int).Mul(cur, big.NewInt(int64(h.bridge.FeeBPS)))
		fee.Quo(fee, big.NewInt(10_000))
		cur = new(big.Int).Sub(cur, fee)
		out[i] = cur
	}
	return out
}

// amountInFor returns the smallest amount in that delivers at least want.
func amountInFor(p []hop, want *big.Int) *big.Int {
	need := new(big.Int).Set(want)
	for i := len(p) - 1; i >= 0; i-- {
		bps := int64(p[i].bridge.FeeBPS)
		// smallest x with x - floor(x*bps/10000) >= need
		x := new(big.Int).Mul(need, big.NewInt(10_000))
		x.Add(x, big.NewInt(10_000-bps-1))
		x.Quo(x, big.NewInt(10_000-bps))
		for {
			prev := new(big.Int).Sub(x, big.NewInt(1))
			if prev.Sign() <= 0 || afterFee(prev, bps).Cmp(need) < 0 {
				break
			}
			x = prev
		}
		for afterFee(x, bps).Cmp(need) < 0 {
			x.Add(x, big.NewInt(1))
		}
		need = x
	}
	return need
}

func afterFee(x *big.Int, bps int64) *big.Int {
	fee := new(big.Int).Mul(x, big.NewInt(bps))
	fee.Quo(fee, big.NewInt(10_000))
	return new(big.Int).Sub(x, fee)
}
