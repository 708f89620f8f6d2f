// Package throughput times the deployer beside raw pre-signed transactions doing the same
// work on the same chain, in one benchmark run: the deployer/raw ratio each VM's push
// benchmark reports.
package throughput

import (
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
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

// Push runs a push benchmark's rounds: each round writes n new addresses (from gen, a fresh
// seed per side and round) to stage 1 through update, and as many through raw at the chunk
// size update chose; it reports the rates, their ratio, the chunk size and the gas per
// address of the deployer's pushes.
func Push(b *testing.B, n int, gen func(seed int64) []scores.Entry, update func([]scores.Entry) (push.Result, error),
	raw func(entries []scores.Entry, chunkSize int) error) {
	p := Pair{Addrs: n}
	var chunkSize int
	var gas, addrs uint64
	for i := 0; b.Loop(); i++ {
		entries, rawEntries := gen(int64(1000+2*i)), gen(int64(1001+2*i))
		p.Round(func() {
			res, err := update(entries)
			if err != nil {
				b.Fatal(err)
			}
			chunkSize = (n + res.Chunks - 1) / res.Chunks
			gas, addrs = gas+res.GasUsed, addrs+uint64(n)
		}, func() {
			if err := raw(rawEntries, chunkSize); err != nil {
				b.Fatal(err)
			}
		})
	}
	p.Report(b)
	b.ReportMetric(float64(chunkSize), "addrs/tx")
	if addrs > 0 {
		b.ReportMetric(float64(gas/addrs), "gas/addr")
	}
}
