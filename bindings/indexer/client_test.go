package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/bindings/indexer"
	standin "github.com/vipharness/vipharness/localnet/indexer"
)

var (
	alice = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	bob   = common.HexToAddress("0x00000000000000000000000000000000000000b0")
	topic = common.HexToHash("0x1234")
)

// chainOf builds blocks 1..blocks of perBlock transactions each: alice pays bob, and every
// third transaction bob calls a logger whose log names alice in a topic.
func chainOf(blocks, perBlock int) (*standin.MemChain, []indexer.EVMTx) {
	m := standin.NewMemChain()
	logger := common.HexToAddress("0x00000000000000000000000000000000000010ff")
	k := 0
	for range blocks {
		txs := make([]standin.MemTx, perBlock)
		for i := range txs {
			txs[i] = standin.MemTx{From: alice, To: &bob}
			if k%3 == 0 {
				txs[i] = standin.MemTx{From: bob, To: &logger, Logs: []standin.MemLog{{Address: logger, Topics: []common.Hash{topic, common.BytesToHash(alice.Bytes())}}}}
			}
			k++
		}
		m.AddBlock(txs...)
	}
	var all []indexer.EVMTx
	for n := uint64(1); ; n++ {
		_, rs, ok := m.Block(n)
		if !ok {
			return m, all
		}
		all = append(all, rs...)
	}
}

// countingTransport counts requests and can fail the nth one.
type countingTransport struct {
	n      atomic.Int32
	failAt int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if n := c.n.Add(1); n == c.failAt {
		return nil, errors.New("connection reset (injected)")
	}
	return http.DefaultTransport.RoundTrip(r)
}

func serve(t *testing.T, chain *standin.MemChain, blocks uint64, opts ...standin.Option) *standin.Indexer {
	t.Helper()
	ix, err := standin.NewFromSource(t.Context(), chain, append([]standin.Option{standin.WithPollInterval(2 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	if blocks == 0 {
		return ix
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := ix.WaitHeight(ctx, blocks); err != nil {
		t.Fatal(err)
	}
	return ix
}

func client(t *testing.T, base string, tr http.RoundTripper) *indexer.Client {
	t.Helper()
	c, err := indexer.NewClient(base, indexer.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func txHashes(txs []indexer.EVMTx) []string {
	out := make([]string, len(txs))
	for i, tx := range txs {
		out[i] = tx.TxHash
	}
	return out
}

func reversedHashes(txs []indexer.EVMTx) []string {
	h := txHashes(txs)
	slices.Reverse(h)
	return h
}

func TestClientEndpoints(t *testing.T) {
	chain, all := chainOf(50, 5)
	ix := serve(t, chain, 50)
	c := client(t, ix.URL()+"/", http.DefaultTransport)
	ctx := t.Context()

	p, err := c.EVMTxs(ctx, indexer.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Txs) != 100 || p.Txs[0].TxHash != all[249].TxHash || p.Pagination.Total != "250" || p.Pagination.PreviousKey != nil {
		t.Fatalf("default page: %d txs, total %s", len(p.Txs), p.Pagination.Total)
	}
	if seq, err := indexer.ParseSequenceKey(*p.Pagination.NextKey); err != nil || seq != 151 {
		t.Fatalf("next_key sequence %d (%v), want 151", seq, err)
	}
	if n, _ := p.Pagination.TotalCount(); n != 250 {
		t.Fatal(n)
	}
	p, err = c.EVMTxs(ctx, indexer.Query{Limit: 3, Ascending: true, Offset: 10, SkipTotal: true})
	if err != nil || !slices.Equal(txHashes(p.Txs), txHashes(all[10:13])) || p.Pagination.Total != "0" {
		t.Fatalf("offset page: %v %v", txHashes(p.Txs), err)
	}

	p, err = c.EVMTxsByHeight(ctx, 7, indexer.Query{Ascending: true})
	_, block7, _ := chain.Block(7)
	if err != nil || !slices.Equal(txHashes(p.Txs), txHashes(block7)) {
		t.Fatalf("by height: %v %v", txHashes(p.Txs), err)
	}
	if h, _ := p.Txs[0].Height(); h != 7 || !p.Txs[0].Succeeded() {
		t.Fatalf("height %d", h)
	}

	// alice signs two thirds of the txs and is named in the logs of the rest.
	p, err = c.EVMTxsByAccount(ctx, alice.Hex(), indexer.Query{Limit: 1000})
	if err != nil || len(p.Txs) != 250 {
		t.Fatalf("by account: %d %v", len(p.Txs), err)
	}
	p, err = c.EVMTxsByAccount(ctx, strings.ToLower(alice.Hex()), indexer.Query{Limit: 1000, SignerOnly: true})
	if err != nil || len(p.Txs) != 250-84 {
		t.Fatalf("by account, signer only: %d %v", len(p.Txs), err)
	}

	tx, err := c.EVMTx(ctx, all[42].TxHash)
	if err != nil || tx.TxHash != all[42].TxHash || tx.From != all[42].From {
		t.Fatalf("by hash: %+v %v", tx, err)
	}
	if g, _ := tx.GasUsedUint(); g != 21000 {
		t.Fatalf("gas %d", g)
	}
	_, err = c.EVMTx(ctx, "0x"+strings.Repeat("0", 64))
	var he *indexer.HTTPError
	if !indexer.IsNotFound(err) || indexer.IsNoEVM(err) || !errors.As(err, &he) || he.Body != indexer.TxNotFoundMessage {
		t.Fatalf("unknown hash: %v", err)
	}
	for _, q := range []indexer.Query{{Limit: -1}, {Limit: 1001}} {
		_, err = c.EVMTxs(ctx, q)
		if !indexer.IsBadRequest(err) || !errors.As(err, &he) || he.Body != "pagination.limit must be between 1 and 1000" {
			t.Fatalf("limit %d: %v", q.Limit, err)
		}
	}
	_, err = c.EVMTxsByAccount(ctx, "not-an-address", indexer.Query{})
	if !indexer.IsBadRequest(err) || !strings.Contains(err.Error(), "invalid value for account") || !strings.Contains(err.Error(), "400 Bad Request") {
		t.Fatalf("bad account: %v", err)
	}

	noEVM := serve(t, nil, 0, standin.WithNoEVM())
	_, err = client(t, noEVM.URL(), http.DefaultTransport).EVMTxs(ctx, indexer.Query{})
	if !indexer.IsNoEVM(err) || !indexer.IsNotFound(err) {
		t.Fatalf("no evm: %v", err)
	}
}

func TestIteratorWalksEveryTxInEitherDirection(t *testing.T) {
	chain, all := chainOf(50, 5) // 250 txs
	ix := serve(t, chain, 50)
	for _, limit := range []int{0, 1, 7, 50, 100, 125, 250, 1000} {
		for _, asc := range []bool{true, false} {
			t.Run(fmt.Sprintf("limit=%d/asc=%v", limit, asc), func(t *testing.T) {
				tr := &countingTransport{}
				c := client(t, ix.URL(), tr)
				var got []indexer.EVMTx
				for tx, err := range c.AllEVMTxs(t.Context(), indexer.Query{Limit: limit, Ascending: asc}) {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, tx)
				}
				want := slices.Clone(all)
				if !asc {
					slices.Reverse(want)
				}
				if !slices.Equal(txHashes(got), txHashes(want)) {
					t.Fatalf("%d txs, want %d (or order differs)", len(got), len(want))
				}
				// The service's last page still carries a next_key: the walk stops on a short
				// page, and needs one empty page only when the last one is full.
				eff := limit
				if eff == 0 {
					eff = indexer.DefaultLimit
				}
				if want := int32(250/eff + 1); tr.n.Load() != want {
					t.Fatalf("%d requests, want %d", tr.n.Load(), want)
				}
			})
		}
	}
	// By account and by height, from a starting key.
	c := client(t, ix.URL(), http.DefaultTransport)
	var got []string
	for tx, err := range c.AllEVMTxsByAccount(t.Context(), alice.Hex(), indexer.Query{Limit: 9, Ascending: true, Key: indexer.SequenceKey(200)}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tx.TxHash)
	}
	if !slices.Equal(got, txHashes(all[200:])) {
		t.Fatalf("by account from key: %d txs", len(got))
	}
	got = got[:0]
	for tx, err := range c.AllEVMTxsByHeight(t.Context(), 3, indexer.Query{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tx.TxHash)
	}
	if _, b3, _ := chain.Block(3); !slices.Equal(got, reversedHashes(b3)) {
		t.Fatalf("by height: %v", got)
	}
}

func TestIteratorStopsAndFails(t *testing.T) {
	chain, _ := chainOf(10, 10)
	ix := serve(t, chain, 10)

	tr := &countingTransport{}
	c := client(t, ix.URL(), tr)
	n := 0
	for _, err := range c.AllEVMTxs(t.Context(), indexer.Query{Limit: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 7 {
			break
		}
	}
	if tr.n.Load() != 2 {
		t.Fatalf("%d requests after breaking at the 7th tx", tr.n.Load())
	}

	tr = &countingTransport{failAt: 3}
	c = client(t, ix.URL(), tr)
	n, errs := 0, 0
	for _, err := range c.AllEVMTxs(t.Context(), indexer.Query{Limit: 10}) {
		if err != nil {
			errs++
			continue
		}
		n++
	}
	if n != 20 || errs != 1 {
		t.Fatalf("%d txs and %d errors, want 20 and 1", n, errs)
	}

	// A server that hands back the key it was given would loop forever.
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := r.URL.Query().Get("pagination.key")
		if k == "" {
			k = indexer.SequenceKey(5)
		}
		fmt.Fprintf(w, `{"txs":[{"transactionHash":"0x1"}],"pagination":{"previous_key":null,"next_key":%q,"total":"9"}}`, k)
	}))
	defer stuck.Close()
	c = client(t, stuck.URL, http.DefaultTransport)
	n, errs = 0, 0
	for _, err := range c.AllEVMTxs(t.Context(), indexer.Query{Limit: 1}) {
		if err != nil {
			errs++
			if !strings.Contains(err.Error(), "repeats") {
				t.Fatal(err)
			}
			continue
		}
		n++
	}
	if n != 2 || errs != 1 {
		t.Fatalf("stuck server: %d txs, %d errors", n, errs)
	}

	// A 200 that is not JSON is an error, not an empty page.
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>") }))
	defer html.Close()
	if _, err := client(t, html.URL, http.DefaultTransport).EVMTxs(t.Context(), indexer.Query{}); err == nil || !strings.Contains(err.Error(), "decode") {
		t.Fatalf("html reply: %v", err)
	}
}

func TestNewClientRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:8080", "ftp://x", "http://", "::"} {
		if _, err := indexer.NewClient(u); err == nil {
			t.Fatalf("%q accepted", u)
		}
	}
}

func TestSequenceKeys(t *testing.T) {
	for _, seq := range []int64{0, 1, 151, 1 << 40, -3} {
		if got, err := indexer.ParseSequenceKey(indexer.SequenceKey(seq)); err != nil || got != seq {
			t.Fatalf("%d: %d %v", seq, got, err)
		}
	}
	if indexer.SequenceKey(5) != "eyJzZXF1ZW5jZSI6NX0=" {
		t.Fatal(indexer.SequenceKey(5))
	}
	for _, k := range []string{"!!", "MTA=", "eyJoZWlnaHQiOjF9"} { // not base64, "10", {"height":1}
		if _, err := indexer.ParseSequenceKey(k); err == nil {
			t.Fatalf("%q parsed", k)
		}
	}
}
