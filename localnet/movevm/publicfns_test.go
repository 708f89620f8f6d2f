package movevm_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/vipharness/vipharness/bindings/movebcs"
	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// vip_score's public functions for other modules (update_score, increase_score,
// decrease_score), called from a module of another address with the deployer's signer:
// scores, the stage total, one UpdateScoreEvent per call, and the aborts.
func TestVipScorePublicFunctions(t *testing.T) {
	b := newMoveBuilds(t)
	b.copyDir(filepath.Join("..", "..", "contracts", "move", "vip_score"), "vip_score")
	b.copyDir(filepath.Join("testdata", "caller"), "caller")
	callerAddr := movebcs.MustAddress("0xcafe")
	dep := movecontract.DevDeployer
	code := b.build("caller", "Caller", "caller", map[string]movebcs.Address{"caller": callerAddr, "vip_score": dep})

	c := newGasChain(t, movecontract.Framework(), movecontract.Module(), dep)
	if _, err := c.execAs(callerAddr, movevm.ModuleID{Address: movebcs.MustAddress("0x1"), Name: "code"}, "publish_v2",
		movebcs.ArgBytesVec([][]byte{code}), []byte{1}); err != nil {
		t.Fatalf("publish caller: %v", err)
	}
	caller := movevm.ModuleID{Address: callerAddr, Name: "caller"}
	a, z := movebcs.MustAddress("0xa1"), movebcs.MustAddress("0xb2")
	call := func(fn string, account movebcs.Address, amount uint64) (movevm.Result, error) {
		return c.exec(caller, fn, account[:], movebcs.ArgU64(1), movebcs.ArgU64(amount))
	}
	view := func(fn string, args ...[]byte) string {
		t.Helper()
		v, err := c.rt.View(c.store, c.env, 10_000_000, movevm.Function{Module: c.vs, Function: fn, Args: args})
		if err != nil {
			t.Fatalf("view %s: %v", fn, err)
		}
		var out string
		if err := json.Unmarshal([]byte(v.JSON), &out); err != nil {
			t.Fatalf("view %s: %s: %v", fn, v.JSON, err)
		}
		return out
	}

	type event struct {
		Account    string `json:"account"`
		Stage      string `json:"stage"`
		Score      string `json:"score"`
		TotalScore string `json:"total_score"`
	}
	steps := []struct {
		fn            string
		account       movebcs.Address
		amount        uint64
		score, total  string
		abortCategory uint64 // 0: succeeds
		abortReason   uint64
	}{
		{"update", a, 10, "10", "10", 0, 0},
		{"update", a, 4, "4", "4", 0, 0},
		{"increase", a, 6, "10", "10", 0, 0},
		{"increase", z, 5, "5", "15", 0, 0}, // a new address through increase
		{"decrease", z, 2, "3", "13", 0, 0},
		{"decrease", z, 4, "", "", 1, 2},                           // EINSUFFICIENT_SCORE: 3 < 4
		{"decrease", movebcs.MustAddress("0xc3"), 1, "", "", 1, 2}, // no score at all
		{"update", a, 0, "0", "3", 0, 0},                           // a score of zero stays an entry
	}
	for i, s := range steps {
		res, err := call(s.fn, s.account, s.amount)
		if s.abortCategory != 0 {
			wantAbort(t, err, s.abortCategory, s.abortReason)
			continue
		}
		if err != nil {
			t.Fatalf("step %d %s: %v", i, s.fn, err)
		}
		if len(res.Events) != 1 {
			t.Fatalf("step %d %s: events %+v", i, s.fn, res.Events)
		}
		var ev event
		if err := json.Unmarshal([]byte(res.Events[0].Data), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Account != s.account.Short() || ev.Stage != "1" || ev.Score != s.score || ev.TotalScore != s.total {
			t.Errorf("step %d %s: event %+v, want score %s total %s", i, s.fn, ev, s.score, s.total)
		}
		if got := view("get_score", s.account[:], movebcs.ArgU64(1)); got != s.score {
			t.Errorf("step %d %s: get_score %s, want %s", i, s.fn, got, s.score)
		}
		if got := view("get_total_score", movebcs.ArgU64(1)); got != s.total {
			t.Errorf("step %d %s: get_total_score %s, want %s", i, s.fn, got, s.total)
		}
	}
}
