package throughput

import (
	"testing"
	"time"
)

func TestPairAlternatesAndAccumulates(t *testing.T) {
	var clock time.Time
	var order []string
	p := Pair{Addrs: 100, now: func() time.Time { return clock }}
	for range 4 {
		p.Round(func() { order = append(order, "d"); clock = clock.Add(2 * time.Second) },
			func() { order = append(order, "r"); clock = clock.Add(time.Second) })
	}
	if got := order; len(got) != 8 || got[0] != "d" || got[2] != "r" || got[4] != "d" || got[6] != "r" {
		t.Fatalf("order %v: the deployer first, then alternating", got)
	}
	// 400 addresses each side, in 8 s and in 4 s.
	if d, r := p.Rates(); d != 50 || r != 100 {
		t.Fatalf("rates deployer %v raw %v, want 50 and 100", d, r)
	}
	if d, r := (&Pair{Addrs: 5}).Rates(); d != 0 || r != 0 {
		t.Fatalf("no rounds: rates %v %v", d, r)
	}
}
