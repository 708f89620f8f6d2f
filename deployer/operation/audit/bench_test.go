package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
)

// genStage is a stage of n EVM addresses generated page by page as a contract's read-back
// hands them over (1,000 rows a page, text addresses the codec decodes), never held whole.
type genStage struct {
	n     int
	total uint64
}

func newGenStage(n int) *genStage {
	g := &genStage{n: n}
	for i := range n {
		g.total += uint64(i % 1000)
	}
	return g
}

func (g *genStage) StageInfo(_ context.Context, stage uint64) (vip.StageInfo, error) {
	return vip.StageInfo{Stage: stage, TotalScore: g.total, Finalized: true, Exists: true}, nil
}

func (g *genStage) ScorePages(_ context.Context, _ uint64, each func([]scores.Row) error) error {
	page := make([]scores.Row, 0, 1000)
	addrs := make([]byte, 20*cap(page))
	for i := 0; i < g.n; i++ {
		a := addrs[20*len(page) : 20*len(page)+20]
		binary.BigEndian.PutUint64(a[4:], uint64(i)*0x9e3779b97f4a7c15+1)
		binary.BigEndian.PutUint64(a[12:], uint64(i)+1)
		page = append(page, scores.Row{Addr: a, Amount: uint64(i % 1000)})
		if len(page) == cap(page) || i == g.n-1 {
			if err := each(page); err != nil {
				return err
			}
			page = page[:0]
		}
	}
	return nil
}

func (g *genStage) Codec() scores.Codec { return scores.EVMCodec{} }

// BenchmarkAudit is `vipctl audit` without the chain: a stage of n addresses read in pages,
// decoded, sorted, hashed into the tree, and every proof line streamed to a file; beside it
// the read-back alone (pages handed over, nothing kept), the floor an audit cannot beat.
// peak-rss-MB is the process's peak resident set during the iteration (VmHWM, reset first).
func BenchmarkAudit(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		g := newGenStage(n)
		b.Run(fmt.Sprintf("readback/n=%d", n), func(b *testing.B) {
			var rss float64
			for b.Loop() {
				resetPeakRSS()
				rows := 0
				err := g.ScorePages(context.Background(), 1, func(page []scores.Row) error {
					rows += len(page)
					return nil
				})
				if err == nil && rows != n {
					err = fmt.Errorf("read %d rows, want %d", rows, n)
				}
				if err != nil {
					b.Fatal(err)
				}
				rss = max(rss, peakRSSMB())
			}
			b.ReportMetric(rss, "peak-rss-MB")
		})
		b.Run(fmt.Sprintf("audit/n=%d", n), func(b *testing.B) {
			// As vipctl audit paces the collector (cmd/vipctl/audit.go).
			defer debug.SetGCPercent(debug.SetGCPercent(25))
			path := filepath.Join(b.TempDir(), "proofs.jsonl")
			var rss, treeMB, fileMB float64
			var build, write time.Duration
			for b.Loop() {
				resetPeakRSS()
				t0 := time.Now()
				tr, _, err := BuildFromStage(context.Background(), g, 1, 1, false)
				if err != nil {
					b.Fatal(err)
				}
				build += time.Since(t0)
				t1 := time.Now()
				f, err := os.Create(path)
				if err != nil {
					b.Fatal(err)
				}
				if err := tr.WriteProofs(f); err != nil {
					b.Fatal(err)
				}
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
				write += time.Since(t1)
				st, _ := os.Stat(path)
				treeMB, fileMB = float64(tr.Bytes())/1e6, float64(st.Size())/1e6
				rss = max(rss, peakRSSMB())
			}
			b.ReportMetric(rss, "peak-rss-MB")
			b.ReportMetric(treeMB, "tree-MB")
			b.ReportMetric(fileMB, "proofs-file-MB")
			b.ReportMetric(float64(build.Milliseconds())/float64(b.N), "build-ms")
			b.ReportMetric(float64(write.Milliseconds())/float64(b.N), "proofs-ms")
		})
	}
}

// resetPeakRSS returns freed memory to the OS and resets the kernel's peak RSS (VmHWM) by
// writing 5 to /proc/self/clear_refs, so each sub-benchmark measures its own peak.
func resetPeakRSS() {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
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
