package embedded

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdkmath "cosmossdk.io/math"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	wasmkeeper "github.com/CosmWasm/wasmd/x/wasm/keeper"
	wasmcontract "github.com/vipharness/vipharness/contracts/wasm"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/wasm"
	"github.com/vipharness/vipharness/localnet/minitia"
)

// wasmEnv is a started Wasm rollup with a client built only from its URLs.
type wasmEnv struct {
	r        *WasmRollup
	c        *cosmostx.Client
	deployer *cosmostx.Signer
	outsider *cosmostx.Signer
}

func startWasm(t testing.TB, opts ...WasmOption) *wasmEnv {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := StartWasm(ctx, opts...)
	if err != nil {
		t.Fatalf("start wasm rollup: %v", err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	// The client has its own encoding, as an outside client would.
	enc, err := cosmostx.NewEncoding("init", wasmtypes.RegisterInterfaces)
	if err != nil {
		t.Fatal(err)
	}
	ep := r.Endpoints()
	c, err := cosmostx.New(ep.CometRPC, ep.REST, r.ChainID(), enc, sdk.NewDecCoinFromDec("umin", sdkmath.LegacyMustNewDecFromStr("0.15")))
	if err != nil {
		t.Fatal(err)
	}
	env := &wasmEnv{r: r, c: c}
	funded := r.Funded()
	if len(funded) < 2 {
		t.Fatalf("funded accounts: %d, want 2", len(funded))
	}
	env.deployer = env.signer(t, funded[0].PrivateKey)
	env.outsider = env.signer(t, funded[1].PrivateKey)
	return env
}

func (e *wasmEnv) signer(t testing.TB, keyHex string) *cosmostx.Signer {
	t.Helper()
	secret, err := hex.DecodeString(keyHex)
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.c.Signer(context.Background(), &secp256k1.PrivKey{Key: secret})
	if err != nil {
		t.Fatalf("load signer: %v", err)
	}
	return s
}

// send simulates msgs, signs them with 1.3× the simulated gas and broadcasts them.
func (e *wasmEnv) send(t testing.TB, s *cosmostx.Signer, msgs ...sdk.Msg) *sdk.TxResponse {
	t.Helper()
	ctx := context.Background()
	sim, err := e.c.Simulate(ctx, s, msgs...)
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	res, err := e.c.Send(ctx, s, sim.GasInfo.GasUsed*13/10, msgs...)
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	return res
}

// sendFixed signs msgs with a fixed gas limit (for txs that are meant to fail) and broadcasts them.
func (e *wasmEnv) sendFixed(t testing.TB, s *cosmostx.Signer, gas uint64, msgs ...sdk.Msg) *sdk.TxResponse {
	t.Helper()
	res, err := e.c.Send(context.Background(), s, gas, msgs...)
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	return res
}

func (e *wasmEnv) mustSend(t testing.TB, s *cosmostx.Signer, msgs ...sdk.Msg) *sdk.TxResponse {
	t.Helper()
	res := e.send(t, s, msgs...)
	if res.Code != 0 {
		t.Fatalf("tx %s failed: codespace %s code %d: %s", res.TxHash, res.Codespace, res.Code, res.RawLog)
	}
	return res
}

func wasmAddrs(n int) []string {
	out := make([]string, n)
	for i := range out {
		payload := make([]byte, 20)
		for j := range payload {
			payload[j] = byte(i*31 + j*7 + 3)
		}
		payload[0], payload[1] = byte(i>>8), byte(i)
		out[i], _ = bech32.ConvertAndEncode("init", payload)
	}
	return out
}

func execMsg(sender, contract string, msg any) *wasmtypes.MsgExecuteContract {
	bz, _ := json.Marshal(msg)
	return &wasmtypes.MsgExecuteContract{Sender: sender, Contract: contract, Msg: bz}
}

type stageInfo struct {
	Stage       uint64 `json:"stage"`
	TotalScore  uint64 `json:"total_score"`
	IsFinalized bool   `json:"is_finalized"`
}

type userScore struct {
	Stage uint64 `json:"stage"`
	Addr  string `json:"addr"`
	Score uint64 `json:"score"`
}

func (e *wasmEnv) stage(t testing.TB, contract string, stage uint64) stageInfo {
	t.Helper()
	var si stageInfo
	if err := wasm.Smart(context.Background(), e.c, contract, map[string]any{"get_stage_info": map[string]any{"stage": stage}}, &si); err != nil {
		t.Fatalf("get_stage_info %d: %v", stage, err)
	}
	return si
}

// deploy stores the contract and instantiates it at initStage.
func (e *wasmEnv) deploy(t testing.TB, initStage uint64) (codeID uint64, contract string) {
	t.Helper()
	res := e.mustSend(t, e.deployer, &wasmtypes.MsgStoreCode{Sender: e.deployer.Address, WASMByteCode: wasmcontract.Code()})
	if got := cosmostx.Attr(res, "store_code", "code_checksum"); len(got) != 1 || got[0] != wasmcontract.Checksum() {
		t.Fatalf("store_code code_checksum %v, want %s", got, wasmcontract.Checksum())
	}
	ids := cosmostx.Attr(res, "store_code", "code_id")
	if len(ids) != 1 {
		t.Fatalf("store_code code_id attributes %v", ids)
	}
	fmt.Sscan(ids[0], &codeID)
	init, _ := json.Marshal(map[string]any{"allow_list": []string{e.deployer.Address}, "init_stage": initStage})
	res = e.mustSend(t, e.deployer, &wasmtypes.MsgInstantiateContract{Sender: e.deployer.Address, Admin: e.deployer.Address, CodeID: codeID, Label: "vip-score", Msg: init})
	addrs := cosmostx.Attr(res, "instantiate", "_contract_address")
	if len(addrs) != 1 {
		t.Fatalf("instantiate _contract_address %v", addrs)
	}
	return codeID, addrs[0]
}

func TestWasmRollupScoringLifecycle(t *testing.T) {
	e := startWasm(t)
	ctx := context.Background()
	if e.r.VM() != deployer.Wasm || e.r.Endpoints().JSONRPC != "" || e.r.ChainID() != DefaultWasmChainID {
		t.Fatalf("rollup vm %s endpoints %+v chain %s", e.r.VM(), e.r.Endpoints(), e.r.ChainID())
	}
	info, err := e.c.RPC.ABCIInfo(ctx)
	if err != nil || info.Response.LastBlockHeight < 1 || info.Response.Version == "" {
		t.Fatalf("abci_info %+v: %v", info, err)
	}
	st, err := e.c.RPC.Status(ctx)
	if err != nil || st.NodeInfo.Network != DefaultWasmChainID {
		t.Fatalf("status %+v: %v", st, err)
	}

	// The funded account derives from its mnemonic (coin type 118).
	acc, err := minitia.DeriveAccount(e.r.Funded()[0].Mnemonic, keys.Secp256k1, "init")
	if err != nil || acc.Address != e.deployer.Address || acc.PrivateKey != e.r.Funded()[0].PrivateKey {
		t.Fatalf("mnemonic derives %s (%v), want %s", acc.Address, err, e.deployer.Address)
	}

	codeID, contract := e.deploy(t, 3)
	if want, _ := bech32.ConvertAndEncode("init", wasmkeeper.BuildContractAddressClassic(codeID, 1)); contract != want {
		t.Fatalf("contract address %s, want classic address %s", contract, want)
	}
	var code wasmtypes.QueryCodeResponse
	if err := e.c.Get(ctx, fmt.Sprintf("/cosmwasm/wasm/v1/code/%d", codeID), &code); err != nil {
		t.Fatal(err)
	}
	if code.CodeInfoResponse == nil || strings.ToLower(code.DataHash.String()) != wasmcontract.Checksum() || !bytes.Equal(code.Data, wasmcontract.Code()) || code.Creator != e.deployer.Address {
		t.Fatalf("code %d info %+v, %d bytes", codeID, code.CodeInfoResponse, len(code.Data))
	}
	if si := e.stage(t, contract, 3); si != (stageInfo{Stage: 3}) {
		t.Fatalf("stage 3 after instantiate: %+v", si)
	}

	// update_scores for 100 addresses.
	users := wasmAddrs(100)
	pairs := make([][2]any, len(users))
	var total uint64
	for i, u := range users {
		pairs[i] = [2]any{u, uint64(i*10 + 1)}
		total += uint64(i*10 + 1)
	}
	res := e.mustSend(t, e.deployer, execMsg(e.deployer.Address, contract, map[string]any{"update_scores": map[string]any{"stage": 3, "scores": pairs}}))
	if got := cosmostx.Attr(res, "execute", "_contract_address"); !slices.Equal(got, []string{contract}) {
		t.Fatalf("execute event contract %v", got)
	}
	if got := cosmostx.Attr(res, "message", "action"); !slices.Equal(got, []string{"/cosmwasm.wasm.v1.MsgExecuteContract"}) {
		t.Fatalf("message action %v", got)
	}
	if got := cosmostx.Attr(res, "wasm-update-score", "addr"); len(got) != 100 {
		t.Fatalf("wasm-update-score events: %d, want 100", len(got))
	}
	t.Logf("update_scores(100): gas used %d of %d, %d bytes", res.GasUsed, res.GasWanted, len(res.Tx.Value))

	if si := e.stage(t, contract, 3); si != (stageInfo{Stage: 3, TotalScore: total}) {
		t.Fatalf("stage 3 after update: %+v, want total %d", si, total)
	}
	got := map[string]uint64{}
	var after *string
	for {
		q := map[string]any{"stage": 3, "limit": 30}
		if after != nil {
			q["start_after"] = *after
		}
		var page struct {
			Scores []userScore `json:"scores"`
		}
		if err := wasm.Smart(ctx, e.c, contract, map[string]any{"get_scores": q}, &page); err != nil {
			t.Fatal(err)
		}
		for _, s := range page.Scores {
			got[s.Addr] = s.Score
		}
		if len(page.Scores) < 30 {
			break
		}
		after = &page.Scores[len(page.Scores)-1].Addr
	}
	for i, u := range users {
		if got[u] != uint64(i*10+1) {
			t.Fatalf("score of %s: %d, want %d (have %d scores)", u, got[u], i*10+1, len(got))
		}
	}

	// An address off the allow list is refused by the contract: code 5 in codespace wasm.
	res = e.sendFixed(t, e.outsider, 500_000, execMsg(e.outsider.Address, contract, map[string]any{"finalize_stage": map[string]any{"stage": 3}}))
	if res.Code != wasmtypes.ErrExecuteFailed.ABCICode() || res.Codespace != "wasm" || res.Height == 0 ||
		!strings.Contains(res.RawLog, "failed to execute message; message index: 0: Address is not allowed") ||
		!strings.HasSuffix(res.RawLog, "execute wasm contract failed") {
		t.Fatalf("unauthorized finalize: code %d codespace %q height %d log %q", res.Code, res.Codespace, res.Height, res.RawLog)
	}

	res = e.mustSend(t, e.deployer, execMsg(e.deployer.Address, contract, map[string]any{"finalize_stage": map[string]any{"stage": 3}}))
	if got := cosmostx.Attr(res, "wasm-finalize-stage", "stage"); !slices.Equal(got, []string{"3"}) {
		t.Fatalf("finalize events %v", res.Events)
	}
	if si := e.stage(t, contract, 3); !si.IsFinalized || si.TotalScore != total {
		t.Fatalf("stage 3 after finalize: %+v", si)
	}
	if si := e.stage(t, contract, 4); si != (stageInfo{Stage: 4}) {
		t.Fatalf("stage 4 after finalize: %+v", si)
	}
}

func TestWasmRollupRefusesBadTxs(t *testing.T) {
	e := startWasm(t)
	ctx := context.Background()
	_, contract := e.deploy(t, 1)
	msg := execMsg(e.deployer.Address, contract, map[string]any{"update_score": map[string]any{"addr": e.outsider.Address, "stage": 1, "amount": 7}})
	// Wrong sequence: refused at CheckTx with code 32, nothing enters a block.
	bad := *e.deployer
	bad.Sequence += 5
	tx, err := e.c.SignTx(ctx, &bad, 400_000, msg)
	if err != nil {
		t.Fatal(err)
	}
	br, err := e.c.Broadcast(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	wantLog := fmt.Sprintf("account sequence mismatch, expected %d, got %d: incorrect account sequence", e.deployer.Sequence, bad.Sequence)
	if br.Code != 32 || br.Codespace != "sdk" || br.Log != wantLog {
		t.Fatalf("bad sequence: code %d codespace %q log %q", br.Code, br.Codespace, br.Log)
	}
	if _, err := e.c.GetTx(ctx, br.Hash.String()); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("refused tx is indexed: %v", err)
	}

	// Signed for another chain: the signature does not verify (code 4).
	other := *e.c
	other.ChainID = "another-chain-1"
	tx, err = other.SignTx(ctx, e.deployer, 400_000, msg)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := e.c.BroadcastREST(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if rr.Code != 4 || !strings.HasPrefix(rr.RawLog, "signature verification failed; please verify account number") || !strings.HasSuffix(rr.RawLog, ": unauthorized") {
		t.Fatalf("bad signature: code %d log %q", rr.Code, rr.RawLog)
	}

	// Too little fee for the gas asked: code 13.
	low := e.c.WithGasPrice(sdk.NewDecCoinFromDec("umin", sdkmath.LegacyMustNewDecFromStr("0.01")))
	res, err := low.Send(ctx, e.deployer, 400_000, msg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 13 || !strings.Contains(res.RawLog, "insufficient fees; got: 4000umin required: 60000umin") {
		t.Fatalf("low fee: code %d log %q", res.Code, res.RawLog)
	}
	// Blocks come on an interval: two blocks later, none of the refused txs has run (the
	// sender's sequence is where it was).
	for h := e.r.Height() + 2; e.r.Height() < h; {
		time.Sleep(20 * time.Millisecond)
	}
	if _, seq, err := e.c.Account(ctx, e.deployer.Address); err != nil || seq != e.deployer.Sequence {
		t.Fatalf("refused txs ran: sequence %d, want %d (%v)", seq, e.deployer.Sequence, err)
	}

	// Out of gas in the contract: code 11, in a block, nothing written.
	res, err = e.c.Send(ctx, e.deployer, 90_000, msg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 11 || res.Height == 0 || !strings.Contains(res.RawLog, "out of gas in location") {
		t.Fatalf("out of gas: code %d height %d log %q", res.Code, res.Height, res.RawLog)
	}
	if si := e.stage(t, contract, 1); si.TotalScore != 0 {
		t.Fatalf("out-of-gas tx wrote a score: %+v", si)
	}
}

func TestWasmRollupFailedTxWritesNothing(t *testing.T) {
	e := startWasm(t)
	ctx := context.Background()
	codeID, contract := e.deploy(t, 1)
	users := wasmAddrs(3)
	e.mustSend(t, e.deployer, execMsg(e.deployer.Address, contract, map[string]any{"update_scores": map[string]any{"stage": 1, "scores": [][2]any{{users[0], 5}}}}))

	balance := func() sdk.Coins {
		var res struct {
			Balances sdk.Coins `json:"balances"`
		}
		body := restGet(t, e.c.REST+"/cosmos/bank/v1beta1/balances/"+e.deployer.Address)
		if err := json.Unmarshal(body, &res); err != nil {
			t.Fatal(err)
		}
		return res.Balances
	}
	before := balance()
	seq := e.deployer.Sequence

	// The first pair is valid, the second is not an address: the contract rejects the message
	// after writing the first score into its (discarded) store.
	res := e.sendFixed(t, e.deployer, 500_000, execMsg(e.deployer.Address, contract, map[string]any{"update_scores": map[string]any{"stage": 1, "scores": [][2]any{{users[1], 9}, {"init1notanaddress", 4}}}}))
	if res.Code == 0 {
		t.Fatal("tx with an invalid address succeeded")
	}
	if res.Codespace != "wasm" || res.Code != 5 || len(cosmostx.Attr(res, "execute", "_contract_address")) != 0 {
		t.Fatalf("failed execute: codespace %s code %d events %v", res.Codespace, res.Code, res.Events)
	}
	var score userScore
	if err := wasm.Smart(ctx, e.c, contract, map[string]any{"get_score": map[string]any{"addr": users[1], "stage": 1}}, &score); err == nil || !strings.Contains(err.Error(), "has no score") {
		t.Fatalf("failed tx left a score: %+v (%v)", score, err)
	}
	if si := e.stage(t, contract, 1); si.TotalScore != 5 {
		t.Fatalf("failed tx changed the total: %+v", si)
	}
	// It still paid its fee and used its sequence, like on a real chain.
	fee := e.c.Fee(uint64(res.GasWanted))
	if after := balance(); !after.Equal(before.Sub(fee...)) {
		t.Fatalf("balance %s -> %s, want fee %s taken", before, after, fee)
	}
	if e.deployer.Sequence != seq+1 {
		t.Fatalf("sequence %d -> %d", seq, e.deployer.Sequence)
	}

	// A failed instantiate does not use up an instance id either.
	res = e.sendFixed(t, e.deployer, 500_000, &wasmtypes.MsgInstantiateContract{Sender: e.deployer.Address, CodeID: codeID, Label: "bad", Msg: []byte(`{"allow_list":[],"init_stage":1}`)})
	if res.Code != wasmtypes.ErrInstantiateFailed.ABCICode() || res.Codespace != "wasm" {
		t.Fatalf("bad instantiate: codespace %s code %d log %s", res.Codespace, res.Code, res.RawLog)
	}
	init, _ := json.Marshal(map[string]any{"allow_list": []string{e.deployer.Address}, "init_stage": 1})
	res = e.mustSend(t, e.deployer, &wasmtypes.MsgInstantiateContract{Sender: e.deployer.Address, CodeID: codeID, Label: "second", Msg: init})
	want, _ := bech32.ConvertAndEncode("init", wasmkeeper.BuildContractAddressClassic(codeID, 2))
	if got := cosmostx.Attr(res, "instantiate", "_contract_address"); !slices.Equal(got, []string{want}) {
		t.Fatalf("second contract %v, want %s", got, want)
	}
}

func TestWasmRollupRESTShapes(t *testing.T) {
	e := startWasm(t)
	_, contract := e.deploy(t, 2)
	base := e.c.REST

	var acc map[string]any
	mustJSON(t, restGet(t, base+"/cosmos/auth/v1beta1/accounts/"+e.deployer.Address), &acc)
	a := acc["account"].(map[string]any)
	if a["@type"] != "/cosmos.auth.v1beta1.BaseAccount" || a["address"] != e.deployer.Address || a["sequence"] != "2" || a["account_number"] != "0" {
		t.Fatalf("account: %v", acc)
	}
	if pk := a["pub_key"].(map[string]any); pk["@type"] != "/cosmos.crypto.secp256k1.PubKey" {
		t.Fatalf("account pub_key %v", pk)
	}
	var prefix map[string]any
	mustJSON(t, restGet(t, base+"/cosmos/auth/v1beta1/bech32"), &prefix)
	if prefix["bech32_prefix"] != "init" {
		t.Fatalf("bech32: %v", prefix)
	}
	nobody, _ := bech32.ConvertAndEncode("init", bytes.Repeat([]byte{0x42}, 20))
	resp, err := http.Get(base + "/cosmos/auth/v1beta1/accounts/" + nobody)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"code":5`) || !strings.Contains(string(body), "not found") {
		t.Fatalf("missing account: %d %s", resp.StatusCode, body)
	}

	var smart map[string]any
	mustJSON(t, restGet(t, base+"/cosmwasm/wasm/v1/contract/"+contract+"/smart/eyJnZXRfc3RhZ2VfaW5mbyI6eyJzdGFnZSI6Mn19"), &smart)
	if d, ok := smart["data"].(map[string]any); !ok || d["stage"] != float64(2) {
		t.Fatalf("smart query reply %v", smart)
	}
	var ci map[string]any
	mustJSON(t, restGet(t, base+"/cosmwasm/wasm/v1/contract/"+contract), &ci)
	if ci["address"] != contract || ci["contract_info"].(map[string]any)["label"] != "vip-score" {
		t.Fatalf("contract info %v", ci)
	}
	var code map[string]any
	mustJSON(t, restGet(t, base+"/cosmwasm/wasm/v1/code/1"), &code)
	if info := code["code_info"].(map[string]any); info["code_id"] != "1" || !strings.EqualFold(info["data_hash"].(string), wasmcontract.Checksum()) {
		t.Fatalf("code info %v", code["code_info"])
	}
	var ni map[string]any
	mustJSON(t, restGet(t, base+"/cosmos/base/tendermint/v1beta1/node_info"), &ni)
	if ni["default_node_info"].(map[string]any)["network"] != DefaultWasmChainID {
		t.Fatalf("node_info %v", ni)
	}
	var bal map[string]any
	mustJSON(t, restGet(t, base+"/cosmos/bank/v1beta1/balances/"+e.deployer.Address), &bal)
	if b := bal["balances"].([]any); len(b) != 1 || b[0].(map[string]any)["denom"] != "umin" {
		t.Fatalf("balances %v", bal)
	}
}

func restGet(t testing.TB, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	return body
}

func mustJSON(t testing.TB, body []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

// The mnemonic's coin type 60 eth_secp256k1 account (what Initia.js MnemonicKey() derives
// with its defaults, miniwasm's CoinType) is funded beside the coin type 118 one, and signs
// txs on the Wasm rollup.
func TestWasmRollupFundsTheCoinType60Account(t *testing.T) {
	e := startWasm(t)
	ctx := context.Background()
	dev := e.r.Funded()[0]
	eth, err := minitia.DeriveAccount(dev.Mnemonic, keys.EthSecp256k1, "init")
	if err != nil {
		t.Fatal(err)
	}
	if eth.Address == dev.Address || dev.CoinType60Address != eth.Address {
		t.Fatalf("coin type 60 account %q, the mnemonic derives %s (118: %s)", dev.CoinType60Address, eth.Address, dev.Address)
	}
	balance := func(addr string) sdk.Coins {
		var res struct {
			Balances sdk.Coins `json:"balances"`
		}
		if err := json.Unmarshal(restGet(t, e.c.REST+"/cosmos/bank/v1beta1/balances/"+addr), &res); err != nil {
			t.Fatal(err)
		}
		return res.Balances
	}
	genesis := sdk.NewCoins(sdk.NewCoin("umin", minitia.DefaultGenesisBalance))
	for _, addr := range []string{dev.Address, eth.Address} {
		if got := balance(addr); !got.Equal(genesis) {
			t.Fatalf("%s holds %s, want %s", addr, got, genesis)
		}
	}

	s, err := e.c.Signer(ctx, eth.Key)
	if err != nil {
		t.Fatalf("load the eth_secp256k1 signer: %v", err)
	}
	if s.Address != eth.Address {
		t.Fatalf("signer address %s, want %s", s.Address, eth.Address)
	}
	amount := sdk.NewCoins(sdk.NewInt64Coin("umin", 1_000))
	res := e.mustSend(t, s, &banktypes.MsgSend{FromAddress: eth.Address, ToAddress: e.outsider.Address, Amount: amount})
	fee := e.c.Fee(uint64(res.GasWanted))
	if got, want := balance(eth.Address), genesis.Sub(amount...).Sub(fee...); !got.Equal(want) {
		t.Fatalf("after the send %s holds %s, want %s", eth.Address, got, want)
	}
	var acct struct {
		Account struct {
			PubKey struct {
				Type string `json:"@type"`
			} `json:"pub_key"`
		} `json:"account"`
	}
	if err := json.Unmarshal(restGet(t, e.c.REST+"/cosmos/auth/v1beta1/accounts/"+eth.Address), &acct); err != nil {
		t.Fatal(err)
	}
	if acct.Account.PubKey.Type != "/initia.crypto.v1beta1.ethsecp256k1.PubKey" {
		t.Fatalf("the account's key after its first tx: %q, want Initia's eth_secp256k1", acct.Account.PubKey.Type)
	}
}
