package evm

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/bindings/vipscore"
)

func TestConstructorOpensTheInitialStage(t *testing.T) {
	c := newChain(t, Bin(), 3)
	init, err := c.b.UnpackInitStage(c.call(c.b.PackInitStage()))
	if err != nil || init != 3 {
		t.Fatalf("initStage = %d, %v", init, err)
	}
	if got := c.stage(3); got != (vipscore.StagesOutput{Stage: 3}) {
		t.Fatalf("stages(3) = %+v", got)
	}
	allowed, _ := c.b.UnpackAllowList(c.call(c.b.PackAllowList(crypto.PubkeyToAddress(c.owner.PublicKey))))
	stranger, _ := c.b.UnpackAllowList(c.call(c.b.PackAllowList(crypto.PubkeyToAddress(c.stranger.PublicKey))))
	if !allowed || stranger {
		t.Fatalf("allowList: deployer %v, stranger %v", allowed, stranger)
	}
	// Stage zero cannot be the initial stage.
	_, err = c.send(c.owner, nil, append(Bin(), c.b.PackConstructor(0)...))
	if errName(err) != "ZeroStage" {
		t.Fatalf("deploy at stage 0: %v, want ZeroStage", err)
	}
}

func TestUpdateScoresAcrossSegmentsAndPaging(t *testing.T) {
	c := newChain(t, Bin(), 5)
	var all []common.Address
	want := map[common.Address]uint64{}
	var total uint64
	for i, n := range []int{150, 250, 1} {
		addrs, amounts := addresses(n, i)
		rc, err := c.update(c.owner, 5, addrs, amounts)
		if err != nil {
			t.Fatal(err)
		}
		for k, a := range addrs {
			all = append(all, a)
			want[a] = amounts[k]
			total += amounts[k]
		}
		// One UpdateScore per address, carrying the running total.
		if got := countEvents(t, c, rc, "UpdateScore"); got != n {
			t.Fatalf("call %d: %d UpdateScore events, want %d", i, got, n)
		}
	}
	// Overwrite some, repeat one within a call, and skip the zero address.
	over := []common.Address{all[0], all[200], all[400], all[0], {}}
	amts := []uint64{7, 8, 9, 11, 99}
	rc, err := c.update(c.owner, 5, over, amts)
	if err != nil {
		t.Fatal(err)
	}
	if got := countEvents(t, c, rc, "UpdateScore"); got != 4 {
		t.Fatalf("overwrite: %d events, want 4 (zero address skipped)", got)
	}
	for k, a := range over[:4] {
		total = total - want[a] + amts[k]
		want[a] = amts[k]
	}
	if got := c.stage(5); got.TotalScore != total || got.IsFinalized {
		t.Fatalf("stages(5) = %+v, want total %d", got, total)
	}
	// Every window of the list, across segment boundaries, in list order, 1-based index.
	tests := []struct{ offset, limit uint64 }{
		{0, 1000}, {0, 1}, {149, 2}, {149, 300}, {399, 5}, {400, 1}, {10, 391}, {401, 5}, {5000, 3}, {0, 0},
	}
	for _, tt := range tests {
		rows := c.getScores(5, tt.offset, tt.limit)
		if uint64(len(rows)) != tt.limit {
			t.Fatalf("getScores(%d,%d): %d rows, want the official padded length %d", tt.offset, tt.limit, len(rows), tt.limit)
		}
		for k, r := range rows {
			pos := tt.offset + uint64(k)
			if pos >= uint64(len(all)) {
				if r != (vipscore.VipScoreScoreResponse{}) {
					t.Fatalf("getScores(%d,%d)[%d] past the end = %+v, want a zero row", tt.offset, tt.limit, k, r)
				}
				continue
			}
			if r.Addr != all[pos] || r.Amount != want[all[pos]] || r.Index != pos+1 {
				t.Fatalf("getScores(%d,%d)[%d] = %+v, want %s %d index %d", tt.offset, tt.limit, k, r, all[pos].Hex(), want[all[pos]], pos+1)
			}
		}
	}
	sc, err := c.b.UnpackScores(c.call(c.b.PackScores(5, all[200])))
	if err != nil || !sc.IsIndexed || sc.Amount != 8 {
		t.Fatalf("scores(5, all[200]) = %+v, %v", sc, err)
	}
	sc, _ = c.b.UnpackScores(c.call(c.b.PackScores(5, common.HexToAddress("0x1234"))))
	if sc.IsIndexed || sc.Amount != 0 {
		t.Fatalf("scores of an unknown address = %+v", sc)
	}
}

func TestSingleAddressWrites(t *testing.T) {
	c := newChain(t, Bin(), 2)
	a, b := common.HexToAddress("0xaaaa"), common.HexToAddress("0xbbbb")
	steps := []struct {
		data    []byte
		problem string
	}{
		{c.b.PackUpdateScore(2, a, 10), ""},
		{c.b.PackIncreaseScore(2, a, 5), ""},
		{c.b.PackIncreaseScore(2, b, 3), ""},
		{c.b.PackDecreaseScore(2, b, 1), ""},
		{c.b.PackDecreaseScore(2, b, 100), "other"}, // underflow panics, as in the official contract
		{c.b.PackUpdateScore(2, common.Address{}, 10), ""},
	}
	for i, s := range steps {
		_, err := c.send(c.owner, &c.contract, s.data)
		if s.problem == "" && err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if s.problem != "" && !strings.HasPrefix(errName(err), s.problem) {
			t.Fatalf("step %d: %v, want a failure", i, err)
		}
	}
	rows := c.getScores(2, 0, 3)
	if rows[0].Addr != a || rows[0].Amount != 15 || rows[1].Addr != b || rows[1].Amount != 2 || rows[2].Addr != (common.Address{}) {
		t.Fatalf("getScores = %+v", rows)
	}
	if got := c.stage(2).TotalScore; got != 17 {
		t.Fatalf("total %d, want 17", got)
	}
}

func TestRulesAndErrors(t *testing.T) {
	c := newChain(t, Bin(), 4)
	stranger := crypto.PubkeyToAddress(c.stranger.PublicKey)
	addrs, amounts := addresses(3, 9)
	if _, err := c.update(c.owner, 4, addrs, amounts); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		key  bool // stranger signs
		data []byte
		want string
	}{
		{"stranger updates", true, c.b.PackUpdateScores(4, addrs, amounts), "PermissionDenied"},
		{"stranger finalizes", true, c.b.PackFinalizeStage(4), "PermissionDenied"},
		{"stranger allows itself", true, c.b.PackAddAllowList(stranger), "PermissionDenied"},
		{"missing stage", false, c.b.PackUpdateScores(9, addrs, amounts), "StageNotFound"},
		{"finalize missing stage", false, c.b.PackFinalizeStage(9), "StageNotFound"},
		{"update stage zero", false, c.b.PackUpdateScore(0, addrs[0], 1), "StageNotFound"},
		{"finalize stage zero", false, c.b.PackFinalizeStage(0), "StageNotFound"},
		{"length mismatch", false, c.b.PackUpdateScores(4, addrs, amounts[:2]), "AddrsAndAmountsLengthMistmatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := c.owner
			if tt.key {
				key = c.stranger
			}
			_, err := c.send(key, &c.contract, tt.data)
			if errName(err) != tt.want {
				t.Fatalf("got %v, want %s", err, tt.want)
			}
		})
	}
	var pd *contractError
	_, err := c.send(c.stranger, &c.contract, c.b.PackFinalizeStage(4))
	if !asContractError(err, &pd) || pd.args[0].(common.Address) != stranger {
		t.Fatalf("PermissionDenied must name the sender: %v", err)
	}

	before := c.getScores(4, 0, 10)
	rc, err := c.send(c.owner, &c.contract, c.b.PackFinalizeStage(4))
	if err != nil {
		t.Fatal(err)
	}
	if countEvents(t, c, rc, "FinalizeStage") != 1 || countEvents(t, c, rc, "CreateStage") != 1 {
		t.Fatal("finalize must emit FinalizeStage(4) and CreateStage(5)")
	}
	if s4, s5 := c.stage(4), c.stage(5); !s4.IsFinalized || s5 != (vipscore.StagesOutput{Stage: 5}) {
		t.Fatalf("after finalize: stage 4 %+v, stage 5 %+v", s4, s5)
	}
	for _, data := range [][]byte{c.b.PackUpdateScores(4, addrs[:1], []uint64{1}), c.b.PackUpdateScore(4, addrs[0], 1),
		c.b.PackIncreaseScore(4, addrs[0], 1), c.b.PackFinalizeStage(4)} {
		if _, err := c.send(c.owner, &c.contract, data); errName(err) != "StageFinalized" {
			t.Fatalf("write to finalized stage: %v, want StageFinalized", err)
		}
	}
	if after := c.getScores(4, 0, 10); !equalRows(before, after) {
		t.Fatal("finalized scores changed")
	}

	// Allow list management.
	if _, err := c.send(c.owner, &c.contract, c.b.PackAddAllowList(stranger)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.update(c.stranger, 5, addrs, amounts); err != nil {
		t.Fatalf("allowed stranger: %v", err)
	}
	if _, err := c.send(c.owner, &c.contract, c.b.PackRemoveAllowList(stranger)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.update(c.stranger, 5, addrs, amounts); errName(err) != "PermissionDenied" {
		t.Fatalf("removed stranger: %v", err)
	}
}

func asContractError(err error, target **contractError) bool {
	ce, ok := err.(*contractError)
	if ok {
		*target = ce
	}
	return ok
}

func equalRows(a, b []vipscore.VipScoreScoreResponse) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func countEvents(t *testing.T, c *chain, rc *types.Receipt, name string) int {
	t.Helper()
	id := ABI().Events[name].ID
	n := 0
	for _, l := range rc.Logs {
		if l.Address == c.contract && len(l.Topics) > 0 && l.Topics[0] == id {
			n++
		}
	}
	return n
}
