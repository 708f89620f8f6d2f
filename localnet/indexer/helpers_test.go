package indexer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

func startMem(t testing.TB, chain *MemChain, opts ...Option) *Indexer {
	t.Helper()
	opts = append([]Option{WithPollInterval(5 * time.Millisecond)}, opts...)
	ix, err := NewFromSource(context.Background(), chain, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

func waitHeight(t testing.TB, ix *Indexer, h uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ix.WaitHeight(ctx, h); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond for up to 10s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type reply struct {
	status int
	ctype  string
	body   string
}

func get(t testing.TB, base, pathAndQuery string) reply {
	t.Helper()
	resp, err := http.Get(base + pathAndQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}
}

func getPage(t testing.TB, base, pathAndQuery string) api.Page {
	t.Helper()
	r := get(t, base, pathAndQuery)
	if r.status != http.StatusOK || r.ctype != "application/json" {
		t.Fatalf("GET %s: %d %s %s", pathAndQuery, r.status, r.ctype, r.body)
	}
	var p api.Page
	if err := json.Unmarshal([]byte(r.body), &p); err != nil {
		t.Fatalf("GET %s: %v", pathAndQuery, err)
	}
	return p
}

// walk follows next_key from params until a short or empty page, as a client must.
func walk(t testing.TB, base, path string, params url.Values, limit int) (txs []api.EVMTx, pages int) {
	t.Helper()
	params.Set("pagination.limit", strconv.Itoa(limit))
	for pages < 100000 {
		p := getPage(t, base, path+"?"+params.Encode())
		pages++
		txs = append(txs, p.Txs...)
		if len(p.Txs) < limit {
			if len(p.Txs) > 0 && p.Pagination.NextKey == nil {
				t.Fatalf("non-empty last page without next_key")
			}
			return txs, pages
		}
		params.Set("pagination.key", *p.Pagination.NextKey)
	}
	t.Fatal("walk does not end")
	return nil, 0
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func hashes(txs []api.EVMTx) []string {
	out := make([]string, len(txs))
	for i, tx := range txs {
		out[i] = tx.TxHash
	}
	return out
}

// involved reports the accounts rollytics files a receipt under, computed independently of
// the store: from, to, contract, log emitters and address-shaped topics after the first.
func involved(r api.EVMTx) map[common.Address]bool {
	m := map[common.Address]bool{common.HexToAddress(r.From): true}
	if r.To != "" {
		m[common.HexToAddress(r.To)] = true
	}
	if r.ContractAddress != nil {
		m[common.HexToAddress(*r.ContractAddress)] = true
	}
	for _, l := range r.Logs {
		m[common.HexToAddress(l.Address)] = true
		for i, tp := range l.Topics {
			if i > 0 && strings.HasPrefix(tp, "0x000000000000000000000000") {
				m[common.HexToAddress(tp)] = true
			}
		}
	}
	return m
}
