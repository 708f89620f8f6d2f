package deployer

import "testing"

func TestGasModel(t *testing.T) {
	const txCap = 1 << 24
	m := GasModel{Fixed: 60_000, PerEntry: 30_000, Headroom: 20}
	tests := []struct {
		n    int
		cap  uint64
		want uint64
	}{
		{1, txCap, (60_000 + 30_000) * 6 / 5},
		{100, txCap, (60_000 + 3_000_000) * 6 / 5},
		{10_000, txCap, txCap}, // never above the cap
	}
	for _, tt := range tests {
		if got := m.Limit(tt.n, tt.cap); got != tt.want {
			t.Errorf("Limit(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
	for _, h := range []uint64{0, 20, 30} {
		m.Headroom = h
		n := m.MaxEntries(txCap)
		if m.Limit(n, ^uint64(0)) > txCap || m.Limit(n+1, ^uint64(0)) <= txCap*99/100 {
			t.Fatalf("headroom %d%%: MaxEntries = %d does not sit at the cap: %d / %d", h, n, m.Limit(n, ^uint64(0)), m.Limit(n+1, ^uint64(0)))
		}
	}
	if (GasModel{Fixed: txCap}).MaxEntries(txCap) != 0 {
		t.Fatal("a fixed cost above the budget must leave room for nothing")
	}
}

func TestFitGas(t *testing.T) {
	m := FitGas(90_000, 120_000, 90_000+49*30_000, 50, 30)
	if m.Fixed != 60_000 || m.PerEntry != 30_000 || m.Raw(50) != 90_000+49*30_000 {
		t.Fatalf("fit %+v", m)
	}
	// A noisy measurement rounds the per-entry cost up, never down.
	if m := FitGas(90_000, 120_000, 90_000+49*30_000+1, 50, 0); m.PerEntry != 30_001 {
		t.Fatalf("fit %+v, want per-entry rounded up", m)
	}
	// More gas for one entry than for many (a warm slot) still gives a usable bound.
	if m := FitGas(100_000, 95_000, 90_000, 50, 0); m.Raw(1) < 90_000 {
		t.Fatalf("fit %+v", m)
	}
}

// The EVM's measured curve (embedded chain, VipScore): the 2nd and 3rd new address cost ~50k
// each, later ones ~30k, so the chord through 1 and 50 runs below the cost at 3. The model
// bounds every size from above.
func TestGasModelBoundsAnEarlySteeperCurve(t *testing.T) {
	measured := map[int]uint64{1: 86_008, 2: 136_507, 3: 183_337, 4: 212_925, 5: 242_521, 10: 390_449, 50: 1_573_843}
	m := FitGas(measured[1], measured[2], measured[50], 50, 0)
	for n, gas := range measured {
		if m.Raw(n) < gas {
			t.Errorf("Raw(%d) = %d, below the measured %d", n, m.Raw(n), gas)
		}
	}
	if m.Raw(50) > measured[50]+50 || m.Raw(100) != m.Fixed+100*m.PerEntry {
		t.Errorf("past the first steps the chord holds: %+v", m)
	}
	// MaxEntries never picks a size whose limit is over the cap.
	for _, limitCap := range []uint64{100_000, 200_000, 500_000, 2_000_000, 30_000_000} {
		n := m.MaxEntries(limitCap)
		if n > 0 && m.Limit(n, ^uint64(0)) > limitCap {
			t.Errorf("cap %d: MaxEntries %d needs %d", limitCap, n, m.Limit(n, ^uint64(0)))
		}
	}
}
