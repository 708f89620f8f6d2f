package evm

import (
	"bytes"
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/vipharness/vipharness/bindings/vipscore"
)

// TestDeployment: the deployed code is the committed runtime artifact, and deploying emits
// CreateStage(initStage).
func TestDeployment(t *testing.T) {
	c := newChain(t, Bin(), 7)
	code, err := c.client.CodeAt(context.Background(), c.contract, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(code, RuntimeBin()) {
		t.Fatal("deployed code differs from artifacts/VipScore.bin-runtime")
	}
	var created []uint64
	for _, l := range c.deployTx.Logs {
		if ev, err := c.b.UnpackCreateStageEvent(l); err == nil {
			created = append(created, ev.Stage)
		}
	}
	if len(created) != 1 || created[0] != 7 || len(c.deployTx.Logs) != 1 {
		t.Fatalf("deploy logs: CreateStage %v of %d logs, want [7] only", created, len(c.deployTx.Logs))
	}
}

// listModel is what the contract's list and scores must read back as.
type listModel struct {
	order  []common.Address
	amount map[common.Address]uint64
	total  uint64
}

func (m *listModel) set(a common.Address, v uint64) {
	if a == (common.Address{}) {
		return
	}
	old, seen := m.amount[a]
	if !seen {
		m.order = append(m.order, a)
	}
	m.amount[a] = v
	m.total = m.total - old + v
}

// checkList reads the whole list back through many windows: every offset with limits that
// start, end and cross segment boundaries, and offsets past the end (zero rows).
func checkList(t *testing.T, c *chain, stage uint64, m *listModel) {
	t.Helper()
	if got := c.stage(stage).TotalScore; got != m.total {
		t.Fatalf("total %d, want %d", got, m.total)
	}
	n := uint64(len(m.order))
	for offset := uint64(0); offset <= n+1; offset++ {
		for _, limit := range []uint64{0, 1, 2, 3, 7, n - offset%n, n + 5} {
			rows := c.getScores(stage, offset, limit)
			if uint64(len(rows)) != limit {
				t.Fatalf("getScores(%d,%d): %d rows, want %d", offset, limit, len(rows), limit)
			}
			for k, r := range rows {
				pos := offset + uint64(k)
				want := vipscore.VipScoreScoreResponse{}
				if pos < n {
					a := m.order[pos]
					want = vipscore.VipScoreScoreResponse{Addr: a, Amount: m.amount[a], Index: pos + 1}
				}
				if r != want {
					t.Fatalf("getScores(%d,%d)[%d] = %+v, want %+v", offset, limit, k, r, want)
				}
			}
		}
	}
}

// TestListMixesSegments builds a stage's list from every kind of write (lone addresses kept
// directly, data contracts, single-address functions, calls with duplicates, overwrites and
// zero addresses) and reads it back through every window.
func TestListMixesSegments(t *testing.T) {
	c := newChain(t, Bin(), 3)
	m := &listModel{amount: map[common.Address]uint64{}}
	seed := 0
	batch := func(n int) ([]common.Address, []uint64) {
		seed++
		return addresses(n, 100+seed)
	}
	for _, step := range []struct {
		name string
		make func() ([]common.Address, []uint64)
	}{
		{"one", func() ([]common.Address, []uint64) { return batch(1) }},
		{"two", func() ([]common.Address, []uint64) { return batch(2) }},
		{"three", func() ([]common.Address, []uint64) { return batch(3) }},
		{"forty", func() ([]common.Address, []uint64) { return batch(40) }},
		{"two new among old, a duplicate and zeros", func() ([]common.Address, []uint64) {
			a, v := batch(2)
			return []common.Address{m.order[0], a[0], {}, m.order[10], a[1], a[0]}, []uint64{5, v[0], 9, 6, v[1], 77}
		}},
		{"overwrites only", func() ([]common.Address, []uint64) {
			return []common.Address{m.order[1], m.order[45]}, []uint64{0, 12}
		}},
		{"empty", func() ([]common.Address, []uint64) { return nil, nil }},
		{"three new with repeats", func() ([]common.Address, []uint64) {
			a, v := batch(3)
			return []common.Address{a[0], a[1], a[0], a[2], m.order[2]}, []uint64{v[0], v[1], 1, v[2], 3}
		}},
	} {
		addrs, amounts := step.make()
		rc, err := c.update(c.owner, 3, addrs, amounts)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		// One UpdateScore per non-zero address, in call order, with the running total.
		var evs []*vipscore.VipScoreUpdateScore
		for _, l := range rc.Logs {
			if ev, err := c.b.UnpackUpdateScoreEvent(l); err == nil {
				evs = append(evs, ev)
			}
		}
		k := 0
		for i, a := range addrs {
			m.set(a, amounts[i])
			if a == (common.Address{}) {
				continue
			}
			if k >= len(evs) {
				t.Fatalf("%s: %d UpdateScore events, too few", step.name, len(evs))
			}
			want := vipscore.VipScoreUpdateScore{Addr: a, Stage: 3, Score: amounts[i], TotalScore: m.total, Raw: evs[k].Raw}
			if *evs[k] != want {
				t.Fatalf("%s: event %d = %+v, want %+v", step.name, k, *evs[k], want)
			}
			k++
		}
		if k != len(evs) {
			t.Fatalf("%s: %d UpdateScore events, want %d", step.name, len(evs), k)
		}
	}
	// The single-address functions append too.
	x, y := common.HexToAddress("0x00000000000000000000000000000000000000a1"), common.HexToAddress("0x00000000000000000000000000000000000000a2")
	for _, w := range []struct {
		data []byte
		addr common.Address
		v    uint64
	}{
		{c.b.PackIncreaseScore(3, x, 4), x, 4},
		{c.b.PackUpdateScore(3, y, 8), y, 8},
		{c.b.PackDecreaseScore(3, m.order[3], 1), m.order[3], m.amount[m.order[3]] - 1},
		{c.b.PackIncreaseScore(3, x, 6), x, 10},
	} {
		if _, err := c.send(c.owner, &c.contract, w.data); err != nil {
			t.Fatal(err)
		}
		m.set(w.addr, w.v)
	}
	addrs, amounts := batch(5)
	if _, err := c.update(c.owner, 3, addrs, amounts); err != nil {
		t.Fatal(err)
	}
	for i, a := range addrs {
		m.set(a, amounts[i])
	}
	checkList(t, c, 3, m)
	for _, a := range m.order {
		sc, err := c.b.UnpackScores(c.call(c.b.PackScores(3, a)))
		if err != nil || sc != (vipscore.ScoresOutput{IsIndexed: true, Amount: m.amount[a]}) {
			t.Fatalf("scores(3, %s) = %+v, %v; want %d", a.Hex(), sc, err, m.amount[a])
		}
	}
	// Other stages stay empty.
	if rows := c.getScores(4, 0, 2); rows[0] != (vipscore.VipScoreScoreResponse{}) {
		t.Fatalf("missing stage reads %+v", rows)
	}
}

// TestOneCallSpansDataContracts: without Osaka's per-tx gas cap one call can add more
// addresses than one data contract holds (1,228); the list continues across the split.
func TestOneCallSpansDataContracts(t *testing.T) {
	if testing.Short() {
		t.Skip("40M-gas call")
	}
	c := newChainWith(t, Bin(), 1, pragueRules, blockGasLimit)
	m := &listModel{amount: map[common.Address]uint64{}}
	before, amounts := addresses(2, 1)
	if _, err := c.update(c.owner, 1, before, amounts); err != nil {
		t.Fatal(err)
	}
	for i, a := range before {
		m.set(a, amounts[i])
	}
	addrs, amounts := addresses(1300, 2)
	rc, err := c.update(c.owner, 1, addrs, amounts)
	if err != nil {
		t.Fatal(err)
	}
	if rc.GasUsed <= MaxTxGas {
		t.Fatalf("gas %d: the call was meant to exceed Osaka's cap", rc.GasUsed)
	}
	for i, a := range addrs {
		m.set(a, amounts[i])
	}
	n := uint64(len(m.order))
	for _, w := range []struct{ offset, limit uint64 }{{0, n}, {1225, 10}, {1229, 1}, {1230, 1}, {1300, 5}, {0, 2000}} {
		rows := c.getScores(1, w.offset, w.limit)
		for k, r := range rows {
			pos := w.offset + uint64(k)
			want := vipscore.VipScoreScoreResponse{}
			if pos < n {
				want = vipscore.VipScoreScoreResponse{Addr: m.order[pos], Amount: m.amount[m.order[pos]], Index: pos + 1}
			}
			if r != want {
				t.Fatalf("getScores(%d,%d)[%d] = %+v, want %+v", w.offset, w.limit, k, r, want)
			}
		}
	}
	if got := c.stage(1).TotalScore; got != m.total {
		t.Fatalf("total %d, want %d", got, m.total)
	}
	// Two data contracts were created.
	if n := countCreates(t, c, rc); n != 2 {
		t.Fatalf("%d data contracts, want 2", n)
	}
}

// countCreates counts the contract's nonce increase over the tx: one per CREATE.
func countCreates(t *testing.T, c *chain, rc *types.Receipt) uint64 {
	t.Helper()
	ctx := context.Background()
	after, err := c.client.NonceAt(ctx, c.contract, rc.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	before, err := c.client.NonceAt(ctx, c.contract, new(big.Int).Sub(rc.BlockNumber, big.NewInt(1)))
	if err != nil {
		t.Fatal(err)
	}
	return after - before
}
