package router

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/router"
)

// BalanceSource reads balances on one chain. A TxSource given with WithTxSource may also
// implement it; chains linked with WithChain read the EVM node.
type BalanceSource interface {
	// Balance is address's balance of denom: the chain's native coin for a "...-native"
	// denom, an ERC20's balanceOf for a 0x-hex denom on an EVM chain.
	Balance(ctx context.Context, address, denom string) (*big.Int, error)
}

// queryBools reads the boolean query parameters named, each "true" or "false"; anything
// else is a 400 naming it. Absent ones are false.
func queryBools(q url.Values, names ...string) (map[string]bool, *apiErr) {
	out := map[string]bool{}
	for _, n := range names {
		vs, ok := q[n]
		if !ok {
			continue
		}
		if len(vs) != 1 {
			return nil, badField(n, "is given more than once")
		}
		b, err := strconv.ParseBool(vs[0])
		if err != nil || (vs[0] != "true" && vs[0] != "false") {
			return nil, badField(n, fmt.Sprintf("%q is not true or false", vs[0]))
		}
		out[n] = b
	}
	return out, nil
}

// queryChainIDs reads chain_ids (repeated or comma-separated); each must be a graph chain.
func (s *Server) queryChainIDs(q url.Values) (map[string]bool, *apiErr) {
	var ids map[string]bool
	for _, v := range q["chain_ids"] {
		for _, id := range strings.Split(v, ",") {
			id = strings.TrimSpace(id)
			if id == "" {
				return nil, badField("chain_ids", "has an empty chain id")
			}
			if _, ok := s.ix.chains[id]; !ok {
				return nil, badField("chain_ids", fmt.Sprintf("unknown chain %q", id))
			}
			if ids == nil {
				ids = map[string]bool{}
			}
			ids[id] = true
		}
	}
	return ids, nil
}

// handleChains answers GET /v2/info/chains: the graph's chains, EVM ones only with
// include_evm, testnets only (and only testnets) with only_testnets.
func (s *Server) handleChains(r *http.Request) (any, *apiErr) {
	q := r.URL.Query()
	flags, e := queryBools(q, "include_evm", "include_svm", "only_testnets")
	if e != nil {
		return nil, e
	}
	ids, e := s.queryChainIDs(q)
	if e != nil {
		return nil, e
	}
	res := &api.ChainsResponse{Chains: []api.ChainInfo{}}
	for _, c := range s.cfg.graph.Chains {
		if (ids != nil && !ids[c.ChainID]) || c.IsTestnet != flags["only_testnets"] || (c.ChainType == ChainEVM && !flags["include_evm"]) {
			continue
		}
		res.Chains = append(res.Chains, s.chainInfo(&c))
	}
	return res, nil
}

func (s *Server) chainInfo(c *Chain) api.ChainInfo {
	info := api.ChainInfo{
		ChainName: c.ChainName, ChainID: c.ChainID, PFMEnabled: c.PFMEnabled,
		Bech32Prefix: c.Bech32Prefix, FeeAssets: append([]api.FeeAsset{}, c.FeeAssets...),
		ChainType: c.ChainType, IsTestnet: c.IsTestnet, PrettyName: c.PrettyName,
	}
	if info.PrettyName == "" {
		info.PrettyName = c.ChainName
	}
	if c.ChainType == ChainCosmos {
		info.SupportsMemo = true
		// Initia chains and rollups run the OPinit hooks; every Cosmos chain here carries memos.
		info.IBCCapabilities = api.IBCCapabilities{CosmosPFM: c.PFMEnabled, CosmosMemo: true, CosmosIBCHooks: s.runsHooks(c.ChainID)}
	}
	return info
}

// runsHooks reports whether an OPinit bridge starts on the chain (its hooks run there).
func (s *Server) runsHooks(chainID string) bool {
	for _, b := range s.ix.out[chainID] {
		if b.Type == api.BridgeOPInit {
			return true
		}
	}
	return false
}

// handleAssets answers GET /v2/fungible/assets: the graph's assets by chain, with their
// origin traced back over the bridges. EVM assets only with include_evm_assets.
func (s *Server) handleAssets(r *http.Request) (any, *apiErr) {
	q := r.URL.Query()
	flags, e := queryBools(q, "native_only", "include_no_metadata_assets", "include_cw20_assets", "include_evm_assets", "include_svm_assets", "only_testnets")
	if e != nil {
		return nil, e
	}
	ids, e := s.queryChainIDs(q)
	if e != nil {
		return nil, e
	}
	res := &api.AssetsResponse{ChainToAssetsMap: map[string]api.ChainAssets{}}
	for _, a := range s.cfg.graph.Assets {
		c := s.ix.chains[a.ChainID]
		if (ids != nil && !ids[c.ChainID]) || c.IsTestnet != flags["only_testnets"] {
			continue
		}
		info := s.assetInfo(&a)
		if (info.IsEVM && !flags["include_evm_assets"]) || (flags["native_only"] && info.OriginChainID != a.ChainID) {
			continue
		}
		ca := res.ChainToAssetsMap[a.ChainID]
		ca.Assets = append(ca.Assets, info)
		res.ChainToAssetsMap[a.ChainID] = ca
	}
	return res, nil
}

// isNative reports a denom minted on its own chain: not an IBC voucher or an OPinit L2 denom.
func isNative(denom string) bool {
	return !strings.HasPrefix(denom, "ibc/") && !strings.HasPrefix(denom, "l2/")
}

func (s *Server) assetInfo(a *Asset) api.AssetInfo {
	c := s.ix.chains[a.ChainID]
	info := api.AssetInfo{
		Denom: a.Denom, ChainID: a.ChainID, OriginDenom: a.Denom, OriginChainID: a.ChainID,
		IsEVM: c.ChainType == ChainEVM, Symbol: a.Symbol, Name: a.Symbol, Decimals: a.Decimals, RecommendedSymbol: a.Symbol,
	}
	if info.IsEVM && common.IsHexAddress(a.Denom) {
		info.TokenContract = common.HexToAddress(a.Denom).Hex()
	}
	if origin, trace, ok := s.origin(a.ChainID, a.Denom); ok {
		info.OriginChainID, info.OriginDenom, info.Trace = origin[0], origin[1], trace
	}
	return info
}

// origin follows the bridges that deliver (chain, denom) back to a native denom, fewest
// hops first, and returns it with the IBC trace (port/channel on each receiving chain,
// nearest first).
func (s *Server) origin(chainID, denom string) ([2]string, string, bool) {
	type node struct {
		at    [2]string
		trace []string
	}
	start := [2]string{chainID, denom}
	if isNative(denom) {
		return start, "", true
	}
	seen := map[[2]string]bool{start: true}
	queue := []node{{at: start}}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, b := range s.ix.bridges {
			if b.ToChainID != n.at[0] {
				continue
			}
			for _, d := range b.Denoms {
				if d.Out != n.at[1] {
					continue
				}
				prev := [2]string{b.FromChainID, d.In}
				if seen[prev] {
					continue
				}
				seen[prev] = true
				trace := n.trace
				if b.Type == api.BridgeIBC {
					if back := s.reverseChannel(b); back != "" {
						trace = append(append([]string{}, n.trace...), back)
					}
				}
				if isNative(d.In) {
					return prev, strings.Join(trace, "/"), true
				}
				queue = append(queue, node{at: prev, trace: trace})
			}
		}
	}
	return [2]string{}, "", false
}

// reverseChannel is the port/channel on b's receiving chain that leads back (the counterparty
// end of b's channel), or "".
func (s *Server) reverseChannel(b *Bridge) string {
	for _, c := range s.ix.out[b.ToChainID] {
		if c.Type == api.BridgeIBC && c.ToChainID == b.FromChainID {
			return c.Port + "/" + c.Channel
		}
	}
	return ""
}

// handleBalances answers POST /v2/info/balances, read live from the chains linked to local
// nodes. A chain that is not linked, or a denom the node cannot read, gets an entry with an
// error, as the service reports a balance it could not fetch.
func (s *Server) handleBalances(r *http.Request) (any, *apiErr) {
	var req api.BalancesRequest
	if e := decodeBody(r, &req); e != nil {
		return nil, e
	}
	if len(req.Chains) == 0 {
		return nil, badField("chains", "is required: one entry per chain id, with an address")
	}
	ids := make([]string, 0, len(req.Chains))
	for id := range req.Chains {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	res := &api.BalancesResponse{Chains: map[string]api.BalancesChain{}}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	for _, id := range ids {
		ch := req.Chains[id]
		f := "chains." + id
		c, ok := s.ix.chains[id]
		if !ok {
			return nil, badField(f, fmt.Sprintf("unknown chain %q", id))
		}
		if e := checkAddress(f+".address", c, ch.Address); e != nil {
			return nil, e
		}
		denoms := ch.Denoms
		if len(denoms) == 0 {
			for _, a := range s.cfg.graph.Assets {
				if a.ChainID == id {
					denoms = append(denoms, a.Denom)
				}
			}
		}
		out := api.BalancesChain{Address: ch.Address, Denoms: map[string]api.Balance{}}
		src, _ := s.sources[id].(BalanceSource)
		for i, d := range denoms {
			a, ok := s.ix.assets[[2]string{id, d}]
			if !ok {
				return nil, badField(fmt.Sprintf("%s.denoms[%d]", f, i), fmt.Sprintf("%q is not an asset of chain %s", d, id))
			}
			b := api.Balance{Amount: "0", Decimals: a.Decimals, FormattedAmount: formatUnits(big.NewInt(0), a.Decimals)}
			if src == nil {
				b.Error = &api.BalanceError{Message: fmt.Sprintf("chain %s is not linked to a local node; its balances are not known", id)}
			} else if n, err := src.Balance(ctx, ch.Address, d); err != nil {
				b.Error = &api.BalanceError{Message: fmt.Sprintf("read %s balance on %s: %v", d, id, err)}
			} else {
				b.Amount, b.FormattedAmount = n.String(), formatUnits(n, a.Decimals)
			}
			out.Denoms[d] = b
		}
		res.Chains[id] = out
	}
	return res, nil
}

// formatUnits writes n base units with decimals places, as the service's formatted_amount.
func formatUnits(n *big.Int, decimals int) string {
	s := n.String()
	if decimals <= 0 {
		return s
	}
	if len(s) <= decimals {
		s = strings.Repeat("0", decimals-len(s)+1) + s
	}
	return s[:len(s)-decimals] + "." + s[len(s)-decimals:]
}

// balanceOfSelector is ERC20 balanceOf(address).
var balanceOfSelector = crypto.Keccak256([]byte("balanceOf(address)"))[:4]

// Balance reads the native balance (eth_getBalance) or an ERC20's balanceOf (eth_call).
func (s *rpcSource) Balance(ctx context.Context, address, denom string) (*big.Int, error) {
	if !common.IsHexAddress(address) {
		return nil, fmt.Errorf("%q is not a 0x-hex address", address)
	}
	acct := common.HexToAddress(address)
	if !common.IsHexAddress(denom) {
		return s.c.BalanceAt(ctx, acct, nil)
	}
	token := common.HexToAddress(denom)
	data := append(append([]byte{}, balanceOfSelector...), common.LeftPadBytes(acct.Bytes(), 32)...)
	out, err := s.c.CallContract(ctx, ethereum.CallMsg{To: &token, Data: data}, nil)
	if err != nil {
		return nil, fmt.Errorf("balanceOf on %s: %w", token.Hex(), err)
	}
	if len(out) != 32 {
		return nil, fmt.Errorf("balanceOf on %s answered %d bytes, not 32", token.Hex(), len(out))
	}
	return new(big.Int).SetBytes(out), nil
}
