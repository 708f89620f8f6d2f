// Package throughput times the deployer beside raw pre-signed transactions doing the same
// work on the same chain, in one benchmark run: the deployer/raw ratio each VM's push
// benchmark reports.
package throughput

import (
	"testing"
	"time"
)

// Pair accumulates the two sides' times over a benchmark's rounds. From the second round
// on, the side that goes first alternates, so that neither always meets the chain the other
// has just grown (the first round runs the deployer first: raw txs take its chunk size).
type Pair struct {
	// Addrs is how many new addresses each side writes per round.
	Addrs int

	deployer, raw time.Duration
	rounds        int
	now           func() time.Time // time.Now; a test's clock
}

// Round runs deployer and raw once each, timing both.
func (p *Pair) Round(deployer, raw func()) {
	now := p.now
	if now == nil {
		now = time.Now
	}
	timed := func(f func(), total *time.Duration) {
		start := now()
		f()
		*total += now().Sub(start)
	}
	if p.rounds%2 == 1 {
		timed(raw, &p.raw)
		timed(deployer, &p.deployer)
	} else {
		timed(deployer, &p.deployer)
		timed(raw, &p.raw)
	}
	p.rounds++
}

// Rates are both sides' addresses per second over every round so far.
func (p *Pair) Rates() (deployer, raw float64) {
	if p.rounds == 0 || p.deployer <= 0 || p.raw <= 0 {
		return 0, 0
	}
	n := float64(p.Addrs * p.rounds)
	return n / p.deployer.Seconds(), n / p.raw.Seconds()
}

// Report reports deployer-addr/s, raw-addr/s and deployer/raw.
func (p *Pair) Report(b *testing.B) {
	d, r := p.Rates()
	b.ReportMetric(d, "deployer-addr/s")
	b.ReportMetric(r, "raw-addr/s")
	if r > 0 {
		b.ReportMetric(d/r, "deployer/raw")
	}
}
