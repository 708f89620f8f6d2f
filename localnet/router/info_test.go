package router

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/router"
)

func getJSON(t *testing.T, u string, out any) {
	t.Helper()
	status, _, raw := do(t, http.MethodGet, u, "")
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, status, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
}

func TestInfoChains(t *testing.T) {
	s := startRouter(t)
	ids := func(q string) []string {
		var res api.ChainsResponse
		getJSON(t, s.URL()+api.PathChains+"?"+q, &res)
		var out []string
		for _, c := range res.Chains {
			out = append(out, c.ChainID)
		}
		return out
	}
	for _, tc := range []struct{ query, want string }{
		{"", "initiation-2 minimove-1 noble-local"},
		{"include_evm=true", "initiation-2 3370758106842963 minimove-1 noble-local"},
		{"include_evm=true&chain_ids=3370758106842963&chain_ids=noble-local", "3370758106842963 noble-local"},
		{"chain_ids=initiation-2,minimove-1", "initiation-2 minimove-1"},
		{"include_evm=true&only_testnets=true", ""},
	} {
		if got := strings.Join(ids(tc.query), " "); got != tc.want {
			t.Errorf("?%s: %q, want %q", tc.query, got, tc.want)
		}
	}
	var res api.ChainsResponse
	getJSON(t, s.URL()+api.PathChains+"?include_evm=true&chain_ids=initiation-2,3370758106842963", &res)
	l1, evm := res.Chains[0], res.Chains[1]
	if l1.ChainType != "cosmos" || l1.Bech32Prefix != "init" || !l1.PFMEnabled || !l1.IBCCapabilities.CosmosPFM || !l1.IBCCapabilities.CosmosIBCHooks || !l1.SupportsMemo || l1.FeeAssets == nil {
		t.Errorf("L1 %+v", l1)
	}
	if evm.ChainType != "evm" || evm.SupportsMemo || evm.IBCCapabilities.CosmosMemo || evm.PrettyName != "local-minievm" {
		t.Errorf("EVM rollup %+v", evm)
	}
	for _, tc := range []struct{ query, field string }{
		{"include_evm=yes", "include_evm"},
		{"only_testnets=1", "only_testnets"},
		{"include_evm=true&include_evm=false", "include_evm"},
		{"chain_ids=cosmoshub-4", "chain_ids"},
		{"chain_ids=initiation-2,", "chain_ids"},
	} {
		status, e, raw := do(t, http.MethodGet, s.URL()+api.PathChains+"?"+tc.query, "")
		if status != 400 || e.Code != api.CodeInvalidArgument || len(e.Details) == 0 || e.Details[0].FieldViolations[0].Field != tc.field {
			t.Errorf("?%s: %d %s, want 400 naming %s", tc.query, status, raw, tc.field)
		}
	}
	if status, _, _ := do(t, http.MethodPost, s.URL()+api.PathChains, "{}"); status != http.StatusMethodNotAllowed {
		t.Errorf("POST chains: %d", status)
	}
}

func TestFungibleAssets(t *testing.T) {
	s := startRouter(t)
	assets := func(q string) map[string][]api.AssetInfo {
		var res api.AssetsResponse
		getJSON(t, s.URL()+api.PathAssets+"?"+q, &res)
		out := map[string][]api.AssetInfo{}
		for id, ca := range res.ChainToAssetsMap {
			out[id] = ca.Assets
		}
		return out
	}
	all := assets("")
	if _, ok := all[evmChain]; ok || len(all) != 3 {
		t.Errorf("without include_evm_assets: %v", all)
	}
	byDenom := map[string]api.AssetInfo{}
	for _, l := range assets("include_evm_assets=true") {
		for _, a := range l {
			byDenom[a.ChainID+" "+a.Denom] = a
		}
	}
	native := byDenom[evmChain+" "+evmNative]
	if !native.IsEVM || native.Decimals != 18 || native.OriginChainID != evmChain || native.Trace != "" {
		t.Errorf("evm-native %+v", native)
	}
	// An IBC voucher names where it comes from; its denom is ibc/ + SHA-256 of trace/origin.
	eth := byDenom[l1Chain+" "+ethOnL1]
	sum := sha256.Sum256([]byte(eth.Trace + "/" + eth.OriginDenom))
	if eth.OriginChainID != evmChain || eth.OriginDenom != evmNative || eth.Trace != "transfer/channel-0" || "ibc/"+strings.ToUpper(hex.EncodeToString(sum[:])) != ethOnL1 {
		t.Errorf("ETH on L1 %+v", eth)
	}
	if a := byDenom[nobleChain+" "+ethOnNoble]; a.OriginDenom != evmNative || a.Trace != "transfer/channel-3/transfer/channel-0" {
		t.Errorf("ETH on noble %+v", a)
	}
	if a := byDenom[moveChain+" "+ethOnMove]; a.OriginChainID != evmChain || a.Trace != "transfer/channel-0" {
		t.Errorf("ETH on the Move rollup %+v", a)
	}
	if got := assets("chain_ids=initiation-2&native_only=true")[l1Chain]; len(got) != 1 || got[0].Denom != "uinit" {
		t.Errorf("native only on L1: %+v", got)
	}
	for _, q := range []string{"native_only=maybe", "chain_ids=nope", "include_evm_assets=TRUE"} {
		if status, _, raw := do(t, http.MethodGet, s.URL()+api.PathAssets+"?"+q, ""); status != 400 {
			t.Errorf("?%s: %d %s", q, status, raw)
		}
	}
}

func TestInfoBalances(t *testing.T) {
	chain := newMemChain(3370758106842963)
	s := startRouter(t, WithTxSource(evmChain, chain))
	owner := common.HexToAddress("0x00000000000000000000000000000000000000b1")
	post := func(body string) (int, errBody, api.BalancesResponse) {
		t.Helper()
		status, e, raw := do(t, http.MethodPost, s.URL()+api.PathBalances, body)
		var res api.BalancesResponse
		if status == 200 {
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatal(err)
			}
		}
		return status, e, res
	}
	status, _, res := post(`{"chains":{"` + evmChain + `":{"address":"` + owner.Hex() + `","denoms":["evm-native"]},"` + l1Chain + `":{"address":"` + bech("init", owner) + `"}}}`)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	b := res.Chains[evmChain].Denoms[evmNative]
	if b.Amount != "1000" || b.Decimals != 18 || b.FormattedAmount != "0.000000000000001000" || b.Error != nil {
		t.Errorf("evm-native %+v", b)
	}
	l1 := res.Chains[l1Chain]
	if len(l1.Denoms) != 3 || l1.Denoms["uinit"].Error == nil || !strings.Contains(l1.Denoms["uinit"].Error.Message, "not linked") {
		t.Errorf("unlinked chain %+v", l1)
	}
	for _, tc := range []struct{ body, field string }{
		{`{}`, "chains"},
		{`{"chains":{"cosmoshub-4":{"address":"cosmos1x"}}}`, "chains.cosmoshub-4"},
		{`{"chains":{"` + evmChain + `":{"address":"` + bech("init", owner) + `"}}}`, "chains." + evmChain + ".address"},
		{`{"chains":{"` + evmChain + `":{"address":"` + owner.Hex() + `","denoms":["uinit"]}}}`, "chains." + evmChain + ".denoms[0]"},
		{`{"chains":{"` + evmChain + `":{"address":7}}}`, "chains"},
	} {
		status, e, _ := post(tc.body)
		if status != 400 || len(e.Details) == 0 || !strings.HasPrefix(e.Details[0].FieldViolations[0].Field, tc.field) {
			t.Errorf("%s: %d %+v, want 400 naming %s", tc.body, status, e, tc.field)
		}
	}
	if status, _, _ := do(t, http.MethodGet, s.URL()+api.PathBalances+"?"+url.Values{"chains": {"x"}}.Encode(), ""); status != http.StatusMethodNotAllowed {
		t.Errorf("GET balances: %d", status)
	}
}
