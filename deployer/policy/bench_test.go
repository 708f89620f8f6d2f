package policy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// genChain yields n ERC-20 transfers among users accounts, a block each, made as they are
// read (never held), as a node or an indexer hands them over.
type genChain struct{ n, users int }

func (g genChain) Read(_ context.Context, s *Source, from, to uint64, each func(*Record) error) error {
	args := abi.Arguments{{Type: erc20ev.Inputs[2].Type}}
	var rec Record
	for i := range g.n {
		b := uint64(i) + 10
		if b < from || b > to {
			continue
		}
		var f, t common.Address
		binary.BigEndian.PutUint64(f[12:], uint64(i%g.users)+1)
		binary.BigEndian.PutUint64(t[12:], uint64((i*7+3)%g.users)+1)
		data, _ := args.Pack(new(big.Int).Mul(big.NewInt(int64(i%1000+1)), big.NewInt(1e15)))
		rec = Record{Block: b, Time: 1000 + b, TxHash: common.BigToHash(big.NewInt(int64(i))), From: f, Address: token,
			Topics: []common.Hash{erc20ev.ID, common.BytesToHash(f[:]), common.BytesToHash(t[:])}, Data: data}
		if !s.Matches(&rec) {
			continue
		}
		if err := each(&rec); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkCompute is a stage of n transfer logs scored by three rules (volume sum with a
// cap, count, time-weighted balance) over 10,000 users: records/s and the peak resident set.
func BenchmarkCompute(b *testing.B) {
	src := header + okSources + `rules:
  - {name: vol, source: transfers, aggregate: sum, user: args.from, amount: args.value / 1e18, cap: 100}
  - {name: n, source: transfers, aggregate: count, user: tx.from, where: "args.value > 1e17"}
  - {name: hold, source: transfers, aggregate: time_weighted_balance, from: args.from, to: args.to, amount: args.value / 1e18}
`
	p, err := Parse([]byte(src), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			w := Window{Start: 1000, End: 1000 + uint64(n) + 20, FirstBlock: 10, LastBlock: uint64(n) + 10}
			var rss float64
			var elapsed, cpu time.Duration
			for b.Loop() {
				runtime.GC()
				debug.FreeOSMemory()
				_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
				start, cpu0 := time.Now(), cpuTime()
				res, err := Compute(context.Background(), p, w, genChain{n: n, users: 10_000})
				if err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
				cpu += cpuTime() - cpu0
				if res.Records["transfers"] != n || len(res.Scores) == 0 {
					b.Fatalf("records %v, %d scores", res.Records, len(res.Scores))
				}
				rss = max(rss, peakRSSMB())
			}
			b.ReportMetric(float64(n)*float64(b.N)/elapsed.Seconds(), "records/s")
			// The process's CPU time (the collector's included): what a core of its own gives,
			// where the machine is shared.
			b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "records/cpu-s")
			b.ReportMetric(rss, "peak-rss-MB")
		})
	}
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSSMB is VmHWM from /proc/self/status in MB (0 where there is none).
func peakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			kb, err := strconv.ParseFloat(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 64)
			if err == nil {
				return kb * 1024 / 1e6
			}
		}
	}
	return 0
}
