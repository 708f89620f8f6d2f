package indexer

import (
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

func transfers(from common.Address, tos ...common.Address) []MemTx {
	var out []MemTx
	for i := range tos {
		out = append(out, MemTx{From: from, To: &tos[i]})
	}
	return out
}

func addr(n int) common.Address {
	return common.BigToAddress(new(big.Int).Lsh(big.NewInt(1), uint(n+8)))
}

// checkConsistent asserts that the index serves exactly chain's receipts, in order, with
// strictly increasing sequences, on every endpoint.
func checkConsistent(t *testing.T, ix *Indexer, chain *MemChain) {
	t.Helper()
	all := allReceipts(chain)
	got, _ := walk(t, ix.URL(), "/indexer/tx/v1/evm-txs", url.Values{"pagination.reverse": {"false"}}, 4)
	if !slices.Equal(hashes(got), hashes(all)) {
		t.Fatalf("index holds %v\nchain has %v", hashes(got), hashes(all))
	}
	p := getPage(t, ix.URL(), "/indexer/tx/v1/evm-txs?pagination.limit=1000&pagination.reverse=false")
	if p.Pagination.Total != fmt.Sprint(len(all)) {
		t.Fatalf("total %s, want %d", p.Pagination.Total, len(all))
	}
	var last int64
	for i := range p.Txs {
		// The one-row page at offset i carries row i's sequence as its next_key.
		q := getPage(t, ix.URL(), fmt.Sprintf("/indexer/tx/v1/evm-txs?pagination.limit=1&pagination.reverse=false&pagination.offset=%d", i))
		seq, err := api.ParseSequenceKey(*q.Pagination.NextKey)
		if err != nil || seq <= last || q.Txs[0].TxHash != p.Txs[i].TxHash {
			t.Fatalf("row %d: sequence %d after %d (%v)", i, seq, last, err)
		}
		last = seq
	}
	for n := uint64(1); ; n++ {
		_, rs, ok := chain.Block(n)
		if !ok {
			break
		}
		p := getPage(t, ix.URL(), fmt.Sprintf("/indexer/tx/v1/evm-txs/by_height/%d?pagination.reverse=false", n))
		if !slices.Equal(hashes(p.Txs), hashes(rs)) {
			t.Fatalf("height %d: %v, want %v", n, hashes(p.Txs), hashes(rs))
		}
	}
}

func TestReorgDeeperChainReplacesBlocks(t *testing.T) {
	chain := NewMemChain()
	a := addr(1)
	for i := 1; i <= 6; i++ {
		chain.AddBlock(transfers(a, addr(10+i), addr(20+i))...)
	}
	ix := startMem(t, chain)
	waitHeight(t, ix, 6)
	old := allReceipts(chain)
	checkConsistent(t, ix, chain)

	// Blocks 4..6 are replaced by a longer branch with other transactions.
	chain.SetHead(3)
	for i := 4; i <= 7; i++ {
		chain.AddBlock(transfers(a, addr(30+i))...)
	}
	waitHeight(t, ix, 7)
	checkConsistent(t, ix, chain)
	for _, r := range old[6:] {
		if g := get(t, ix.URL(), "/indexer/tx/v1/evm-txs/"+r.TxHash); g.status != http.StatusNotFound {
			t.Fatalf("orphaned tx %s still served: %d", r.TxHash, g.status)
		}
	}
	// Accounts only the orphaned blocks touched have no transactions left.
	p := getPage(t, ix.URL(), "/indexer/tx/v1/evm-txs/by_account/"+addr(15).Hex())
	if len(p.Txs) != 0 || p.Pagination.Total != "0" {
		t.Fatalf("orphaned account still has %d txs", len(p.Txs))
	}
	// Sequences are never handed out twice: the new branch continues after the old tip.
	p = getPage(t, ix.URL(), "/indexer/tx/v1/evm-txs?pagination.limit=1")
	if seq, _ := api.ParseSequenceKey(*p.Pagination.NextKey); seq != int64(len(old))+4 {
		t.Fatalf("newest sequence %d, want %d", seq, len(old)+4)
	}
}

func TestReorgSameHeightTip(t *testing.T) {
	chain := NewMemChain()
	for i := 1; i <= 5; i++ {
		chain.AddBlock(transfers(addr(1), addr(2))...)
	}
	ix := startMem(t, chain)
	waitHeight(t, ix, 5)
	chain.SetHead(4)
	chain.AddBlock(transfers(addr(3), addr(4), addr(5))...)
	_, rs, _ := chain.Block(5)
	eventually(t, "the replaced tip", func() bool {
		return get(t, ix.URL(), "/indexer/tx/v1/evm-txs/"+rs[1].TxHash).status == http.StatusOK
	})
	checkConsistent(t, ix, chain)
}

func TestReorgToShorterChain(t *testing.T) {
	chain := NewMemChain()
	for i := 1; i <= 8; i++ {
		chain.AddBlock(transfers(addr(1), addr(2))...)
	}
	ix := startMem(t, chain)
	waitHeight(t, ix, 8)
	chain.SetHead(5)
	eventually(t, "rollback to 5", func() bool { return ix.Height() == 5 && ix.Count() == 5 })
	checkConsistent(t, ix, chain)
	// The shorter chain then grows on a new branch.
	chain.AddBlock(transfers(addr(7), addr(8))...)
	waitHeight(t, ix, 6)
	checkConsistent(t, ix, chain)
}

func TestReorgDeeperThanOneFetch(t *testing.T) {
	chain := NewMemChain()
	for i := 1; i <= 300; i++ {
		chain.AddBlock(transfers(addr(1), addr(2))...)
	}
	ix := startMem(t, chain, WithBatchBlocks(16))
	waitHeight(t, ix, 300)
	chain.SetHead(100) // 200 blocks deep: the ancestor search walks back several windows
	for i := 0; i < 210; i++ {
		chain.AddBlock(transfers(addr(3), addr(4))...)
	}
	waitHeight(t, ix, 310)
	eventually(t, "the new branch", func() bool { return ix.Count() == 310 })
	checkConsistent(t, ix, chain)
}

func TestSourceFaultsAreRetried(t *testing.T) {
	chain := NewMemChain()
	chain.FailNext(5)
	for i := 1; i <= 3; i++ {
		chain.AddBlock(transfers(addr(1), addr(2))...)
	}
	ix := startMem(t, chain)
	waitHeight(t, ix, 3)
	chain.FailNext(3)
	chain.AddBlock(transfers(addr(1), addr(2))...)
	waitHeight(t, ix, 4)
	checkConsistent(t, ix, chain)
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	chain, _ := sampleChain(20)
	tr := &http.Transport{}
	hc := &http.Client{Transport: tr}
	ix, err := NewFromSource(t.Context(), chain, WithPollInterval(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	waitHeight(t, ix, 20)
	for range 5 {
		resp, err := hc.Get(ix.URL() + "/indexer/tx/v1/evm-txs")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if err := ix.WaitHeight(t.Context(), 100); err != ErrClosed {
		t.Fatalf("WaitHeight after Close: %v", err)
	}
	tr.CloseIdleConnections()
	eventually(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}
