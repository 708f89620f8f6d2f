package evm

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// The official VipScore (initia-labs/vip-score-evm src/VipScore.sol) under the same rules:
// solc 0.8.37, optimizer 200 runs, evmVersion osaka, Osaka gas on go-ethereum 1.17.10's
// simulated chain, fresh stage. Measured with measureGas below on the official source
// compiled outside this repository (nothing of it is committed); to measure it again, set
// VIPHARNESS_OFFICIAL_BIN to such a build's creation bytecode (hex).
const (
	officialNewTotal1     = 102_522    // updateScores of 1 new address: receipt gas
	officialNewTotal100   = 5_140_995  // of 100 new addresses (51,410 per address)
	officialNewTotal200   = 10_230_507 // of 200 (51,152 per address; 50,895 marginal: the ~50.9k)
	officialOverwrite200  = 10_645     // updateScores of 200 existing addresses, new amounts: gas / 200
	officialFinalize      = 53_772     // finalizeStage of a stage of 1000 addresses
	officialGetScores1000 = 5_667_764  // eth_estimateGas of getScores(stage, 0, 1000) over 1000 rows
	officialMaxNewPerTx   = 328        // new addresses in one updateScores within MaxTxGas

	// updateScore (singleWrites): the stage's first address, its second, an overwrite.
	officialSingleFirst     = 100_901
	officialSingleSecond    = 83_789
	officialSingleOverwrite = 38_591

	// Ours must stay at or under this per new address (receipt gas / n) at 200 and 500.
	targetNewPerAddr = 36_000
)

// gasFigures are a contract build's costs.
type gasFigures struct {
	newTotal     map[int]uint64 // receipt gas of updateScores of n new addresses, fresh stage
	overwrite200 uint64         // updateScores of 200 existing addresses, new amounts, per address
	finalize     uint64
	getScores    uint64 // getScores(stage, 0, 1000) over 1000 rows, as estimated for a call
	maxNewPerTx  int    // new addresses that fit one MaxTxGas tx
}

func (f gasFigures) perAddr(n int) uint64 { return f.newTotal[n] / uint64(n) }

func (f gasFigures) marginal() uint64 { return (f.newTotal[200] - f.newTotal[100]) / 100 }

// sizes are the call sizes measured; the official contract does not fit 500 in one tx.
var sizes = []int{1, 100, 200, 300, 500}

func measureGas(t testing.TB, bin []byte) gasFigures {
	t.Helper()
	f := gasFigures{newTotal: map[int]uint64{}}
	for _, n := range sizes {
		c := newChain(t, bin, 1)
		addrs, amounts := addresses(n, n)
		rc, err := c.update(c.owner, 1, addrs, amounts)
		if err != nil {
			continue // does not fit one tx
		}
		f.newTotal[n] = rc.GasUsed
		if n == 200 {
			for i := range amounts {
				amounts[i] += 7
			}
			rc, err := c.update(c.owner, 1, addrs, amounts)
			if err != nil {
				t.Fatal(err)
			}
			f.overwrite200 = rc.GasUsed / uint64(n)
		}
	}
	// getScores over 1000 rows and finalize of a 1000-address stage.
	c := newChain(t, bin, 1)
	for k := range 4 {
		addrs, amounts := addresses(250, 900+k)
		if _, err := c.update(c.owner, 1, addrs, amounts); err != nil {
			t.Fatal(err)
		}
	}
	gas, err := c.client.EstimateGas(context.Background(), ethereum.CallMsg{To: &c.contract, Data: c.b.PackGetScores(1, 0, 1000)})
	if err != nil {
		t.Fatal(err)
	}
	f.getScores = gas
	rc, err := c.send(c.owner, &c.contract, c.b.PackFinalizeStage(1))
	if err != nil {
		t.Fatal(err)
	}
	f.finalize = rc.GasUsed

	// The largest n whose call fits the per-tx cap, by bisection on eth_estimateGas, then
	// sent with exactly MaxTxGas.
	c = newChain(t, bin, 1)
	owner := crypto.PubkeyToAddress(c.owner.PublicKey)
	fits := func(n int) bool {
		addrs, amounts := addresses(n, 7_000+n)
		gas, err := c.client.EstimateGas(context.Background(), ethereum.CallMsg{
			From: owner, To: &c.contract, Data: c.b.PackUpdateScores(1, addrs, amounts), Gas: blockGasLimit,
		})
		return err == nil && gas <= MaxTxGas
	}
	lo, hi := 1, 2000
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	addrs, amounts := addresses(lo, 7_000+lo)
	if _, err := c.sendGas(c.owner, &c.contract, c.b.PackUpdateScores(1, addrs, amounts), MaxTxGas); err != nil {
		t.Fatalf("%d new addresses with MaxTxGas: %v", lo, err)
	}
	f.maxNewPerTx = lo
	return f
}

func officialFigures(t testing.TB) gasFigures {
	if path := os.Getenv("VIPHARNESS_OFFICIAL_BIN"); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f := measureGas(t, common.FromHex(strings.TrimSpace(string(b))))
		t.Logf("official: new total %v, marginal %d, overwrite/addr %d, finalize %d, getScores(1000) %d, max new per tx %d",
			f.newTotal, f.marginal(), f.overwrite200, f.finalize, f.getScores, f.maxNewPerTx)
		return f
	}
	return gasFigures{
		newTotal:     map[int]uint64{1: officialNewTotal1, 100: officialNewTotal100, 200: officialNewTotal200},
		overwrite200: officialOverwrite200, finalize: officialFinalize,
		getScores: officialGetScores1000, maxNewPerTx: officialMaxNewPerTx,
	}
}

// TestGasTargets holds the contract to its gas budget (gas is deterministic).
func TestGasTargets(t *testing.T) {
	ours := measureGas(t, Bin())
	t.Logf("ours: new total %v, per addr @100 %d @200 %d @500 %d, marginal %d, overwrite/addr %d, finalize %d, getScores(1000) %d, max new per tx %d",
		ours.newTotal, ours.perAddr(100), ours.perAddr(200), ours.perAddr(500), ours.marginal(),
		ours.overwrite200, ours.finalize, ours.getScores, ours.maxNewPerTx)
	official := officialFigures(t)
	for _, n := range []int{200, 500} {
		if ours.newTotal[n] == 0 {
			t.Errorf("%d new addresses do not fit one tx", n)
		} else if ours.perAddr(n) > targetNewPerAddr {
			t.Errorf("new address at %d per call: %d gas, target at most %d", n, ours.perAddr(n), targetNewPerAddr)
		}
	}
	if m := ours.marginal(); m > targetNewPerAddr {
		t.Errorf("marginal new address: %d gas, target at most %d", m, targetNewPerAddr)
	}
	if ours.newTotal[1] > official.newTotal[1] {
		t.Errorf("one new address: %d gas, official %d", ours.newTotal[1], official.newTotal[1])
	}
	if ours.overwrite200 > official.overwrite200 {
		t.Errorf("overwrite: %d gas per address, official %d", ours.overwrite200, official.overwrite200)
	}
	if ours.finalize > official.finalize {
		t.Errorf("finalize: %d gas, official %d", ours.finalize, official.finalize)
	}
	if ours.getScores > official.getScores {
		t.Errorf("getScores(1000): %d gas, official %d", ours.getScores, official.getScores)
	}
	if ours.maxNewPerTx <= official.maxNewPerTx {
		t.Errorf("max new addresses per tx: %d, official %d", ours.maxNewPerTx, official.maxNewPerTx)
	}
}

// singleWrites returns the receipt gas of three updateScore calls on a fresh stage: the
// stage's first address, its second, and an overwrite of the second with a new amount.
func singleWrites(t testing.TB, bin []byte) [3]uint64 {
	t.Helper()
	c := newChain(t, bin, 1)
	a := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	b := common.HexToAddress("0x0000000000000000000000000000000000000b0b")
	var gas [3]uint64
	for i, data := range [][]byte{c.b.PackUpdateScore(1, a, 100_005), c.b.PackUpdateScore(1, b, 100_005), c.b.PackUpdateScore(1, b, 100_007)} {
		rc, err := c.send(c.owner, &c.contract, data)
		if err != nil {
			t.Fatal(err)
		}
		gas[i] = rc.GasUsed
	}
	return gas
}

// TestSingleWritesGas: a lone updateScore (where a data contract would not pay off) must
// not cost more than the official contract's.
func TestSingleWritesGas(t *testing.T) {
	official := [3]uint64{officialSingleFirst, officialSingleSecond, officialSingleOverwrite}
	if path := os.Getenv("VIPHARNESS_OFFICIAL_BIN"); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		official = singleWrites(t, common.FromHex(strings.TrimSpace(string(b))))
	}
	ours := singleWrites(t, Bin())
	for i, name := range []string{"first new", "second new", "overwrite"} {
		t.Logf("updateScore %s: %d gas (official %d)", name, ours[i], official[i])
		if ours[i] > official[i] {
			t.Errorf("updateScore %s: %d gas, official %d", name, ours[i], official[i])
		}
	}
}

// BenchmarkGas reports the gas figures (deterministic: one iteration suffices, -benchtime=1x).
func BenchmarkGas(b *testing.B) {
	var f gasFigures
	for b.Loop() {
		f = measureGas(b, Bin())
	}
	b.ReportMetric(float64(f.perAddr(100)), "gas/new-addr@100")
	b.ReportMetric(float64(f.perAddr(200)), "gas/new-addr@200")
	b.ReportMetric(float64(f.perAddr(500)), "gas/new-addr@500")
	b.ReportMetric(float64(f.marginal()), "gas/new-addr-marginal")
	b.ReportMetric(float64(f.overwrite200), "gas/overwrite")
	b.ReportMetric(float64(f.finalize), "gas/finalize")
	b.ReportMetric(float64(f.getScores), "gas/getScores-1000")
	b.ReportMetric(float64(f.maxNewPerTx), "new-addrs/tx")
	if os.Getenv("VIPHARNESS_OFFICIAL_BIN") != "" {
		o := officialFigures(b)
		b.ReportMetric(float64(o.perAddr(200)), "official-gas/new-addr@200")
		b.ReportMetric(float64(o.marginal()), "official-gas/new-addr-marginal")
		b.ReportMetric(float64(o.overwrite200), "official-gas/overwrite")
		b.ReportMetric(float64(o.finalize), "official-gas/finalize")
		b.ReportMetric(float64(o.getScores), "official-gas/getScores-1000")
		b.ReportMetric(float64(o.maxNewPerTx), "official-new-addrs/tx")
	}
}
