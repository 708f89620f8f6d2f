package router

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/router"
)

// resignDirect turns a signed hook into one signed in SIGN_MODE_DIRECT for chainID and
// accountNumber: ECDSA over keccak256 of the SignDoc bytes, [R || S].
func resignDirect(t *testing.T, hook string, key func([]byte) []byte, chainID string, accountNumber uint64) string {
	t.Helper()
	raw, _ := base64.StdEncoding.DecodeString(hook)
	var tr txtypes.TxRaw
	var ai txtypes.AuthInfo
	if err := tr.Unmarshal(raw); err != nil {
		t.Fatal(err)
	}
	if err := ai.Unmarshal(tr.AuthInfoBytes); err != nil {
		t.Fatal(err)
	}
	ai.SignerInfos[0].ModeInfo.GetSingle().Mode = signing.SignMode_SIGN_MODE_DIRECT
	ab, _ := ai.Marshal()
	doc := txtypes.SignDoc{BodyBytes: tr.BodyBytes, AuthInfoBytes: ab, ChainId: chainID, AccountNumber: accountNumber}
	db, _ := doc.Marshal()
	out, _ := (&txtypes.TxRaw{BodyBytes: tr.BodyBytes, AuthInfoBytes: ab, Signatures: [][]byte{key(crypto.Keccak256(db))[:64]}}).Marshal()
	return base64.StdEncoding.EncodeToString(out)
}

func TestSignedOPHookIsACosmosTxOfTheHookChain(t *testing.T) {
	chain := newMemChain(3370758106842963)
	s := startRouter(t, WithTxSource(evmChain, chain), WithStepInterval(time.Millisecond))
	c := newClient(t, s, api.WithPollBackoff(time.Millisecond, 5*time.Millisecond))
	ctx := context.Background()
	key, _ := newKey(t)
	signer := memSignerKey(t, chain, key, hookAccounts(s))
	addrs := addressesFor(signer.Address(), moveChain)
	route, err := c.Route(ctx, api.RouteRequest{AmountIn: "5000", SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: moveChain, DestAssetDenom: ethOnMove})
	if err != nil {
		t.Fatal(err)
	}
	hook, err := c.OPHook(ctx, api.OPHookRequest{SourceAddress: addrs[l1Chain], SourceAssetChainID: evmChain, SourceAssetDenom: evmNative,
		DestAddress: addrs[moveChain], DestAssetChainID: moveChain, DestAssetDenom: ethOnMove})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(hook.Hook[0].Msg, `"data"`) {
		t.Errorf("the hook's amino JSON carries an empty data: %s", hook.Hook[0].Msg)
	}
	msgsFor := func(h api.SignedOPHook) api.MsgsRequest {
		return api.MsgsRequest{SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: moveChain, DestAssetDenom: ethOnMove,
			AmountIn: route.AmountIn, AddressList: []string{addrs[evmChain], addrs[l1Chain], addrs[moveChain]},
			Operations: route.Operations, SignedOPHook: &h}
	}
	// The stand-in simulates initiation-2's accounts and serves them as its REST would.
	num, seq, err := api.ReadAccount(ctx, nil, s.ChainRESTURL(l1Chain), addrs[l1Chain])
	if err != nil || num != firstAccountNumber || seq != 0 {
		t.Fatalf("account %d/%d %v", num, seq, err)
	}
	lookup := func(n, q uint64) api.EVMSignerOption {
		return api.WithHookAccounts(func(context.Context, string, string) (uint64, uint64, error) { return n, q, nil })
	}
	sign := func(opt api.EVMSignerOption) api.SignedOPHook {
		t.Helper()
		h, err := memSignerKey(t, chain, key, opt).SignOPHook(ctx, *hook)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	good := sign(hookAccounts(s))
	privSign := func(h []byte) []byte { sig, _ := crypto.Sign(h, key); return sig }
	tampered := func() api.SignedOPHook {
		var d api.TokenDeposit
		_ = json.Unmarshal([]byte(hook.Hook[0].Msg), &d)
		d.Amount.Amount = "1"
		b, _ := json.Marshal(d)
		other := *hook
		other.Hook = []api.CosmosMsg{{MsgTypeURL: hook.Hook[0].MsgTypeURL, Msg: string(b)}}
		h, err := memSignerKey(t, chain, key, hookAccounts(s)).SignOPHook(ctx, other)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	for _, tc := range []struct {
		name string
		hook api.SignedOPHook
		want string // "" accepted, else in the refusal
	}{
		{"signed in SIGN_MODE_EIP_191 as interwovenkit signs", good, ""},
		{"signed in SIGN_MODE_DIRECT", api.SignedOPHook{Signer: good.Signer, Hook: resignDirect(t, good.Hook, privSign, l1Chain, num)}, ""},
		{"DIRECT for another chain", api.SignedOPHook{Signer: good.Signer, Hook: resignDirect(t, good.Hook, privSign, moveChain, num)}, "does not verify"},
		{"wrong account number", sign(lookup(num+1, seq)), "does not verify"},
		// interwovenkit signs for a later sequence when the bridge tx runs on the hook chain too
		{"a later sequence", sign(lookup(num, seq+1)), ""},
		{"another message", tampered(), "message 0 is not the hook's deposit"},
		{"not a tx", api.SignedOPHook{Signer: good.Signer, Hook: base64.StdEncoding.EncodeToString([]byte(`{"chain_id":"initiation-2"}`))}, "signed_op_hook.hook"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Msgs(ctx, msgsFor(tc.hook))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !api.IsInvalidArgument(err) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want a 400 with %q", err, tc.want)
			}
		})
	}

	// Tracking a transfer runs its hook on initiation-2: with the current sequence it runs
	// and moves the sequence on; a used hook is refused; a hook whose sequence is not the
	// current one when it runs fails there, and so does the transfer.
	send := func(h api.SignedOPHook) *api.StatusResponse {
		t.Helper()
		msgs, err := c.Msgs(ctx, msgsFor(h))
		if err != nil {
			t.Fatal(err)
		}
		hash, chainID, err := signer.SignAndBroadcast(ctx, msgs.Txs[0])
		if err != nil {
			t.Fatal(err)
		}
		req := api.TrackRequest{TxHash: hash, ChainID: chainID}
		if _, err := c.Track(ctx, req); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		st, err := c.WaitStatus(wctx, req, nil)
		if err != nil && st == nil {
			t.Fatal(err)
		}
		return st
	}
	if st := send(good); st.State != api.StateCompletedSuccess {
		t.Fatalf("the hook's transfer ended %s", st.State)
	}
	if _, seq, _ := api.ReadAccount(ctx, nil, s.ChainRESTURL(l1Chain), addrs[l1Chain]); seq != 1 {
		t.Errorf("sequence after the hook ran: %d", seq)
	}
	if _, err := c.Msgs(ctx, msgsFor(good)); err == nil || !strings.Contains(err.Error(), "already 1") {
		t.Errorf("a used hook was accepted again: %v", err)
	}
	st := send(sign(lookup(num, 2)))
	if st.State != api.StateCompletedError || st.Error == nil || !strings.Contains(st.Error.Message, "account sequence mismatch, expected 1, got 2") {
		t.Errorf("a hook out of sequence ended %s %+v", st.State, st.Error)
	}
	if _, seq, _ := api.ReadAccount(ctx, nil, s.ChainRESTURL(l1Chain), addrs[l1Chain]); seq != 1 {
		t.Errorf("a failed hook moved the sequence to %d", seq)
	}
}

func TestSimulatedChainREST(t *testing.T) {
	s := startRouter(t, WithAccounts(moveChain, "http://127.0.0.1:1"))
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/chains/initiation-2/rest/cosmos/auth/v1beta1/accounts/" + bech("init", recipient), 200},
		{"/chains/initiation-2/rest/cosmos/auth/v1beta1/accounts/" + bech("noble", recipient), 400},
		{"/chains/initiation-2/rest/cosmos/bank/v1beta1/balances/" + bech("init", recipient), 501},
		{"/chains/minimove-1/rest/cosmos/auth/v1beta1/accounts/" + bech("init", recipient), 404}, // linked: ask its node
		{"/chains/3370758106842963/rest/cosmos/auth/v1beta1/accounts/" + bech("init", recipient), 404},
		{"/chains/osmosis-1/rest/cosmos/auth/v1beta1/accounts/x", 404},
	} {
		if status, _, raw := do(t, http.MethodGet, s.URL()+tc.path, ""); status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.path, status, raw, tc.status)
		}
	}
	if _, err := Start(context.Background(), WithAccounts("osmosis-1", "http://127.0.0.1:1")); err == nil {
		t.Error("linked the accounts of a chain outside the graph")
	}
}
