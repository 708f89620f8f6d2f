package movevm_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"cosmossdk.io/store/dbadapter"
	storetypes "cosmossdk.io/store/types"
	dbm "github.com/cosmos/cosmos-db"

	"github.com/vipharness/vipharness/bindings/movebcs"
	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// chain is a VM over an in-memory store with our framework at genesis and vip_score
// published by the development deployer.
type chain struct {
	t     *testing.T
	rt    *movevm.Runtime
	store storetypes.KVStore
	env   movevm.Env
	vs    movevm.ModuleID
}

func newChain(t *testing.T) *chain {
	rt, store, env := genesisVM(t, movecontract.Framework())
	c := &chain{t: t, rt: rt, store: store, env: env, vs: movevm.ModuleID{Address: movecontract.DevDeployer, Name: "vip_score"}}
	res, err := c.exec(movecontract.DevDeployer, movevm.ModuleID{Address: movebcs.MustAddress("0x1"), Name: "code"}, "publish_v2",
		movebcs.ArgBytesVec([][]byte{movecontract.Module()}), []byte{1})
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	if len(res.Events) != 1 || res.Events[0].TypeTag != "0x1::code::ModulePublishedEvent" {
		t.Fatalf("publish events %+v", res.Events)
	}
	return c
}

// genesisVM opens the MoveVM and runs genesis with framework (the 0x1 modules) on a fresh
// in-memory store, closing the runtime when tb ends.
func genesisVM(tb testing.TB, framework map[string][]byte) (*movevm.Runtime, storetypes.KVStore, movevm.Env) {
	tb.Helper()
	vm, err := movevm.OpenVM(movevm.RequireLibs(tb))
	if err != nil {
		tb.Fatal(err)
	}
	rt, err := vm.NewRuntime(movevm.DefaultConfig)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(rt.Close)
	store := dbadapter.Store{DB: dbm.NewMemDB()}
	env := movevm.Env{BlockHeight: 1, BlockTimestamp: 1_700_000_000}
	var bundle [][]byte
	for _, n := range movecontract.FrameworkNames(framework) {
		bundle = append(bundle, framework[n])
	}
	if _, err := rt.Genesis(store, env, bundle, nil); err != nil {
		tb.Fatal(err)
	}
	return rt, store, env
}

func (c *chain) exec(sender movebcs.Address, m movevm.ModuleID, fn string, args ...[]byte) (movevm.Result, error) {
	c.env.SessionID[0]++ // each execution its own session, as on a chain
	return c.rt.Execute(c.store, c.env, 10_000_000, []movebcs.Address{sender}, movevm.Function{Module: m, Function: fn, Args: args})
}

func (c *chain) view(fn string, out any, args ...[]byte) {
	c.t.Helper()
	v, err := c.rt.View(c.store, c.env, 10_000_000, movevm.Function{Module: c.vs, Function: fn, Args: args})
	if err != nil {
		c.t.Fatalf("view %s: %v", fn, err)
	}
	if err := json.Unmarshal([]byte(v.JSON), out); err != nil {
		c.t.Fatalf("view %s: %q: %v", fn, v.JSON, err)
	}
}

// storeSize counts the keys, to show a failed execution wrote nothing.
func (c *chain) storeSize() int {
	it := c.store.Iterator(nil, nil)
	defer it.Close()
	n := 0
	for ; it.Valid(); it.Next() {
		n++
	}
	return n
}

func wantAbort(t testing.TB, err error, category, reason uint64) {
	t.Helper()
	var ee *movevm.ExecError
	if !errors.As(err, &ee) {
		t.Fatalf("want a Move abort (%d, %d), got %v", category, reason, err)
	}
	a, ok := ee.Abort()
	if !ok || a.Category() != category || a.Reason() != reason {
		t.Fatalf("want abort category %d reason %d, got %q", category, reason, ee.Message)
	}
	if ee.GasUsed == 0 {
		t.Fatalf("a failed execution reports no gas used")
	}
}

// The whole scoring life cycle on the real MoveVM: deployer, initial stage, scores, views,
// finalize, and aborts that leave the store untouched.
func TestVipScoreOnTheMoveVM(t *testing.T) {
	c := newChain(t)
	dep := movecontract.DevDeployer
	op := movebcs.MustAddress("0xabc")
	a, b := movebcs.MustAddress("0xa1"), movebcs.MustAddress("0xb2")

	before := c.storeSize()
	_, err := c.exec(op, c.vs, "set_init_stage", movebcs.ArgU64(3))
	wantAbort(t, err, 1, 1) // invalid_argument(EUNAUTHORIZED): op is no deployer yet
	if got := c.storeSize(); got != before {
		t.Fatalf("a failed execution changed the store: %d keys, was %d", got, before)
	}

	if _, err := c.exec(dep, c.vs, "add_deployer_script", op[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := c.exec(op, c.vs, "set_init_stage", movebcs.ArgU64(3)); err != nil {
		t.Fatal(err)
	}
	_, err = c.exec(op, c.vs, "set_init_stage", movebcs.ArgU64(4))
	wantAbort(t, err, 8, 10) // already_exists(EALREADY_SET)
	_, err = c.exec(op, c.vs, "update_score_script", movebcs.ArgU64(3), movebcs.ArgAddresses([]movebcs.Address{a, b}), movebcs.ArgU64s([]uint64{10}))
	wantAbort(t, err, 1, 6) // ENOT_MATCH_LENGTH
	_, err = c.exec(op, c.vs, "update_score_script", movebcs.ArgU64(4), movebcs.ArgAddresses([]movebcs.Address{a}), movebcs.ArgU64s([]uint64{1}))
	wantAbort(t, err, 1, 3) // EINVALID_STAGE

	res, err := c.exec(op, c.vs, "update_score_script", movebcs.ArgU64(3), movebcs.ArgAddresses([]movebcs.Address{a, b}), movebcs.ArgU64s([]uint64{10, 20}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 2 || res.GasUsed == 0 {
		t.Fatalf("update: %+v", res)
	}

	var score, total string
	c.view("get_score", &score, a[:], movebcs.ArgU64(3))
	c.view("get_total_score", &total, movebcs.ArgU64(3))
	if score != "10" || total != "30" {
		t.Fatalf("score %s total %s, want 10 and 30", score, total)
	}
	var page struct {
		Stage  string `json:"stage"`
		Scores []struct {
			Addr  string `json:"addr"`
			Score string `json:"score"`
		} `json:"scores"`
	}
	c.view("get_scores", &page, movebcs.ArgU64(3), []byte{10, 0}, []byte{0})
	if page.Stage != "3" || len(page.Scores) != 2 {
		t.Fatalf("get_scores: %+v", page)
	}

	if _, err := c.exec(op, c.vs, "finalize_script", movebcs.ArgU64(3)); err != nil {
		t.Fatal(err)
	}
	_, err = c.exec(op, c.vs, "update_score_script", movebcs.ArgU64(3), movebcs.ArgAddresses([]movebcs.Address{a}), movebcs.ArgU64s([]uint64{1}))
	wantAbort(t, err, 1, 8) // EFINALIZED_STAGE
	_, err = c.exec(op, c.vs, "finalize_script", movebcs.ArgU64(3))
	wantAbort(t, err, 1, 8)
	if _, err := c.exec(op, c.vs, "update_score_script", movebcs.ArgU64(4), movebcs.ArgAddresses([]movebcs.Address{a}), movebcs.ArgU64s([]uint64{5})); err != nil {
		t.Fatalf("the next stage is open after finalize: %v", err)
	}
}

// Names the library could not decode are refused before the call.
func TestExecRefusesBadNames(t *testing.T) {
	c := newChain(t)
	for _, fn := range []movevm.Function{
		{Module: movevm.ModuleID{Address: c.vs.Address, Name: "vip-score"}, Function: "get_score"},
		{Module: c.vs, Function: ""},
		{Module: c.vs, Function: "9lives"},
	} {
		if _, err := c.rt.Execute(c.store, c.env, 1_000_000, nil, fn); err == nil {
			t.Errorf("%+v: no error", fn)
		}
	}
}

// update_score_script checks the sender before the argument lengths, as the official module
// does: a stranger sending mismatched lengths gets EUNAUTHORIZED (65537), never
// ENOT_MATCH_LENGTH (65542); a deployer sending the same gets ENOT_MATCH_LENGTH.
func TestUpdateScoreChecksTheDeployerBeforeTheLengths(t *testing.T) {
	c := newChain(t)
	dep := movecontract.DevDeployer
	op, stranger := movebcs.MustAddress("0xabc"), movebcs.MustAddress("0xdef")
	if _, err := c.exec(dep, c.vs, "add_deployer_script", op[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := c.exec(op, c.vs, "set_init_stage", movebcs.ArgU64(1)); err != nil {
		t.Fatal(err)
	}
	mismatched := [][]byte{movebcs.ArgU64(1),
		movebcs.ArgAddresses([]movebcs.Address{movebcs.MustAddress("0xa1"), movebcs.MustAddress("0xb2")}),
		movebcs.ArgU64s([]uint64{10})}

	for _, tc := range []struct {
		name     string
		sender   movebcs.Address
		wantCode uint64
	}{
		{"stranger", stranger, 65537}, // invalid_argument(EUNAUTHORIZED)
		{"deployer", op, 65542},       // invalid_argument(ENOT_MATCH_LENGTH)
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.exec(tc.sender, c.vs, "update_score_script", mismatched...)
			var ee *movevm.ExecError
			if !errors.As(err, &ee) {
				t.Fatalf("want a Move abort %d, got %v", tc.wantCode, err)
			}
			a, ok := ee.Abort()
			if !ok || a.Code != tc.wantCode {
				t.Fatalf("want abort code %d, got %q", tc.wantCode, ee.Message)
			}
		})
	}
}

// The VM refuses bytecode that compiler 2.1 marked unstable, as a real minimove does, and
// takes the committed module (compiler 2.0) built from the same source.
func TestUnstableBytecodeRefused(t *testing.T) {
	unstable, err := os.ReadFile("../../deployer/vm/move/testdata/vip_score_compiler_2.1.mv")
	if err != nil {
		t.Fatal(err)
	}
	rt, store, env := genesisVM(t, movecontract.Framework())
	code := movevm.ModuleID{Address: movebcs.MustAddress("0x1"), Name: "code"}
	publish := func(module []byte) error {
		env.SessionID[0]++
		_, err := rt.Execute(store, env, 10_000_000, []movebcs.Address{movecontract.DevDeployer},
			movevm.Function{Module: code, Function: "publish_v2", Args: [][]byte{movebcs.ArgBytesVec([][]byte{module}), {1}}})
		return err
	}
	if err := publish(unstable); err == nil || !strings.Contains(err.Error(), "UNSTABLE_BYTECODE_REJECTED") {
		t.Fatalf("unstable bytecode: %v, want UNSTABLE_BYTECODE_REJECTED", err)
	}
	if err := publish(movecontract.Module()); err != nil {
		t.Fatalf("stable bytecode: %v", err)
	}
}
