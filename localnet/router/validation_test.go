package router

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/router"
)

func postRaw(t testing.TB, u, body string, wantStatus int) []byte {
	t.Helper()
	resp, err := http.Post(u, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("POST %s: status %d, want %d: %s", u, resp.StatusCode, wantStatus, b)
	}
	return b
}

type errBody struct {
	Code    int               `json:"code"`
	Message string            `json:"message"`
	Details []api.ErrorDetail `json:"details"`
}

func do(t testing.TB, method, u, body string) (int, errBody, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content-type %q", ct)
	}
	var e errBody
	_ = json.Unmarshal(b, &e)
	return resp.StatusCode, e, b
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestValidationNamesTheBadField(t *testing.T) {
	chain := newMemChain(3370758106842963)
	s := startRouter(t, WithTxSource(evmChain, chain))
	c := newClient(t, s)
	ctx := context.Background()
	key := mustKey(t)
	sender := crypto.PubkeyToAddress(key.PublicKey)

	// valid requests to mutate
	route := api.RouteRequest{AmountIn: "1000", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: nobleChain, DestAssetDenom: ethOnNoble}
	plain, err := c.Route(ctx, route)
	if err != nil {
		t.Fatal(err)
	}
	addrs := addressesFor(sender, nobleChain)
	msgs := func() api.MsgsRequest {
		ops := append([]api.Operation(nil), plain.Operations...)
		for i := range ops {
			tr := *ops[i].Transfer
			ops[i].Transfer = &tr
		}
		return api.MsgsRequest{SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: nobleChain, DestAssetDenom: ethOnNoble,
			AmountIn: "1000", AmountOut: plain.AmountOut, AddressList: []string{addrs[evmChain], addrs[l1Chain], addrs[nobleChain]},
			Operations: ops, SlippageTolerancePercent: "1"}
	}
	if _, err := c.Msgs(ctx, msgs()); err != nil {
		t.Fatalf("base msgs request refused: %v", err)
	}
	hookRoute, err := c.Route(ctx, api.RouteRequest{AmountIn: "1000", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: moveChain, DestAssetDenom: ethOnMove})
	if err != nil {
		t.Fatal(err)
	}
	haddrs := addressesFor(sender, moveChain)
	hookReq := api.OPHookRequest{SourceAddress: haddrs[l1Chain], SourceAssetChainID: evmChain, SourceAssetDenom: evmNative,
		DestAddress: haddrs[moveChain], DestAssetChainID: moveChain, DestAssetDenom: ethOnMove}
	hook, err := c.OPHook(ctx, hookReq)
	if err != nil {
		t.Fatal(err)
	}
	signer := memSignerKey(t, chain, key, hookAccounts(s))
	signed, err := signer.SignOPHook(ctx, *hook)
	if err != nil {
		t.Fatal(err)
	}
	otherKey := mustKey(t)
	other := memSignerKey(t, chain, otherKey, hookAccounts(s))
	forged, _ := other.SignOPHook(ctx, *hook)
	forged.Signer = signed.Signer
	hookMsgs := func() api.MsgsRequest {
		return api.MsgsRequest{SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: moveChain, DestAssetDenom: ethOnMove,
			AmountIn: "1000", AddressList: []string{haddrs[evmChain], haddrs[l1Chain], haddrs[moveChain]},
			Operations: hookRoute.Operations, SignedOPHook: &signed}
	}
	if _, err := c.Msgs(ctx, hookMsgs()); err != nil {
		t.Fatalf("base hook msgs request refused: %v", err)
	}
	edit := func(f func(*api.MsgsRequest)) string { m := msgs(); f(&m); return mustJSON(m) }
	editHook := func(f func(*api.MsgsRequest)) string { m := hookMsgs(); f(&m); return mustJSON(m) }
	editRoute := func(f func(*api.RouteRequest)) string { r := route; f(&r); return mustJSON(r) }
	editOPHook := func(f func(*api.OPHookRequest)) string { r := hookReq; f(&r); return mustJSON(r) }
	goodHash := "0x" + strings.Repeat("ab", 32)

	cases := []struct {
		name, path, body, field string
	}{
		// route
		{"route empty body", api.PathRoute, ``, "body"},
		{"route not an object", api.PathRoute, `[1,2]`, "body"},
		{"route broken json", api.PathRoute, `{"amount_in":`, "body"},
		{"route no source chain", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.SourceAssetChainID = "" }), "source_asset_chain_id"},
		{"route unknown source chain", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.SourceAssetChainID = "osmosis-1" }), "source_asset_chain_id"},
		{"route no source denom", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.SourceAssetDenom = "" }), "source_asset_denom"},
		{"route unknown source denom", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.SourceAssetDenom = "uatom" }), "source_asset_denom"},
		{"route no dest chain", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.DestAssetChainID = "" }), "dest_asset_chain_id"},
		{"route unknown dest denom", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.DestAssetDenom = "uatom" }), "dest_asset_denom"},
		{"route same asset", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.DestAssetChainID, r.DestAssetDenom = evmChain, evmNative }), "dest_asset_denom"},
		{"route no amount", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.AmountIn = "" }), "amount_in"},
		{"route amount not a number", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.AmountIn = "ten" }), "amount_in"},
		{"route amount negative", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.AmountIn = "-5" }), "amount_in"},
		{"route amount zero", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.AmountIn = "0" }), "amount_in"},
		{"route amount decimal", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.AmountIn = "1.5" }), "amount_in"},
		{"route amount over uint256", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.AmountIn = "2" + strings.Repeat("0", 77) }), "amount_in"},
		{"route both amounts", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.AmountOut = "5" }), "amount_out"},
		{"route bad amount_out", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.AmountIn, r.AmountOut = "", "x" }), "amount_out"},
		{"route bad bridge", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.Bridges = []string{"IBC", "WORMHOLE"} }), "bridges[1]"},
		{"route bad affiliate bps", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.CumulativeAffiliateFeeBPS = "lots" }), "cumulative_affiliate_fee_bps"},
		{"route amount as number", api.PathRoute, `{"amount_in":1000,"source_asset_chain_id":"3370758106842963"}`, "amount_in"},
		{"route bridges as string", api.PathRoute, `{"amount_in":"1","bridges":"IBC"}`, "bridges"},
		// op-hook
		{"op-hook no source address", api.PathOPHook, editOPHook(func(r *api.OPHookRequest) { r.SourceAddress = "" }), "source_address"},
		{"op-hook source address wrong prefix", api.PathOPHook, editOPHook(func(r *api.OPHookRequest) { r.SourceAddress = bech("noble", sender) }), "source_address"},
		{"op-hook source address hex", api.PathOPHook, editOPHook(func(r *api.OPHookRequest) { r.SourceAddress = sender.Hex() }), "source_address"},
		{"op-hook no dest address", api.PathOPHook, editOPHook(func(r *api.OPHookRequest) { r.DestAddress = "" }), "dest_address"},
		{"op-hook dest address not bech32", api.PathOPHook, editOPHook(func(r *api.OPHookRequest) { r.DestAddress = "init1notanaddress" }), "dest_address"},
		{"op-hook unknown dest denom", api.PathOPHook, editOPHook(func(r *api.OPHookRequest) { r.DestAssetDenom = "l2/none" }), "dest_asset_denom"},
		{"op-hook unknown source chain", api.PathOPHook, editOPHook(func(r *api.OPHookRequest) { r.SourceAssetChainID = "9" }), "source_asset_chain_id"},
		// msgs
		{"msgs no amount_in", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.AmountIn = "" }), "amount_in"},
		{"msgs bad amount_out", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.AmountOut = "1e6" }), "amount_out"},
		{"msgs amount_out above route", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.AmountOut = "1001" }), "amount_out"},
		{"msgs unknown source chain", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.SourceAssetChainID = "cosmoshub-4" }), "source_asset_chain_id"},
		{"msgs unknown dest denom", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.DestAssetDenom = "uusdc" }), "operations"},
		{"msgs short address list", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.AddressList = m.AddressList[:2] }), "address_list"},
		{"msgs evm address not hex", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.AddressList[0] = addrs[l1Chain] }), "address_list[0]"},
		{"msgs intermediate address wrong prefix", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.AddressList[1] = addrs[nobleChain] }), "address_list[1]"},
		{"msgs dest address wrong prefix", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.AddressList[2] = addrs[l1Chain] }), "address_list[2]"},
		{"msgs address list as string", api.PathMsgs, strings.Replace(edit(func(*api.MsgsRequest) {}), `"address_list":[`, `"address_list":"x","ignored":[`, 1), "address_list"},
		{"msgs no operations", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.Operations = nil }), "operations"},
		{"msgs unknown channel", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.Operations[0].Transfer.Channel = "channel-99" }), "operations[0].transfer.channel"},
		{"msgs wrong denom_in", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.Operations[1].Transfer.DenomIn = "uinit" }), "operations[1].transfer.denom_in"},
		{"msgs wrong denom_out", api.PathMsgs, edit(func(m *api.MsgsRequest) {
			m.Operations[1].Transfer.DenomOut = "uusdc"
			m.Operations[1].Transfer.DestDenom = ""
		}), "operations[1].transfer.denom_out"},
		{"msgs wrong to chain", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.Operations[0].Transfer.ToChainID = moveChain }), "operations[0].transfer.to_chain_id"},
		{"msgs tx_index", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.Operations[1].TxIndex = 1 }), "operations[1].tx_index"},
		{"msgs unsupported kind", api.PathMsgs, edit(func(m *api.MsgsRequest) {
			m.Operations[0] = api.Operation{Other: map[string]json.RawMessage{"swap": json.RawMessage(`{}`)}, AmountIn: "1", AmountOut: "1"}
		}), "operations[0]"},
		{"msgs slippage over 100", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.SlippageTolerancePercent = "150" }), "slippage_tolerance_percent"},
		{"msgs slippage not a number", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.SlippageTolerancePercent = "1%" }), "slippage_tolerance_percent"},
		{"msgs timeout zero", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.TimeoutSeconds = "0" }), "timeout_seconds"},
		{"msgs hook on a plain route", api.PathMsgs, edit(func(m *api.MsgsRequest) { m.SignedOPHook = &signed }), "signed_op_hook"},
		{"msgs hook missing", api.PathMsgs, editHook(func(m *api.MsgsRequest) { m.SignedOPHook = nil }), "signed_op_hook"},
		{"msgs hook signer not in address list", api.PathMsgs, editHook(func(m *api.MsgsRequest) { h := signed; h.Signer = haddrs[moveChain]; m.SignedOPHook = &h }), "signed_op_hook.signer"},
		{"msgs hook not base64", api.PathMsgs, editHook(func(m *api.MsgsRequest) { h := signed; h.Hook = "%%%"; m.SignedOPHook = &h }), "signed_op_hook.hook"},
		{"msgs hook signed by another key", api.PathMsgs, editHook(func(m *api.MsgsRequest) { m.SignedOPHook = &forged }), "signed_op_hook.hook"},
		{"msgs hook for other recipient", api.PathMsgs, editHook(func(m *api.MsgsRequest) { m.AddressList[2] = bech("init", sender) }), "signed_op_hook.hook"},
		// track
		{"track no hash", api.PathTrack, `{"chain_id":"3370758106842963"}`, "tx_hash"},
		{"track no chain", api.PathTrack, `{"tx_hash":"` + goodHash + `"}`, "chain_id"},
		{"track short hash", api.PathTrack, `{"tx_hash":"0x1234","chain_id":"3370758106842963"}`, "tx_hash"},
		{"track cosmos hash on evm", api.PathTrack, `{"tx_hash":"` + strings.Repeat("AB", 32) + `","chain_id":"3370758106842963"}`, "tx_hash"},
		{"track evm hash on cosmos", api.PathTrack, `{"tx_hash":"` + goodHash + `","chain_id":"noble-local"}`, "tx_hash"},
		{"track hash as number", api.PathTrack, `{"tx_hash":12,"chain_id":"3370758106842963"}`, "tx_hash"},
		// control
		{"faults error rate", PathFaults, `{"error_rate":2}`, "error_rate"},
		{"faults latency", PathFaults, `{"latency_ms":-1}`, "latency_ms"},
		{"faults negative hop", PathFaults, `{"fail_hop":-1}`, "fail_hop"},
		{"faults unknown field", PathFaults, `{"latency":5}`, "latency"},
		{"faults wrong type", PathFaults, `{"track_not_found":"3"}`, "track_not_found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, e, raw := do(t, http.MethodPost, s.URL()+tc.path, tc.body)
			if status != http.StatusBadRequest || e.Code != api.CodeInvalidArgument {
				t.Fatalf("status %d code %d, want 400 / 3: %s", status, e.Code, raw)
			}
			if !strings.Contains(e.Message, tc.field) {
				t.Errorf("message %q does not name %q", e.Message, tc.field)
			}
			if len(e.Details) != 1 || e.Details[0].Type != api.TypeBadRequest || len(e.Details[0].FieldViolations) != 1 || e.Details[0].FieldViolations[0].Field != tc.field {
				t.Errorf("details %+v, want one BadRequest violation of %q", e.Details, tc.field)
			}
		})
	}
	if s.Faults() != (Faults{}) {
		t.Errorf("a refused control request changed the faults: %+v", s.Faults())
	}

	t.Run("status query", func(t *testing.T) {
		for q, field := range map[string]string{"chain_id=3370758106842963": "tx_hash", "tx_hash=" + goodHash: "chain_id", "tx_hash=0x12&chain_id=3370758106842963": "tx_hash"} {
			status, e, raw := do(t, http.MethodGet, s.URL()+api.PathStatus+"?"+q, "")
			if status != 400 || e.Details[0].FieldViolations[0].Field != field {
				t.Errorf("%s: %d %s, want 400 naming %s", q, status, raw, field)
			}
		}
	})
	t.Run("not found answers", func(t *testing.T) {
		// The message tells what was not found; details stay empty, as no value of the
		// service's ErrorDetail.reason enum fits.
		check := func(method, path, body, msg string) {
			t.Helper()
			status, e, raw := do(t, method, s.URL()+path, body)
			if status != 404 || e.Code != api.CodeNotFound || len(e.Details) != 0 || !strings.Contains(e.Message, msg) {
				t.Errorf("%s %s: %d %s, want 404 code 5 %q without details", method, path, status, raw, msg)
			}
		}
		check("POST", api.PathTrack, `{"tx_hash":"`+goodHash+`","chain_id":"osmosis-1"}`, "chain ID not supported")
		check("POST", api.PathTrack, `{"tx_hash":"`+strings.Repeat("AB", 32)+`","chain_id":"noble-local"}`, "chain ID not supported")
		check("POST", api.PathTrack, `{"tx_hash":"`+goodHash+`","chain_id":"3370758106842963"}`, "tx not found")
		check("GET", api.PathStatus+"?"+url.Values{"tx_hash": {goodHash}, "chain_id": {"3370758106842963"}}.Encode(), "", "tx not found")
		check("POST", api.PathRoute, editRoute(func(r *api.RouteRequest) { r.DestAssetChainID, r.DestAssetDenom = nobleChain, "uusdc" }), "no route found")
		check("GET", "/v2/nothing", "", "")
	})
	t.Run("op-hook for a route without hook", func(t *testing.T) {
		body := editOPHook(func(r *api.OPHookRequest) {
			r.DestAssetChainID, r.DestAssetDenom, r.DestAddress = l1Chain, ethOnL1, haddrs[l1Chain]
		})
		status, e, raw := do(t, http.MethodPost, s.URL()+api.PathOPHook, body)
		if status != 400 || e.Code != api.CodeFailedPrecondition {
			t.Errorf("%d %s, want 400 FAILED_PRECONDITION", status, raw)
		}
	})
	t.Run("method not allowed", func(t *testing.T) {
		status, e, _ := do(t, http.MethodGet, s.URL()+api.PathRoute, "")
		if status != http.StatusMethodNotAllowed || e.Code != api.CodeUnimplemented {
			t.Errorf("GET route: %d code %d", status, e.Code)
		}
		status, _, _ = do(t, http.MethodPost, s.URL()+api.PathStatus, "{}")
		if status != http.StatusMethodNotAllowed {
			t.Errorf("POST status: %d", status)
		}
	})
	t.Run("client surfaces the typed error", func(t *testing.T) {
		_, err := c.Route(ctx, api.RouteRequest{AmountIn: "x", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: l1Chain, DestAssetDenom: ethOnL1})
		e, ok := api.AsAPIError(err)
		if !ok || e.HTTPStatus != 400 || e.Code != api.CodeInvalidArgument || e.Field() != "amount_in" || !api.IsInvalidArgument(err) {
			t.Fatalf("got %#v", err)
		}
	})
}

func mustKey(t testing.TB) *ecdsa.PrivateKey {
	k, _ := newKey(t)
	return k
}
