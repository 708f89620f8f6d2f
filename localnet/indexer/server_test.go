package indexer

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

var (
	alice  = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	bob    = common.HexToAddress("0xb0b0000000000000000000000000000000000b0b")
	carol  = common.HexToAddress("0xCa401000000000000000000000000000000ca401")
	dave   = common.HexToAddress("0xdA7e00000000000000000000000000000000da7e") // only ever in a log topic
	logger = common.HexToAddress("0x1099e20000000000000000000000000000001099")
	pingID = crypto.Keccak256Hash([]byte("Ping(address,bytes)"))
)

// sampleChain builds blocks 1..n of transfers, logged calls, contract creations, failures
// and empty blocks, and returns every receipt in chain order.
func sampleChain(n int) (*MemChain, []api.EVMTx) {
	m := NewMemChain()
	for i := 1; i <= n; i++ {
		var txs []MemTx
		if i%11 != 0 {
			txs = append(txs, MemTx{From: alice, To: &bob})
			if i%3 == 0 {
				txs = append(txs, MemTx{From: bob, To: &logger, GasUsed: 30000, Logs: []MemLog{{
					Address: logger, Topics: []common.Hash{pingID, common.BytesToHash(dave.Bytes())}, Data: []byte("hi"),
				}}})
			}
			if i%5 == 0 {
				txs = append(txs, MemTx{From: carol, GasUsed: 90000})
			}
			if i%7 == 0 {
				txs = append(txs, MemTx{From: dave, To: &alice, Failed: true})
			}
		}
		m.AddBlock(txs...)
	}
	return m, allReceipts(m)
}

func allReceipts(m *MemChain) []api.EVMTx {
	var out []api.EVMTx
	for n := uint64(1); ; n++ {
		_, rs, ok := m.Block(n)
		if !ok {
			return out
		}
		out = append(out, rs...)
	}
}

func reversed[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func TestListDefaultsAndExactJSON(t *testing.T) {
	chain, all := sampleChain(120)
	ix := startMem(t, chain)
	waitHeight(t, ix, 120)
	if len(all) < 150 {
		t.Fatalf("sample too small: %d", len(all))
	}
	r := get(t, ix.URL(), "/indexer/tx/v1/evm-txs")
	if r.status != 200 || r.ctype != "application/json" {
		t.Fatalf("%d %s %s", r.status, r.ctype, r.body)
	}
	// Newest first, 100 rows, a sequence cursor of the last row, no previous key, and a
	// decimal total: byte for byte the binding types' encoding.
	want := reversed(all)[:100]
	next := api.SequenceKey(int64(len(all) - 99))
	exp, _ := json.Marshal(api.Page{Txs: want, Pagination: api.Pagination{NextKey: &next, Total: fmt.Sprint(len(all))}})
	if r.body != string(exp) {
		t.Fatalf("body differs:\n got %.300s\nwant %.300s", r.body, exp)
	}
	if !strings.Contains(r.body, `"previous_key":null`) || !strings.HasSuffix(r.body, `"total":"`+fmt.Sprint(len(all))+`"}}`) {
		t.Fatalf("pagination shape: %s", r.body[len(r.body)-200:])
	}
}

func TestWalkCoversEveryTxExactlyOnce(t *testing.T) {
	chain, all := sampleChain(60)
	ix := startMem(t, chain)
	waitHeight(t, ix, 60)

	filter := func(keep func(api.EVMTx) bool) []api.EVMTx {
		var out []api.EVMTx
		for _, r := range all {
			if keep(r) {
				out = append(out, r)
			}
		}
		return out
	}
	byAcct := func(a common.Address) []api.EVMTx {
		return filter(func(r api.EVMTx) bool { return involved(r)[a] })
	}
	endpoints := []struct {
		name, path string
		want       []api.EVMTx
	}{
		{"all", "/indexer/tx/v1/evm-txs", all},
		{"alice", "/indexer/tx/v1/evm-txs/by_account/" + alice.Hex(), byAcct(alice)},
		{"dave topic", "/indexer/tx/v1/evm-txs/by_account/" + dave.Hex(), byAcct(dave)},
		{"logger", "/indexer/tx/v1/evm-txs/by_account/" + logger.Hex(), byAcct(logger)},
		{"height 30", "/indexer/tx/v1/evm-txs/by_height/30", filter(func(r api.EVMTx) bool { return r.BlockNumber == "0x1e" })},
		{"empty height 33", "/indexer/tx/v1/evm-txs/by_height/33", nil},
	}
	for _, ep := range endpoints {
		n := len(ep.want)
		for _, limit := range []int{1, 3, 7, max(n, 1), max(n/2, 1), 1000} {
			for _, asc := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/limit=%d/asc=%v", ep.name, limit, asc), func(t *testing.T) {
					params := url.Values{}
					if asc {
						params.Set("pagination.reverse", "false")
					}
					got, pages := walk(t, ix.URL(), ep.path, params, limit)
					want := ep.want
					if !asc {
						want = reversed(want)
					}
					if !slices.Equal(hashes(got), hashes(want)) {
						t.Fatalf("got %d txs, want %d (or order differs)", len(got), len(want))
					}
					// A client sees every page full but the last, which is short or empty.
					if wantPages := n/limit + 1; pages != wantPages {
						t.Fatalf("%d pages, want %d", pages, wantPages)
					}
				})
			}
		}
		p := getPage(t, ix.URL(), ep.path)
		if p.Pagination.Total != fmt.Sprint(len(ep.want)) {
			t.Fatalf("%s: total %s, want %d", ep.name, p.Pagination.Total, len(ep.want))
		}
		p = getPage(t, ix.URL(), ep.path+"?pagination.count_total=false")
		if p.Pagination.Total != "0" {
			t.Fatalf("%s: total %s with count_total=false", ep.name, p.Pagination.Total)
		}
	}
}

func TestPagingModes(t *testing.T) {
	chain, all := sampleChain(30)
	ix := startMem(t, chain)
	waitHeight(t, ix, 30)
	n := len(all)
	seqKey := func(seq int) *string { k := api.SequenceKey(int64(seq)); return &k }
	strp := func(s string) *string { return &s }
	// seq of all[i] is i+1.
	cases := []struct {
		name       string
		query      string
		want       []int // indexes into all
		next, prev *string
	}{
		{"offset desc", "pagination.offset=5&pagination.limit=3", []int{n - 6, n - 7, n - 8}, seqKey(n - 7), nil},
		{"offset asc", "pagination.offset=5&pagination.limit=3&pagination.reverse=false", []int{5, 6, 7}, seqKey(8), nil},
		{"offset tail is short and still keyed", "pagination.offset=" + fmt.Sprint(n-2) + "&pagination.limit=5&pagination.reverse=false", []int{n - 2, n - 1}, seqKey(n), nil},
		{"offset past the end", "pagination.offset=500&pagination.limit=10", nil, nil, strp(b64("490"))},
		{"integer key is an offset and beats pagination.offset", "pagination.key=" + url.QueryEscape(b64("4")) + "&pagination.offset=9&pagination.limit=2&pagination.reverse=false", []int{4, 5}, seqKey(6), nil},
		{"cursor desc ignores offset", "pagination.key=" + url.QueryEscape(api.SequenceKey(10)) + "&pagination.offset=3&pagination.limit=4", []int{8, 7, 6, 5}, seqKey(6), nil},
		{"cursor asc", "pagination.key=" + url.QueryEscape(api.SequenceKey(10)) + "&pagination.limit=2&pagination.reverse=false", []int{10, 11}, seqKey(12), nil},
		{"cursor at the start desc", "pagination.key=" + url.QueryEscape(api.SequenceKey(1)), nil, nil, nil},
		{"cursor past the end asc", "pagination.key=" + url.QueryEscape(api.SequenceKey(int64(n))) + "&pagination.reverse=false", nil, nil, nil},
		{"cursor from far below asc", "pagination.key=" + url.QueryEscape(api.SequenceKey(-5)) + "&pagination.limit=1&pagination.reverse=false", []int{0}, seqKey(1), nil},
		{"reverse accepts 1/0", "pagination.reverse=0&pagination.limit=1", []int{0}, seqKey(1), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := getPage(t, ix.URL(), "/indexer/tx/v1/evm-txs?"+c.query)
			var want []string
			for _, i := range c.want {
				want = append(want, all[i].TxHash)
			}
			if !slices.Equal(hashes(p.Txs), want) {
				t.Fatalf("txs %v, want %v", hashes(p.Txs), want)
			}
			if p.Txs == nil {
				t.Fatal("txs decoded as null, want []")
			}
			if !eqPtr(p.Pagination.NextKey, c.next) || !eqPtr(p.Pagination.PreviousKey, c.prev) {
				t.Fatalf("keys next=%v prev=%v, want next=%v prev=%v", deref(p.Pagination.NextKey), deref(p.Pagination.PreviousKey), deref(c.next), deref(c.prev))
			}
		})
	}
}

func eqPtr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

func TestByAccountForms(t *testing.T) {
	chain, all := sampleChain(40)
	ix := startMem(t, chain)
	waitHeight(t, ix, 40)
	var created common.Address
	for _, r := range all {
		if r.ContractAddress != nil {
			created = common.HexToAddress(*r.ContractAddress)
			break
		}
	}
	bech, err := bech32.ConvertAndEncode("init", carol.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	count := func(keep func(api.EVMTx) bool) int {
		n := 0
		for _, r := range all {
			if keep(r) {
				n++
			}
		}
		return n
	}
	of := func(a common.Address) int { return count(func(r api.EVMTx) bool { return involved(r)[a] }) }
	cases := []struct {
		name, account, query string
		want                 int
	}{
		{"checksummed hex", carol.Hex(), "", of(carol)},
		{"lowercase hex", strings.ToLower(carol.Hex()), "", of(carol)},
		{"no 0x", strings.ToLower(carol.Hex())[2:], "", of(carol)},
		{"bech32", bech, "", of(carol)},
		{"leading zeros dropped", "0xa11ce", "", of(alice)},
		{"32-byte padded form", "0x000000000000000000000000" + strings.ToLower(alice.Hex())[2:], "", of(alice)},
		{"topic-only account", dave.Hex(), "", of(dave)},
		{"created contract", created.Hex(), "", 1},
		{"log emitter", logger.Hex(), "", of(logger)},
		{"signer only", bob.Hex(), "is_signer=true", count(func(r api.EVMTx) bool { return common.HexToAddress(r.From) == bob })},
		{"signer only, an account that never signs", logger.Hex(), "is_signer=true", 0},
		{"is_signer must be exactly true", bob.Hex(), "is_signer=1", of(bob)},
		{"unknown account", "0x00000000000000000000000000000000deadbeef", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := "pagination.limit=1000&" + c.query
			p := getPage(t, ix.URL(), "/indexer/tx/v1/evm-txs/by_account/"+c.account+"?"+q)
			if len(p.Txs) != c.want || p.Pagination.Total != fmt.Sprint(c.want) {
				t.Fatalf("%d txs, total %s; want %d", len(p.Txs), p.Pagination.Total, c.want)
			}
		})
	}
	r := get(t, ix.URL(), "/indexer/tx/v1/evm-txs/by_account/0x00000000000000000000000000000000deadbeef")
	if r.body != `{"txs":[],"pagination":{"previous_key":null,"next_key":null,"total":"0"}}` {
		t.Fatalf("unknown account body %s", r.body)
	}
}

func TestByHeightAndHash(t *testing.T) {
	chain, all := sampleChain(30)
	ix := startMem(t, chain)
	waitHeight(t, ix, 30)
	for h := uint64(1); h <= 31; h++ {
		_, rs, _ := chain.Block(h)
		p := getPage(t, ix.URL(), fmt.Sprintf("/indexer/tx/v1/evm-txs/by_height/%d?pagination.reverse=false", h))
		if !slices.Equal(hashes(p.Txs), hashes(rs)) || p.Pagination.Total != fmt.Sprint(len(rs)) {
			t.Fatalf("height %d: %v, want %v", h, hashes(p.Txs), hashes(rs))
		}
	}
	for _, r := range all[:10] {
		body, _ := json.Marshal(api.TxResponse{Tx: r})
		for _, form := range []string{r.TxHash, r.TxHash[2:], "0x" + strings.ToUpper(r.TxHash[2:])} {
			got := get(t, ix.URL(), "/indexer/tx/v1/evm-txs/"+form)
			if got.status != 200 || got.ctype != "application/json" || got.body != string(body) {
				t.Fatalf("GET tx %s: %d %s", form, got.status, got.body)
			}
		}
	}
}

func TestErrorsArePlainText(t *testing.T) {
	chain, _ := sampleChain(5)
	ix := startMem(t, chain)
	waitHeight(t, ix, 5)
	lenient := startMem(t, chain, WithLenientQuery())
	waitHeight(t, lenient, 5)
	const list = "/indexer/tx/v1/evm-txs"
	limitMsg := "pagination.limit must be between 1 and 1000"
	cases := []struct {
		name, path   string
		status       int
		body         string
		lenientState int // status under WithLenientQuery
	}{
		{"limit 0", list + "?pagination.limit=0", 400, limitMsg, 400},
		{"limit 1001", list + "?pagination.limit=1001", 400, limitMsg, 400},
		{"limit negative", list + "?pagination.limit=-3", 400, limitMsg, 400},
		{"limit not a number", list + "?pagination.limit=ten", 400, limitMsg, 200},
		{"limit float", list + "?pagination.limit=1.5", 400, limitMsg, 200},
		{"offset negative", list + "?pagination.offset=-1", 400, "pagination.offset cannot be negative", 400},
		{"offset not a number", list + "?pagination.offset=x", 400, "pagination.offset must be a non-negative integer", 200},
		{"reverse not a bool", list + "?pagination.reverse=maybe", 400, "pagination.reverse must be a boolean", 200},
		{"count_total not a bool", list + "?pagination.count_total=2", 400, "pagination.count_total must be a boolean", 200},
		{"key not base64", list + "?pagination.key=%21%21", 400, "pagination.key must be a valid base64 encoded string", 400},
		{"key not a number", list + "?pagination.key=" + url.QueryEscape(b64("abc")), 400, "pagination.key must decode to a nonnegative integer", 400},
		{"key negative", list + "?pagination.key=" + url.QueryEscape(b64("-4")), 400, "pagination.key must decode to a nonnegative integer", 400},
		{"key broken json", list + "?pagination.key=" + url.QueryEscape(b64("{nope")), 400, "invalid pagination.key format", 400},
		{"key json without sequence", list + "?pagination.key=" + url.QueryEscape(b64(`{"height":3}`)), 400, `pagination.key must hold {"sequence":N} or an offset`, 200},
		{"key sequence not integer", list + "?pagination.key=" + url.QueryEscape(b64(`{"sequence":"7"}`)), 400, `pagination.key must hold {"sequence":N} or an offset`, 200},
		{"limit checked before the rest", list + "?pagination.limit=0&pagination.offset=-1", 400, limitMsg, 400},
		{"height not a number", list + "/by_height/abc", 400, "[INVALID_VALUE] invalid value for height: abc (must be a valid integer)", 400},
		{"height zero", list + "/by_height/0", 400, "[INVALID_VALUE] invalid value for height: 0 (must be a positive integer)", 400},
		{"height negative", list + "/by_height/-2", 400, "[INVALID_VALUE] invalid value for height: -2 (must be a positive integer)", 400},
		{"height before paging", list + "/by_height/x?pagination.limit=0", 400, "[INVALID_VALUE] invalid value for height: x (must be a valid integer)", 400},
		{"height then paging", list + "/by_height/3?pagination.limit=0", 400, limitMsg, 400},
		{"account not hex", list + "/by_account/zz", 400, "[INVALID_VALUE] invalid value for account: zz (invalid address format)", 400},
		{"account too long", list + "/by_account/0x" + strings.Repeat("1", 65), 400, "[INVALID_VALUE] invalid value for account: 0x" + strings.Repeat("1", 65) + " (invalid address format)", 400},
		{"account wrong bech32 prefix", list + "/by_account/cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu", 400, "[INVALID_VALUE] invalid value for account: cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu (invalid address format)", 400},
		{"account then paging", list + "/by_account/0x1?pagination.reverse=x", 400, "pagination.reverse must be a boolean", 200},
		{"hash not hex", list + "/nothex", 400, "invalid hash format", 400},
		{"by_account without account", list + "/by_account", 400, "invalid hash format", 400},
		{"unknown hash", list + "/0x" + strings.Repeat("ab", 32), 404, "tx not found", 404},
		{"short hash", list + "/0x1234", 404, "tx not found", 404},
		{"unknown route", "/indexer/tx/v1/nope", 404, "Cannot GET /indexer/tx/v1/nope", 404},
		{"deeper unknown route", list + "/by_height/1/extra", 404, "Cannot GET /indexer/tx/v1/evm-txs/by_height/1/extra", 404},
		{"internal txs are off", "/indexer/tx/v1/evm-internal-txs", 404, api.NoEVMMessage, 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := get(t, ix.URL(), c.path)
			if r.status != c.status || r.body != c.body || r.ctype != "text/plain; charset=utf-8" {
				t.Fatalf("got %d %q %q, want %d %q text/plain", r.status, r.ctype, r.body, c.status, c.body)
			}
			if l := get(t, lenient.URL(), c.path); l.status != c.lenientState {
				t.Fatalf("lenient: got %d %s, want %d", l.status, l.body, c.lenientState)
			}
		})
	}
	req, _ := http.NewRequest(http.MethodPost, ix.URL()+list, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", resp.StatusCode)
	}
}

func TestLenientKeysFallBackToOffsets(t *testing.T) {
	chain, all := sampleChain(10)
	ix := startMem(t, chain, WithLenientQuery())
	waitHeight(t, ix, 10)
	n := len(all)
	// A JSON key without sequence or height switches rollytics to offset paging: the keys
	// are decimal offsets and previous_key appears.
	p := getPage(t, ix.URL(), "/indexer/tx/v1/evm-txs?pagination.limit=2&pagination.offset=4&pagination.key="+url.QueryEscape(b64(`{"x":1}`)))
	if !slices.Equal(hashes(p.Txs), []string{all[n-5].TxHash, all[n-6].TxHash}) {
		t.Fatalf("rows %v", hashes(p.Txs))
	}
	if deref(p.Pagination.NextKey) != b64("6") || deref(p.Pagination.PreviousKey) != b64("2") {
		t.Fatalf("keys %s %s", deref(p.Pagination.NextKey), deref(p.Pagination.PreviousKey))
	}
	// A height key keeps the sequence cursor in the reply but pages by offset.
	p = getPage(t, ix.URL(), "/indexer/tx/v1/evm-txs?pagination.limit=2&pagination.offset=1&pagination.key="+url.QueryEscape(b64(`{"height":1}`)))
	if !slices.Equal(hashes(p.Txs), []string{all[n-2].TxHash, all[n-3].TxHash}) || deref(p.Pagination.NextKey) != api.SequenceKey(int64(n-2)) {
		t.Fatalf("rows %v next %s", hashes(p.Txs), deref(p.Pagination.NextKey))
	}
	// Unparsable numbers become defaults.
	p = getPage(t, ix.URL(), "/indexer/tx/v1/evm-txs?pagination.limit=lots&pagination.reverse=nah")
	if len(p.Txs) != min(n, 100) || p.Txs[0].TxHash != all[n-1].TxHash {
		t.Fatalf("defaults not applied: %d rows", len(p.Txs))
	}
}

func TestNoEVM(t *testing.T) {
	ix := startMem(t, nil, WithNoEVM())
	for _, path := range []string{
		"/indexer/tx/v1/evm-txs", "/indexer/tx/v1/evm-txs/", "/indexer/tx/v1/evm-txs?pagination.limit=0",
		"/indexer/tx/v1/evm-txs/by_account/0x1", "/indexer/tx/v1/evm-txs/by_height/1",
		"/indexer/tx/v1/evm-txs/0x" + strings.Repeat("ab", 32),
	} {
		r := get(t, ix.URL(), path)
		if r.status != 404 || r.body != api.NoEVMMessage || r.ctype != "text/plain; charset=utf-8" {
			t.Fatalf("%s: %d %q %q", path, r.status, r.ctype, r.body)
		}
	}
	// WithNoEVM needs no chain at all.
	ix2, err := New(t.Context(), "", WithNoEVM())
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if r := get(t, ix2.URL(), "/indexer/tx/v1/evm-txs"); r.status != 404 {
		t.Fatalf("%d", r.status)
	}
}

func TestListenOnlyOnLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "example.com:0"} {
		if _, err := NewFromSource(t.Context(), NewMemChain(), WithAddr(addr)); err == nil {
			t.Fatalf("%s accepted", addr)
		}
	}
	ix := startMem(t, NewMemChain(), WithAddr("127.0.0.1:0"))
	if !strings.HasPrefix(ix.URL(), "http://127.0.0.1:") {
		t.Fatal(ix.URL())
	}
}
