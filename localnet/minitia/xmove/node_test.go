package xmove_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/movevm"
)

const (
	mnemonicA = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
	mnemonicB = "legal winner thank year wave sausage worth useful legal winner thank yellow"
)

type testNode struct {
	node *minitia.Node
	c    *cosmostx.Client
	keys []*cosmostx.Signer
}

func requireLibs(t testing.TB) {
	t.Helper()
	if _, err := movevm.OpenVM(movevm.Dir()); err != nil {
		if strings.Contains(err.Error(), "make setup") && !requireNodes() {
			t.Skipf("%v (set REQUIRE_NODES=1 to fail instead)", err)
		}
		t.Fatal(err)
	}
}

func start(t testing.TB) *testNode {
	t.Helper()
	requireLibs(t)
	n, err := minitia.Start(context.Background(), minitia.Config{VM: deployer.Move, KeyType: keys.Secp256k1,
		Mnemonics: []string{mnemonicA, mnemonicB}, GeneratedAccounts: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	enc, err := cosmostx.NewEncoding(n.Config().Bech32Prefix, initiamove.RegisterInterfaces)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cosmostx.New(n.RPCURL(), n.RESTURL(), n.ChainID(), enc, n.Config().MinGasPrices()[0])
	if err != nil {
		t.Fatal(err)
	}
	tn := &testNode{node: n, c: c}
	for _, a := range n.Funded() {
		s, err := c.Signer(context.Background(), a.Key)
		if err != nil {
			t.Fatal(err)
		}
		tn.keys = append(tn.keys, s)
	}
	return tn
}

func vmAddr(s *cosmostx.Signer) movebcs.Address {
	return movebcs.AccountAddress(s.Key.PubKey().Address())
}

// publish compiles vip_score for the signer's address and publishes it.
func (tn *testNode) publish(t *testing.T, s *cosmostx.Signer) {
	t.Helper()
	comp, err := movevm.OpenCompiler(movevm.Dir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := movecontract.Compile(context.Background(), comp, vmAddr(s))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tn.c.Exec(context.Background(), s, &initiamove.MsgPublish{Sender: s.Address, CodeBytes: [][]byte{b.VipScore}, UpgradePolicy: initiamove.COMPATIBLE})
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	if got := cosmostx.Attr(res, "move", "type_tag"); len(got) != 1 || got[0] != "0x1::code::ModulePublishedEvent" {
		t.Fatalf("publish events: %v", got)
	}
}

func (tn *testNode) exec(s *cosmostx.Signer, owner movebcs.Address, fn string, args ...[]byte) (*sdk.TxResponse, error) {
	return tn.c.Exec(context.Background(), s, &initiamove.MsgExecute{Sender: s.Address, ModuleAddress: owner.Short(), ModuleName: "vip_score", FunctionName: fn, Args: args})
}

func (tn *testNode) viewJSON(t *testing.T, owner movebcs.Address, fn string, args ...string) string {
	t.Helper()
	var out initiamove.QueryViewJSONResponse
	if err := tn.c.Post(context.Background(), "/initia/move/v1/view/json", &initiamove.QueryViewJSONRequest{Address: owner.Short(), ModuleName: "vip_score", FunctionName: fn, Args: args}, &out); err != nil {
		t.Fatalf("view %s: %v", fn, err)
	}
	return out.Data
}

// Publish, then the scoring life cycle through signed Cosmos txs and the Move REST faces.
func TestMoveNode(t *testing.T) {
	tn := start(t)
	ctx := context.Background()
	pub, op := tn.keys[0], tn.keys[1]
	tn.publish(t, pub)
	owner := vmAddr(pub)

	var mod initiamove.QueryModuleResponse
	if err := tn.c.Get(ctx, "/initia/move/v1/accounts/"+owner.Short()+"/modules/vip_score", &mod); err != nil {
		t.Fatal(err)
	}
	if mod.Module.UpgradePolicy != initiamove.COMPATIBLE || !strings.Contains(mod.Module.Abi, "update_score_script") {
		t.Fatalf("module: policy %v abi %.80s", mod.Module.UpgradePolicy, mod.Module.Abi)
	}

	// A failing execution: the VM's abort in raw_log, gas charged, nothing written.
	_, err := tn.exec(op, owner, "set_init_stage", movebcs.ArgU64(2))
	te, ok := err.(*cosmostx.TxError)
	if !ok {
		t.Fatalf("want a TxError, got %v", err)
	}
	if a, ok := movebcs.ParseAbort(te.RawLog); !ok || a.Reason() != 1 {
		t.Fatalf("want the EUNAUTHORIZED abort, got %s: %s", te.Phase, te.RawLog)
	}
	// A node runs with debug off: a tx result's log carries no source frame. (The SDK's
	// simulate service answers with the error's frame, on every Cosmos node.)
	if te.Phase != cosmostx.PhaseSimulate && strings.Contains(te.RawLog, ".go:") {
		t.Fatalf("raw_log carries a source path: %s", te.RawLog)
	}

	opAddr := vmAddr(op)
	if _, err := tn.exec(pub, owner, "add_deployer_script", opAddr[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := tn.exec(op, owner, "set_init_stage", movebcs.ArgU64(2)); err != nil {
		t.Fatal(err)
	}
	a, b := movebcs.MustAddress("0xa"), movebcs.MustAddress("0xb")
	addrs := movebcs.ArgAddresses([]movebcs.Address{a, b})
	scores := movebcs.ArgU64s([]uint64{7, 8})
	res, err := tn.exec(op, owner, "update_score_script", movebcs.ArgU64(2), addrs, scores)
	if err != nil {
		t.Fatal(err)
	}
	if got := cosmostx.Attr(res, "move", "type_tag"); len(got) != 2 {
		t.Fatalf("update events: %v", got)
	}
	if got := tn.viewJSON(t, owner, "get_total_score", `"2"`); got != `"15"` {
		t.Fatalf("total %s", got)
	}
	if got := tn.viewJSON(t, owner, "get_score", `"`+b.Short()+`"`, `"2"`); got != `"8"` {
		t.Fatalf("score %s", got)
	}

	var r initiamove.QueryResourceResponse
	tag := owner.Short() + "::vip_score::ModuleStore"
	if err := tn.c.Get(ctx, "/initia/move/v1/accounts/"+owner.Short()+"/resources/by_struct_tag?struct_tag="+tag, &r); err != nil {
		t.Fatal(err)
	}
	var store struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.Resource.MoveResource), &store); err != nil || store.Type != tag || !strings.Contains(string(store.Data), `"init_stage":"2"`) {
		t.Fatalf("resource %q (%v)", r.Resource.MoveResource, err)
	}
	// The stage's row, through the stages table's handle.
	var ms struct {
		Stages struct {
			Handle string `json:"handle"`
		} `json:"stages"`
	}
	if err := json.Unmarshal(store.Data, &ms); err != nil || ms.Stages.Handle == "" {
		t.Fatalf("ModuleStore data %s (%v)", store.Data, err)
	}
	var entry initiamove.QueryTableEntryResponse
	if err := tn.c.Get(ctx, "/initia/move/v1/tables/"+ms.Stages.Handle+"/entries/by_key_bytes?key_bytes="+base64.StdEncoding.EncodeToString(movebcs.ArgU64(2)), &entry); err != nil {
		t.Fatal(err)
	}
	if entry.TableEntry.Key != `"2"` || !strings.Contains(entry.TableEntry.Value, `"total_score":"15"`) || !strings.Contains(entry.TableEntry.Value, `"is_finalized":false`) {
		t.Fatalf("stage entry %+v", entry.TableEntry)
	}
	err = tn.c.Get(ctx, "/initia/move/v1/tables/"+ms.Stages.Handle+"/entries/by_key_bytes?key_bytes="+base64.StdEncoding.EncodeToString(movebcs.ArgU64(3)), &entry)
	if !cosmostx.NotFound(err) {
		t.Fatalf("missing stage: %v", err)
	}
	err = tn.c.Get(ctx, "/initia/move/v1/accounts/"+owner.Short()+"/resources/by_struct_tag?struct_tag=0x1::code::Nope", &r)
	if !cosmostx.NotFound(err) {
		t.Fatalf("missing resource: %v", err)
	}
}
