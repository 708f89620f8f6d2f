package nodetest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	wasmkeeper "github.com/CosmWasm/wasmd/x/wasm/keeper"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	wasmcontract "github.com/vipharness/vipharness/contracts/wasm"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/wasm"
)

// wasmContract drives the project's CosmWasm vip_score through wasmd's messages and queries.
type wasmContract struct {
	codeID  uint64
	address string
}

func (*wasmContract) register(r codectypes.InterfaceRegistry) { wasmtypes.RegisterInterfaces(r) }

func (w *wasmContract) deploy(t *testing.T, e *env, initStage uint64) int {
	t.Helper()
	res := e.mustSend(t, e.deployer, &wasmtypes.MsgStoreCode{Sender: e.deployer.Address, WASMByteCode: wasmcontract.Code()})
	if got := cosmostx.Attr(res, "store_code", "code_checksum"); len(got) != 1 || got[0] != wasmcontract.Checksum() {
		t.Fatalf("store_code code_checksum %v, want %s", got, wasmcontract.Checksum())
	}
	ids := cosmostx.Attr(res, "store_code", "code_id")
	if len(ids) != 1 {
		t.Fatalf("store_code code_id attributes %v", ids)
	}
	if _, err := fmt.Sscan(ids[0], &w.codeID); err != nil {
		t.Fatalf("code_id %q: %v", ids[0], err)
	}
	var code wasmtypes.QueryCodeResponse
	if err := e.c.Get(context.Background(), fmt.Sprintf("/cosmwasm/wasm/v1/code/%d", w.codeID), &code); err != nil {
		t.Fatal(err)
	}
	if code.CodeInfoResponse == nil || strings.ToLower(code.DataHash.String()) != wasmcontract.Checksum() || !bytes.Equal(code.Data, wasmcontract.Code()) || code.Creator != e.deployer.Address {
		t.Fatalf("code %d info %+v, %d bytes", w.codeID, code.CodeInfoResponse, len(code.Data))
	}

	init, _ := json.Marshal(map[string]any{"allow_list": []string{e.deployer.Address}, "init_stage": initStage})
	res = e.mustSend(t, e.deployer, &wasmtypes.MsgInstantiateContract{Sender: e.deployer.Address, Admin: e.deployer.Address, CodeID: w.codeID, Label: "vip-score", Msg: init})
	addrs := cosmostx.Attr(res, "instantiate", "_contract_address")
	if len(addrs) != 1 {
		t.Fatalf("instantiate _contract_address %v", addrs)
	}
	// The first instance on a fresh chain has wasmd's classic address of (code, 1).
	if want := bech32Of(wasmkeeper.BuildContractAddressClassic(w.codeID, 1)); addrs[0] != want {
		t.Fatalf("contract address %s, want classic address %s", addrs[0], want)
	}
	w.address = addrs[0]
	return 2
}

func (w *wasmContract) handle() string   { return w.address }
func (*wasmContract) addr(u user) string { return bech32Of(u) }

func (w *wasmContract) exec(sender string, msg any) sdk.Msg {
	bz, _ := json.Marshal(msg)
	return &wasmtypes.MsgExecuteContract{Sender: sender, Contract: w.address, Msg: bz}
}

func (w *wasmContract) update(sender string, stage uint64, pairs []pair) sdk.Msg {
	ps := make([][2]any, len(pairs))
	for i, p := range pairs {
		ps[i] = [2]any{p.addr, p.score}
	}
	return w.exec(sender, map[string]any{"update_scores": map[string]any{"stage": stage, "scores": ps}})
}

func (w *wasmContract) finalize(sender string, stage uint64) sdk.Msg {
	return w.exec(sender, map[string]any{"finalize_stage": map[string]any{"stage": stage}})
}

func (*wasmContract) executeAction() string { return "/cosmwasm.wasm.v1.MsgExecuteContract" }

func (*wasmContract) executed(res *sdk.TxResponse) []string {
	return cosmostx.Attr(res, "execute", "_contract_address")
}

func (*wasmContract) updated(res *sdk.TxResponse) []string {
	return cosmostx.Attr(res, "wasm-update-score", "addr")
}

func (*wasmContract) finalized(res *sdk.TxResponse) []string {
	return cosmostx.Attr(res, "wasm-finalize-stage", "stage")
}

func (w *wasmContract) smart(t *testing.T, e *env, query, out any) error {
	t.Helper()
	return wasm.Smart(context.Background(), e.c, w.address, query, out)
}

func (w *wasmContract) stage(t *testing.T, e *env, stage uint64) stageInfo {
	t.Helper()
	var si struct {
		Stage       uint64 `json:"stage"`
		TotalScore  uint64 `json:"total_score"`
		IsFinalized bool   `json:"is_finalized"`
	}
	if err := w.smart(t, e, map[string]any{"get_stage_info": map[string]any{"stage": stage}}, &si); err != nil {
		t.Fatalf("get_stage_info %d: %v", stage, err)
	}
	return stageInfo{Stage: si.Stage, TotalScore: si.TotalScore, Finalized: si.IsFinalized}
}

type wasmScore struct {
	Stage uint64 `json:"stage"`
	Addr  string `json:"addr"`
	Score uint64 `json:"score"`
}

// scores pages through get_scores 30 at a time by start_after.
func (w *wasmContract) scores(t *testing.T, e *env, stage uint64) map[string]uint64 {
	t.Helper()
	got := map[string]uint64{}
	var after *string
	for {
		q := map[string]any{"stage": stage, "limit": 30}
		if after != nil {
			q["start_after"] = *after
		}
		var page struct {
			Scores []wasmScore `json:"scores"`
		}
		if err := w.smart(t, e, map[string]any{"get_scores": q}, &page); err != nil {
			t.Fatal(err)
		}
		for _, s := range page.Scores {
			got[s.Addr] = s.Score
		}
		if len(page.Scores) < 30 {
			return got
		}
		after = &page.Scores[len(page.Scores)-1].Addr
	}
}

func (w *wasmContract) score(t *testing.T, e *env, addr string, stage uint64) (uint64, bool) {
	t.Helper()
	var s wasmScore
	err := w.smart(t, e, map[string]any{"get_score": map[string]any{"addr": addr, "stage": stage}}, &s)
	if err != nil && strings.Contains(err.Error(), "has no score") {
		return 0, false
	}
	if err != nil || s.Addr != addr || s.Stage != stage {
		t.Fatalf("get_score of %s at %d: %+v, %v", addr, stage, s, err)
	}
	return s.Score, true
}

// wantNotAllowed: the contract's error, code 5 in codespace wasm.
func (*wasmContract) wantNotAllowed(t *testing.T, res *sdk.TxResponse) {
	t.Helper()
	if res.Code != wasmtypes.ErrExecuteFailed.ABCICode() || res.Codespace != "wasm" ||
		!strings.Contains(res.RawLog, "failed to execute message; message index: 0: "+wasm.NotAllowed) ||
		!strings.HasSuffix(res.RawLog, "execute wasm contract failed") {
		t.Fatalf("unauthorized: code %d codespace %q log %q", res.Code, res.Codespace, res.RawLog)
	}
}

// failingUpdate: the second pair is not an address, which the contract finds after it wrote
// the first into its (discarded) store.
func (w *wasmContract) failingUpdate(sender string, stage uint64, first pair) sdk.Msg {
	return w.update(sender, stage, []pair{first, {"init1notanaddress", 4}})
}

func (*wasmContract) wantFailedUpdate(t *testing.T, res *sdk.TxResponse) {
	t.Helper()
	if res.Codespace != "wasm" || res.Code != wasmtypes.ErrExecuteFailed.ABCICode() {
		t.Fatalf("failed execute: codespace %s code %d log %s", res.Codespace, res.Code, res.RawLog)
	}
}

// outOfGas: wasmd meters the contract on the SDK's gas meter, from loading its module on.
func (*wasmContract) outOfGas() (uint64, string) { return 90_000, "Loading CosmWasm module: execute" }

// restShapes: wasmd's smart query (base64 in the path), contract and code info.
func (w *wasmContract) restShapes(t *testing.T, e *env, stage uint64) {
	t.Helper()
	q := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, `{"get_stage_info":{"stage":%d}}`, stage))
	var smart map[string]any
	mustJSON(t, e.get(t, "/cosmwasm/wasm/v1/contract/"+w.address+"/smart/"+q), &smart)
	if d, ok := smart["data"].(map[string]any); !ok || d["stage"] != float64(stage) {
		t.Fatalf("smart query reply %v", smart)
	}
	var ci map[string]any
	mustJSON(t, e.get(t, "/cosmwasm/wasm/v1/contract/"+w.address), &ci)
	if info, _ := ci["contract_info"].(map[string]any); ci["address"] != w.address || info["label"] != "vip-score" {
		t.Fatalf("contract info %v", ci)
	}
	var code map[string]any
	mustJSON(t, e.get(t, fmt.Sprintf("/cosmwasm/wasm/v1/code/%d", w.codeID)), &code)
	if info, _ := code["code_info"].(map[string]any); info["code_id"] != fmt.Sprint(w.codeID) || w.codeID != 1 ||
		!strings.EqualFold(fmt.Sprint(info["data_hash"]), wasmcontract.Checksum()) {
		t.Fatalf("code info %v", code["code_info"])
	}
}

// failedInstantiateUsesNoInstance: an instantiate the contract refuses (an empty allow list)
// fails in a block, and the next instance still gets the classic address of (code, 2).
func (w *wasmContract) failedInstantiateUsesNoInstance(t *testing.T, e *env) {
	t.Helper()
	res := e.sendFixed(t, e.deployer, 500_000, &wasmtypes.MsgInstantiateContract{Sender: e.deployer.Address, CodeID: w.codeID, Label: "bad", Msg: []byte(`{"allow_list":[],"init_stage":1}`)})
	if res.Code != wasmtypes.ErrInstantiateFailed.ABCICode() || res.Codespace != "wasm" {
		t.Fatalf("bad instantiate: codespace %s code %d log %s", res.Codespace, res.Code, res.RawLog)
	}
	init, _ := json.Marshal(map[string]any{"allow_list": []string{e.deployer.Address}, "init_stage": 1})
	res = e.mustSend(t, e.deployer, &wasmtypes.MsgInstantiateContract{Sender: e.deployer.Address, CodeID: w.codeID, Label: "second", Msg: init})
	want := bech32Of(wasmkeeper.BuildContractAddressClassic(w.codeID, 2))
	if got := cosmostx.Attr(res, "instantiate", "_contract_address"); !slices.Equal(got, []string{want}) {
		t.Fatalf("second contract %v, want %s", got, want)
	}
}
