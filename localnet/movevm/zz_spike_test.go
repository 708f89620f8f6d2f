package movevm_test

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"cosmossdk.io/store/dbadapter"
	dbm "github.com/cosmos/cosmos-db"

	"github.com/vipharness/vipharness/bindings/movebcs"
	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/localnet/movevm"
)

func TestSpikePublishGas(t *testing.T) {
	vm, err := movevm.OpenVM(movevm.RequireLibs(t))
	if err != nil {
		t.Fatal(err)
	}
	module := movecontract.Module()
	for _, fwName := range []string{"ours", "minlib"} {
		for _, asJSON := range []bool{false, true} {
			rt, _ := vm.NewRuntime(movevm.DefaultConfig)
			store := dbadapter.Store{DB: dbm.NewMemDB()}
			env := movevm.Env{ChainID: "x", BlockHeight: 1, BlockTimestamp: 1_700_000_000}
			bundle := movecontract.FrameworkBundle()
			if fwName == "minlib" {
				bundle, _ = movevm.MinitiaStdlib()
			}
			if _, err := rt.Genesis(store, env, bundle, nil); err != nil {
				t.Fatal(err)
			}
			env.SessionID[0] = 9
			f := movevm.Function{Module: movevm.ModuleID{Address: movebcs.MustAddress("0x1"), Name: "code"}, Function: "publish_v2", Args: [][]byte{movebcs.ArgBytesVec([][]byte{module}), {1}}}
			if asJSON {
				codes, _ := json.Marshal([]string{hex.EncodeToString(module)})
				f.Args = [][]byte{codes, []byte("1")}
				f.IsJSON = true
			}
			res, err := rt.Execute(store, env, 10_000_000, []movebcs.Address{movecontract.DevDeployer}, f)
			t.Logf("%s json=%v: gas %d err %v (module %d bytes)", fwName, asJSON, res.GasUsed, err, len(module))
			vs := movevm.ModuleID{Address: movecontract.DevDeployer, Name: "vip_score"}
			env.SessionID[0] = 10
			res, err = rt.Execute(store, env, 10_000_000, []movebcs.Address{movecontract.DevDeployer}, movevm.Function{Module: vs, Function: "add_deployer_script", Args: [][]byte{movecontract.DevDeployer[:]}})
			t.Logf("  add_deployer: %d %v", res.GasUsed, err)
			env.SessionID[0] = 11
			res, err = rt.Execute(store, env, 10_000_000, []movebcs.Address{movecontract.DevDeployer}, movevm.Function{Module: vs, Function: "set_init_stage", Args: [][]byte{movebcs.ArgU64(3)}})
			t.Logf("  set_init_stage: %d %v", res.GasUsed, err)
			env.SessionID[0] = 12
			res, err = rt.Execute(store, env, 10_000_000, []movebcs.Address{movecontract.DevDeployer}, movevm.Function{Module: vs, Function: "update_score_script", Args: [][]byte{movebcs.ArgU64(3), movebcs.ArgAddresses([]movebcs.Address{movecontract.DevDeployer, movebcs.MustAddress("0x99")}), movebcs.ArgU64s([]uint64{10, 32})}})
			t.Logf("  update: %d %v", res.GasUsed, err)
			rt.Close()
		}
	}
}
