package indexer

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

// BenchmarkPageLatency measures GET latency (client to stand-in over loopback HTTP, body
// read) with 100,000 indexed transactions, and reports its p50 and p99 in ns.
func BenchmarkPageLatency(b *testing.B) {
	const blocks, perBlock = 1000, 100
	chain := NewMemChain()
	var sample common.Hash
	for n := range blocks {
		txs := make([]MemTx, perBlock)
		for i := range txs {
			from, to := addr(i%100), addr(100+(n*perBlock+i)%1000)
			txs[i] = MemTx{From: from, To: &to}
			if i%10 == 0 {
				txs[i].Logs = []MemLog{{Address: to, Topics: []common.Hash{pingID, common.BytesToHash(addr(2000 + n%50).Bytes())}, Data: []byte{1}}}
			}
		}
		chain.AddBlock(txs...)
	}
	_, rs, _ := chain.Block(blocks / 2)
	sample = common.HexToHash(rs[7].TxHash)

	start := time.Now()
	ix, err := NewFromSource(context.Background(), chain, WithPollInterval(time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	waitHeight(b, ix, blocks)
	if ix.Count() != blocks*perBlock {
		b.Fatalf("indexed %d", ix.Count())
	}
	b.Logf("indexed %d txs from memory in %v", ix.Count(), time.Since(start))

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	key := url.QueryEscape(api.SequenceKey(blocks * perBlock / 2))
	cases := []struct{ name, path string }{
		{"latest_100", "/indexer/tx/v1/evm-txs"},
		{"cursor_middle_100", "/indexer/tx/v1/evm-txs?pagination.key=" + key},
		{"offset_deep_100", "/indexer/tx/v1/evm-txs?pagination.reverse=false&pagination.offset=90000"},
		{"limit_1000", "/indexer/tx/v1/evm-txs?pagination.limit=1000&pagination.key=" + key},
		{"by_account_100", "/indexer/tx/v1/evm-txs/by_account/" + addr(2007).Hex()},
		{"by_height_100", "/indexer/tx/v1/evm-txs/by_height/500"},
		{"by_hash", "/indexer/tx/v1/evm-txs/" + sample.Hex()},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			u := ix.URL() + c.path
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				resp, err := hc.Get(u)
				if err != nil {
					b.Fatal(err)
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("%d %v", resp.StatusCode, err)
				}
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*50/100]), "p50-ns")
			b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ns")
		})
	}
}

// BenchmarkIndexLive measures how fast a fresh indexer catches up with a live embedded
// chain holding 2,000 transfers (JSON-RPC over loopback: headers and receipts in batches).
func BenchmarkIndexLive(b *testing.B) {
	const txs = 2000
	live := startLive(b)
	var last common.Hash
	for i := range txs {
		to := addr(i % 64)
		last = live.send(&to, 1, nil, 21000)
		if i%100 == 99 {
			// Let the pool empty now and then: the embedded chain's auto-miner deadlocks when
			// more than 256 pool notifications queue up while it keeps sealing blocks.
			live.receipt(last)
			time.Sleep(20 * time.Millisecond)
		}
	}
	head := live.receipt(last).BlockNumber.Uint64()
	b.Logf("chain: %d txs in %d blocks", txs, head)
	var total time.Duration
	for b.Loop() {
		t0 := time.Now()
		ix, err := New(context.Background(), live.r.Endpoints().JSONRPC, WithPollInterval(time.Millisecond))
		if err != nil {
			b.Fatal(err)
		}
		waitHeight(b, ix, head)
		total += time.Since(t0)
		if ix.Count() != txs {
			b.Fatalf("indexed %d", ix.Count())
		}
		_ = ix.Close()
	}
	b.ReportMetric(float64(txs*b.N)/total.Seconds(), "txs/s")
	b.ReportMetric(float64(head)*float64(b.N)/total.Seconds(), "blocks/s")
}
