package l1

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"cosmossdk.io/store/dbadapter"
	storetypes "cosmossdk.io/store/types"
	dbm "github.com/cosmos/cosmos-db"
	"github.com/cosmos/cosmos-sdk/types/bech32"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/deployer/registration/whitelist"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// govChain is the stand-in's vip module on the MoveVM over an in-memory store, with the
// current stage at 7, and x/move's gov execution: a MsgGovExecute runs only with the gov
// module as authority, its function and BCS arguments executed with the sender as signer.
type govChain struct {
	t     *testing.T
	rt    *movevm.Runtime
	store storetypes.KVStore
	env   movevm.Env
	vip   movebcs.Address
}

func newGovChain(t *testing.T) *govChain {
	requireLibs(t)
	vm, err := movevm.OpenVM(movevm.Dir())
	if err != nil {
		t.Fatal(err)
	}
	rt, err := vm.NewRuntime(movevm.DefaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	c := &govChain{t: t, rt: rt, store: dbadapter.Store{DB: dbm.NewMemDB()}, env: movevm.Env{BlockHeight: 1, BlockTimestamp: 1_700_000_000}, vip: movecontract.L1VIPAddress}
	fw := movecontract.Framework()
	var bundle [][]byte
	for _, n := range movecontract.FrameworkNames(fw) {
		bundle = append(bundle, fw[n])
	}
	if _, err := rt.Genesis(c.store, c.env, bundle, nil); err != nil {
		t.Fatal(err)
	}
	zero := movebcs.Address{}
	c.exec(c.vip, movebcs.MustAddress("0x1"), "code", "publish_v2", movebcs.ArgBytesVec([][]byte{movecontract.L1VIP()}), []byte{1})
	c.exec(c.vip, c.vip, "vip", "initialize", movebcs.ArgU64(7), movebcs.ArgU64(1_700_000_000), movebcs.ArgU64(1209600), zero[:])
	return c
}

func (c *govChain) run(sender, module movebcs.Address, name, fn string, args ...[]byte) error {
	c.env.SessionID[0]++
	_, err := c.rt.Execute(c.store, c.env, 10_000_000, []movebcs.Address{sender}, movevm.Function{Module: movevm.ModuleID{Address: module, Name: name}, Function: fn, Args: args})
	return err
}

func (c *govChain) exec(sender, module movebcs.Address, name, fn string, args ...[]byte) {
	c.t.Helper()
	if err := c.run(sender, module, name, fn, args...); err != nil {
		c.t.Fatalf("%s::%s: %v", name, fn, err)
	}
}

// govExecute is x/move's GovExecute: the authority must be the gov module; the sender signs.
func (c *govChain) govExecute(m *initiamove.MsgGovExecute) error {
	if m.Authority != whitelist.GovAuthority() {
		return errors.New("invalid authority")
	}
	_, sender, err := bech32.DecodeAndConvert(m.Sender)
	if err != nil {
		return err
	}
	module, err := movebcs.ParseAddress(m.ModuleAddress)
	if err != nil {
		return err
	}
	if len(m.TypeArgs) != 0 {
		return errors.New("register takes no type arguments")
	}
	return c.run(movebcs.AccountAddress(sender), module, m.ModuleName, m.FunctionName, m.Args...)
}

type bridgeInfo struct {
	BridgeID      string `json:"bridge_id"`
	InitStage     string `json:"init_stage"`
	BridgeAddr    string `json:"bridge_addr"`
	OperatorAddr  string `json:"operator_addr"`
	ScoreContract string `json:"vip_l2_score_contract"`
	MaxRate       string `json:"operator_commission_max_rate"`
	MaxChangeRate string `json:"operator_commission_max_change_rate"`
	Rate          string `json:"operator_commission_rate"`
	VMType        string `json:"vm_type"`
}

func (c *govChain) bridge(id uint64) (bridgeInfo, error) {
	v, err := c.rt.View(c.store, c.env, 10_000_000, movevm.Function{Module: movevm.ModuleID{Address: c.vip, Name: "vip"}, Function: "get_bridge_info", Args: [][]byte{movebcs.ArgU64(id)}})
	if err != nil {
		return bridgeInfo{}, err
	}
	var b bridgeInfo
	if err := json.Unmarshal([]byte(v.JSON), &b); err != nil {
		return bridgeInfo{}, err
	}
	return b, nil
}

func request(vm vip.VM, contract string) whitelist.Request {
	return whitelist.Request{
		Network: "testnet", Name: "Example", ChainID: "example-1", VM: vm,
		Operator:      "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7",
		BridgeID:      29,
		BridgeAddress: "0x6a0d84bd2d2f8b2e6ffef1f2b6c1f1c4c3b8d1a0e3b4b7c9d2f3e4a5b6c7d8e9",
		ScoreContract: contract,
		MaxRate:       "0.2", MaxChangeRate: "0.01", Rate: "0.05",
		VIPAddress: movecontract.L1VIPAddress.String(),
	}
}

// The proposal's MsgGovExecute, run as the gov module runs it, registers exactly what the
// user asked for on the stand-in's register (the real signature): the arguments are proven
// by the VM decoding them, not by reading them back from our own encoder.
func TestWhitelistProposalRegistersOnTheVIPModule(t *testing.T) {
	c := newGovChain(t)
	checked, err := request(vip.EVM, "0x5FbDB2315678afecb367f032d93F642f64180aa3").Check()
	if err != nil {
		t.Fatal(err)
	}
	msg := checked.MsgGovExecute()
	if err := c.govExecute(msg); err != nil {
		t.Fatal(err)
	}
	got, err := c.bridge(29)
	if err != nil {
		t.Fatal(err)
	}
	want := bridgeInfo{
		BridgeID: "29", InitStage: "8",
		BridgeAddr:    "0x6a0d84bd2d2f8b2e6ffef1f2b6c1f1c4c3b8d1a0e3b4b7c9d2f3e4a5b6c7d8e9",
		OperatorAddr:  "0x102030405060708090a0b0c0d0e0f1011121314",
		ScoreContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
		MaxRate:       "0.2", MaxChangeRate: "0.01", Rate: "0.05", VMType: "2",
	}
	if got != want {
		t.Fatalf("registered\n%+v\nwant\n%+v", got, want)
	}

	// The same proposal again: the bridge is already registered (unavailable, 2).
	wantAbort(t, c.govExecute(msg), 0xd, 2)

	// Another bridge, signed by 0x1 (the chain), Move VM, every rate at the bounds.
	r := request(vip.Move, "0xcafe")
	r.BridgeID, r.Sender, r.MaxRate, r.MaxChangeRate, r.Rate = 30, "0x1", "1", "0", "1"
	checked, err = r.Check()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.govExecute(checked.MsgGovExecute()); err != nil {
		t.Fatal(err)
	}
	if got, err := c.bridge(30); err != nil || got.MaxRate != "1" || got.MaxChangeRate != "0" || got.Rate != "1" || got.VMType != "0" || got.ScoreContract != "0xcafe" {
		t.Fatalf("%+v %v", got, err)
	}
}

// The module refuses what Check refuses, so a proposal that slipped past the tool would fail
// on chain the same way: a signer that is not the chain, a rate above its max, above 1.
func TestRegisterRefusesWhatCheckRefuses(t *testing.T) {
	c := newGovChain(t)
	checked, err := request(vip.Wasm, "init15zs69gay5kn2029f4246etdw47ctrv4nkj6mddachxath09ah6lstd0jep").Check()
	if err != nil {
		t.Fatal(err)
	}
	m := checked.MsgGovExecute()
	if err := c.govExecute(&initiamove.MsgGovExecute{Authority: m.Sender, Sender: m.Sender, ModuleAddress: m.ModuleAddress, ModuleName: "vip", FunctionName: "register", Args: m.Args}); err == nil {
		t.Fatal("a MsgGovExecute whose authority is not the gov module ran")
	}
	forged := *m
	forged.Sender, _ = bech32.ConvertAndEncode("init", []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	wantAbort(t, c.govExecute(&forged), 0x5, 1) // permission_denied(EUNAUTHORIZED)

	rate := func(s string) []byte {
		r, err := whitelist.ParseRate(s)
		if err != nil {
			t.Fatal(err)
		}
		return r.BCS()
	}
	aboveMax := *m
	aboveMax.Args = append([][]byte(nil), m.Args...)
	aboveMax.Args[6] = rate("0.5") // rate 0.5 > max rate 0.2
	wantAbort(t, c.govExecute(&aboveMax), 0x1, 4)

	aboveOne := *m
	aboveOne.Args = append([][]byte(nil), m.Args...)
	aboveOne.Args[4] = []byte{9, 0, 0, 0, 0, 0, 0, 0, 0, 1} // max rate 2^64 x 10^-18 > 1
	wantAbort(t, c.govExecute(&aboveOne), 0x1, 6)

	badVM := *m
	badVM.Args = append([][]byte(nil), m.Args...)
	badVM.Args[7] = movebcs.ArgU64(3)
	wantAbort(t, c.govExecute(&badVM), 0xd, 26)

	if _, err := c.bridge(29); err == nil || !strings.Contains(err.Error(), "VM aborted") {
		t.Fatalf("a refused registration left a bridge: %v", err)
	}
}

func wantAbort(t *testing.T, err error, category, reason uint64) {
	t.Helper()
	var ee *movevm.ExecError
	if !errors.As(err, &ee) {
		t.Fatalf("want a Move abort (%d, %d), got %v", category, reason, err)
	}
	a, ok := ee.Abort()
	if !ok || a.Category() != category || a.Reason() != reason {
		t.Fatalf("want abort category %d reason %d, got %q", category, reason, ee.Message)
	}
}
