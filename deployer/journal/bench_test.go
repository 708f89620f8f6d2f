package journal_test

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/journal"
)

// A chunk as the EVM push writes it: 455 new addresses a tx, 64 bytes of calldata per
// address (address and score, one word each) plus the call's head and the tx envelope.
const (
	benchChunkAddrs = 455
	benchRawBytes   = benchChunkAddrs*64 + 4 + 3*32 + 120
)

func benchRaw() string { return hex.EncodeToString(make([]byte, benchRawBytes)) }

func signedRecord(i int, raw string) journal.Record {
	return journal.Record{Op: journal.OpSigned, Chunk: i, Sequence: uint64(i), Raw: raw,
		Hash: "0x" + strings.Repeat("ab", 32)}
}

func confirmedRecord(i int) journal.Record {
	return journal.Record{Op: journal.OpConfirmed, Chunk: i, Hash: "0x" + strings.Repeat("ab", 32), GasUsed: 13_700_000, Height: uint64(i)}
}

// BenchmarkAppendChunk journals chunks the way the push does, for a window of 1 and of 8
// txs in flight: the signed txs of a window together (one write, one sync before the first
// broadcast), each outcome riding on the next sync. A new journal's first sync also syncs its
// folder.
func BenchmarkAppendChunk(b *testing.B) {
	for _, window := range []int{1, 8} {
		b.Run(fmt.Sprintf("window=%d", window), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "j.jsonl")
			j, err := journal.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			raw := benchRaw()
			chunks := 0
			for b.Loop() {
				recs := make([]journal.Record, window)
				for k := range recs {
					recs[k] = signedRecord(chunks+k, raw)
				}
				if err := j.Append(recs...); err != nil {
					b.Fatal(err)
				}
				for k := range window {
					if err := j.Append(confirmedRecord(chunks + k)); err != nil {
						b.Fatal(err)
					}
				}
				chunks += window
			}
			b.StopTimer()
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(chunks), "µs/chunk")
			b.ReportMetric(float64(st.Size())/float64(chunks), "bytes/chunk")
			b.ReportMetric(float64(st.Size())/float64(chunks*benchChunkAddrs), "bytes/addr")
			b.ReportMetric(float64(j.Syncs())/float64(chunks), "fsyncs/chunk")
		})
	}
}

// BenchmarkResume opens the journal of a finished 1,000,000-address push (every chunk signed
// and confirmed), as a re-run does before it reconciles, and reports the heap it keeps.
func BenchmarkResume(b *testing.B) {
	const addrs = 1_000_000
	chunks := (addrs + benchChunkAddrs - 1) / benchChunkAddrs
	path := filepath.Join(b.TempDir(), "j.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	raw := benchRaw()
	now := time.Now().UTC()
	if err := enc.Encode(journal.Record{Op: journal.OpBegin, Time: now, Stage: 1, Input: strings.Repeat("cd", 32), Chunks: chunks, ChunkSize: benchChunkAddrs}); err != nil {
		b.Fatal(err)
	}
	for i := range chunks {
		s, c := signedRecord(i, raw), confirmedRecord(i)
		s.Time, c.Time = now, now
		if err := enc.Encode(s); err != nil {
			b.Fatal(err)
		}
		if err := enc.Encode(c); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var kept uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		j, err := journal.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if !j.Chunk(chunks - 1).Confirmed {
			b.Fatal("last chunk not confirmed after resume")
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept = after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
		runtime.KeepAlive(j)
		j.Close()
	}
	b.ReportMetric(float64(st.Size())/1e6, "journal-MB")
	b.ReportMetric(float64(chunks), "chunks")
	b.ReportMetric(float64(kept)/1e6, "heap-kept-MB")
}
