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
	m := FitGas(90_000, 90_000+49*30_000, 50, 30)
	if m.Fixed != 60_000 || m.PerEntry != 30_000 || m.Raw(50) != 90_000+49*30_000 {
		t.Fatalf("fit %+v", m)
	}
	// A noisy measurement rounds the per-entry cost up, never down.
	if m := FitGas(90_000, 90_000+49*30_000+1, 50, 0); m.PerEntry != 30_001 {
		t.Fatalf("fit %+v, want per-entry rounded up", m)
	}
	// More gas for one entry than for many (a warm slot) still gives a usable bound.
	if m := FitGas(100_000, 90_000, 50, 0); m.Raw(1) < 90_000 {
		t.Fatalf("fit %+v", m)
	}
}
