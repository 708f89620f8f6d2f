package nodetest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// moveContract drives vip_score, compiled for the deployer's address, through x/move's
// messages, views and resource and table routes.
type moveContract struct {
	owner movebcs.Address
}

// EUNAUTHORIZED is vip_score's reason for a signer that may not do what it asked.
const moveEUnauthorized = 1

func (*moveContract) register(r codectypes.InterfaceRegistry) { initiamove.RegisterInterfaces(r) }

func vmAddr(s *cosmostx.Signer) movebcs.Address {
	return movebcs.AccountAddress(s.Key.PubKey().Address())
}

// deploy publishes vip_score at the deployer's address, adds the deployer to its deployers
// and opens initStage, as the Move deployer does: three txs.
func (m *moveContract) deploy(t *testing.T, e *env, initStage uint64) int {
	t.Helper()
	ctx := context.Background()
	comp, err := movevm.OpenCompiler(movevm.Dir())
	if err != nil {
		t.Fatal(err)
	}
	m.owner = vmAddr(e.deployer)
	b, err := movecontract.Compile(ctx, comp, m.owner)
	if err != nil {
		t.Fatal(err)
	}
	res := e.mustSend(t, e.deployer, &initiamove.MsgPublish{Sender: e.deployer.Address, CodeBytes: [][]byte{b.VipScore}, UpgradePolicy: initiamove.COMPATIBLE})
	// The fee's payment moves Move coins too: its fungible asset events come first.
	if got := cosmostx.Attr(res, "move", "type_tag"); len(got) == 0 || slices.Index(got, "0x1::code::ModulePublishedEvent") != len(got)-1 {
		t.Fatalf("publish events: %v", got)
	}
	var mod initiamove.QueryModuleResponse
	if err := e.c.Get(ctx, "/initia/move/v1/accounts/"+m.owner.Short()+"/modules/vip_score", &mod); err != nil {
		t.Fatal(err)
	}
	if mod.Module.UpgradePolicy != initiamove.COMPATIBLE || !strings.Contains(mod.Module.Abi, "update_score_script") {
		t.Fatalf("module: policy %v abi %.80s", mod.Module.UpgradePolicy, mod.Module.Abi)
	}

	// Move opens the first stage in a tx of its own (Wasm at instantiate), so only here can a
	// stranger try to open it: the module refuses it with EUNAUTHORIZED.
	_, err = e.c.Exec(ctx, e.outsider, m.exec(e.outsider.Address, "set_init_stage", movebcs.ArgU64(initStage)))
	te, ok := err.(*cosmostx.TxError)
	if !ok {
		t.Fatalf("a stranger's set_init_stage: want a TxError, got %v", err)
	}
	if a, ok := movebcs.ParseAbort(te.RawLog); !ok || a.Reason() != moveEUnauthorized {
		t.Fatalf("want the EUNAUTHORIZED abort, got %s: %s", te.Phase, te.RawLog)
	}

	e.mustSend(t, e.deployer, m.exec(e.deployer.Address, "add_deployer_script", m.owner[:]))
	e.mustSend(t, e.deployer, m.exec(e.deployer.Address, "set_init_stage", movebcs.ArgU64(initStage)))
	return 3
}

func (m *moveContract) exec(sender, fn string, args ...[]byte) sdk.Msg {
	return &initiamove.MsgExecute{Sender: sender, ModuleAddress: m.owner.Short(), ModuleName: "vip_score", FunctionName: fn, Args: args}
}

func (m *moveContract) handle() string   { return m.owner.Short() }
func (*moveContract) addr(u user) string { return movebcs.AccountAddress(u).String() }

func (m *moveContract) update(sender string, stage uint64, pairs []pair) sdk.Msg {
	addrs, scores := make([]movebcs.Address, len(pairs)), make([]uint64, len(pairs))
	for i, p := range pairs {
		addrs[i], scores[i] = movebcs.MustAddress(p.addr), p.score
	}
	return m.exec(sender, "update_score_script", movebcs.ArgU64(stage), movebcs.ArgAddresses(addrs), movebcs.ArgU64s(scores))
}

func (m *moveContract) finalize(sender string, stage uint64) sdk.Msg {
	return m.exec(sender, "finalize_script", movebcs.ArgU64(stage))
}

func (*moveContract) executeAction() string { return "/initia.move.v1.MsgExecute" }

func (*moveContract) executed(res *sdk.TxResponse) []string {
	// Without the bank's 0x1 calls (the fee's payment in Move coins).
	return slices.DeleteFunc(cosmostx.Attr(res, "execute", "module_addr"), func(a string) bool { return a == "0x1" })
}

// events are the key attribute of the tx's "move" events of vip_score's event name.
func (m *moveContract) events(res *sdk.TxResponse, name, key string) []string {
	tag := m.owner.Short() + "::vip_score::" + name
	var out []string
	for _, ev := range res.Events {
		if ev.Type != "move" {
			continue
		}
		var typeTag, value string
		for _, a := range ev.Attributes {
			switch a.Key {
			case "type_tag":
				typeTag = a.Value
			case key:
				value = a.Value
			}
		}
		if typeTag == tag {
			out = append(out, value)
		}
	}
	return out
}

// updated: each UpdateScoreEvent's account, written as addr writes it.
func (m *moveContract) updated(res *sdk.TxResponse) []string {
	out := m.events(res, "UpdateScoreEvent", "account")
	for i, a := range out {
		if p, err := movebcs.ParseAddress(a); err == nil {
			out[i] = p.String()
		}
	}
	return out
}

func (m *moveContract) finalized(res *sdk.TxResponse) []string {
	return m.events(res, "FinalizedScoreEvent", "stage")
}

// store is the module's ModuleStore resource: its type and data.
func (m *moveContract) store(t *testing.T, e *env) (string, json.RawMessage) {
	t.Helper()
	var r initiamove.QueryResourceResponse
	tag := m.owner.Short() + "::vip_score::ModuleStore"
	if err := e.c.Get(context.Background(), "/initia/move/v1/accounts/"+m.owner.Short()+"/resources/by_struct_tag?struct_tag="+tag, &r); err != nil {
		t.Fatal(err)
	}
	var store struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.Resource.MoveResource), &store); err != nil || store.Type != tag {
		t.Fatalf("resource %q (%v)", r.Resource.MoveResource, err)
	}
	return store.Type, store.Data
}

// stageEntry reads the stage's row of the module's stages table through its handle.
func (m *moveContract) stageEntry(t *testing.T, e *env, stage uint64) (initiamove.QueryTableEntryResponse, error) {
	t.Helper()
	_, data := m.store(t, e)
	var ms struct {
		Stages struct {
			Handle string `json:"handle"`
		} `json:"stages"`
	}
	if err := json.Unmarshal(data, &ms); err != nil || ms.Stages.Handle == "" {
		t.Fatalf("ModuleStore data %s (%v)", data, err)
	}
	var entry initiamove.QueryTableEntryResponse
	err := e.c.Get(context.Background(), "/initia/move/v1/tables/"+ms.Stages.Handle+"/entries/by_key_bytes?key_bytes="+base64.StdEncoding.EncodeToString(movebcs.ArgU64(stage)), &entry)
	return entry, err
}

// stage reads the stage's table row and checks get_total_score's view of it.
func (m *moveContract) stage(t *testing.T, e *env, stage uint64) stageInfo {
	t.Helper()
	entry, err := m.stageEntry(t, e, stage)
	if err != nil {
		t.Fatalf("stage %d: %v", stage, err)
	}
	var row struct {
		TotalScore  string `json:"total_score"`
		IsFinalized bool   `json:"is_finalized"`
	}
	if err := json.Unmarshal([]byte(entry.TableEntry.Value), &row); err != nil || entry.TableEntry.Key != strconv.Quote(strconv.FormatUint(stage, 10)) {
		t.Fatalf("stage %d entry %+v (%v)", stage, entry.TableEntry, err)
	}
	total, err := strconv.ParseUint(row.TotalScore, 10, 64)
	if err != nil {
		t.Fatalf("stage %d total %q", stage, row.TotalScore)
	}
	if got := m.viewJSON(t, e, "get_total_score", strconv.Quote(strconv.FormatUint(stage, 10))); got != strconv.Quote(row.TotalScore) {
		t.Fatalf("get_total_score %d: %s, the stage's row says %s", stage, got, row.TotalScore)
	}
	return stageInfo{Stage: stage, TotalScore: total, Finalized: row.IsFinalized}
}

func (m *moveContract) viewJSON(t *testing.T, e *env, fn string, args ...string) string {
	t.Helper()
	var out initiamove.QueryViewJSONResponse
	if err := e.c.Post(context.Background(), "/initia/move/v1/view/json", &initiamove.QueryViewJSONRequest{Address: m.owner.Short(), ModuleName: "vip_score", FunctionName: fn, Args: args}, &out); err != nil {
		t.Fatalf("view %s: %v", fn, err)
	}
	return out.Data
}

// scores pages through the get_scores view (BCS arguments) 30 at a time by start_after.
func (m *moveContract) scores(t *testing.T, e *env, stage uint64) map[string]uint64 {
	t.Helper()
	got := map[string]uint64{}
	var after *movebcs.Address
	for {
		var res initiamove.QueryViewResponse
		req := &initiamove.QueryViewRequest{Address: m.owner.Short(), ModuleName: "vip_score", FunctionName: "get_scores",
			Args: [][]byte{movebcs.ArgU64(stage), movebcs.ArgU16(30), movebcs.ArgOptionAddress(after)}}
		if err := e.c.Post(context.Background(), "/initia/move/v1/view", req, &res); err != nil {
			t.Fatalf("view get_scores: %v", err)
		}
		var page struct {
			Scores []struct{ Addr, Score string } `json:"scores"`
		}
		mustJSON(t, []byte(res.Data), &page)
		for _, s := range page.Scores {
			a, err := movebcs.ParseAddress(s.Addr)
			n, err2 := strconv.ParseUint(s.Score, 10, 64)
			if err != nil || err2 != nil {
				t.Fatalf("get_scores row %+v", s)
			}
			got[a.String()] = n
			after = &a
		}
		if len(page.Scores) < 30 {
			return got
		}
	}
}

// score reads get_score through the JSON view; the view answers 0 for an address without a
// score, so whether it has one is whether get_scores lists it.
func (m *moveContract) score(t *testing.T, e *env, addr string, stage uint64) (uint64, bool) {
	t.Helper()
	a := movebcs.MustAddress(addr)
	got := m.viewJSON(t, e, "get_score", strconv.Quote(a.Short()), strconv.Quote(strconv.FormatUint(stage, 10)))
	v, err := strconv.Unquote(got)
	if err != nil {
		t.Fatalf("get_score reply %s", got)
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("get_score reply %s", got)
	}
	listed, ok := m.scores(t, e, stage)[a.String()]
	if listed != n {
		t.Fatalf("get_score of %s: %d, get_scores lists %d", addr, n, listed)
	}
	return n, ok
}

// wantNotAllowed: the module's EUNAUTHORIZED abort in the raw log. x/move returns the VM's
// failure unwrapped, which the SDK reports as codespace "undefined", code 1.
func (m *moveContract) wantNotAllowed(t *testing.T, res *sdk.TxResponse) {
	t.Helper()
	a, ok := movebcs.ParseAbort(res.RawLog)
	at, name, _ := strings.Cut(a.Module, "::")
	if where, err := movebcs.ParseAddress(at); !ok || a.Reason() != moveEUnauthorized || err != nil || where != m.owner || name != "vip_score" ||
		res.Codespace != "undefined" || res.Code != 1 {
		t.Fatalf("unauthorized: codespace %q code %d log %q", res.Codespace, res.Code, res.RawLog)
	}
}

// failingUpdate: the second pair's score overflows the stage's u64 total after the first was
// written, a Move arithmetic error.
func (m *moveContract) failingUpdate(sender string, stage uint64, first pair) sdk.Msg {
	big := movebcs.AccountAddress(bytes.Repeat([]byte{0x77}, 20)).String()
	return m.update(sender, stage, []pair{first, {big, math.MaxUint64}})
}

func (*moveContract) wantFailedUpdate(t *testing.T, res *sdk.TxResponse) {
	t.Helper()
	if res.Codespace != "undefined" || res.Code != 1 || !strings.Contains(res.RawLog, "ARITHMETIC_ERROR") {
		t.Fatalf("failed execute: codespace %s code %d log %s", res.Codespace, res.Code, res.RawLog)
	}
}

// outOfGas: the MoveVM runs under what the tx has left of its gas and charges the SDK's
// meter what it used, which then runs out.
func (*moveContract) outOfGas() (uint64, string) { return 85_000, "move runtime" }

// restShapes: the ModuleStore resource by struct tag, its stages table by key bytes, and a
// missing table key and resource answering not found.
func (m *moveContract) restShapes(t *testing.T, e *env, stage uint64) {
	t.Helper()
	typ, data := m.store(t, e)
	if !strings.Contains(string(data), `"init_stage":"`+strconv.FormatUint(stage, 10)+`"`) {
		t.Fatalf("resource %s data %s", typ, data)
	}
	entry, err := m.stageEntry(t, e, stage)
	if err != nil || !strings.Contains(entry.TableEntry.Value, `"total_score":"0"`) || !strings.Contains(entry.TableEntry.Value, `"is_finalized":false`) {
		t.Fatalf("stage entry %+v (%v)", entry.TableEntry, err)
	}
	if _, err := m.stageEntry(t, e, stage+1); !cosmostx.NotFound(err) {
		t.Fatalf("missing stage: %v", err)
	}
	var r initiamove.QueryResourceResponse
	err = e.c.Get(context.Background(), "/initia/move/v1/accounts/"+m.owner.Short()+"/resources/by_struct_tag?struct_tag=0x1::code::Nope", &r)
	if !cosmostx.NotFound(err) {
		t.Fatalf("missing resource: %v", err)
	}
}
