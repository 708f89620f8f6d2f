package indexer

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

// update is -update. gotest.tools (linked into this test binary through the Cosmos SDK's
// testutil) registers a flag of that name too: share it rather than define it twice, which
// panics before any test runs.
var update = sharedBoolFlag("update", "rewrite fixtures/indexer/golden_responses.json")

func sharedBoolFlag(name, usage string) func() bool {
	if f := flag.Lookup(name); f != nil {
		return func() bool { v, _ := strconv.ParseBool(f.Value.String()); return v }
	}
	b := flag.Bool(name, false, usage)
	return func() bool { return *b }
}

const goldenFile = "../../fixtures/indexer/golden_responses.json"

// goldenEntry is one request and the stand-in's exact reply. Body is the JSON reply, or
// Text the plain-text one.
type goldenEntry struct {
	Request     string          `json:"request"`
	Status      int             `json:"status"`
	ContentType string          `json:"content_type"`
	Body        json.RawMessage `json:"body,omitempty"`
	Text        string          `json:"text,omitempty"`
}

// TestGoldenResponses pins the wire format against fixtures/indexer/golden_responses.json,
// built from a small deterministic chain (go test -run Golden -update rewrites it).
func TestGoldenResponses(t *testing.T) {
	chain, all := sampleChain(5)
	ix := startMem(t, chain)
	waitHeight(t, ix, 5)
	noEVM := startMem(t, nil, WithNoEVM())
	key := url.QueryEscape(api.SequenceKey(3))
	requests := []string{
		"/indexer/tx/v1/evm-txs?pagination.limit=2",
		"/indexer/tx/v1/evm-txs?pagination.limit=2&pagination.reverse=false&pagination.key=" + key,
		"/indexer/tx/v1/evm-txs?pagination.offset=20&pagination.limit=5",
		"/indexer/tx/v1/evm-txs?pagination.count_total=false&pagination.limit=1",
		"/indexer/tx/v1/evm-txs/by_account/" + dave.Hex(),
		"/indexer/tx/v1/evm-txs/by_height/5",
		"/indexer/tx/v1/evm-txs/" + all[0].TxHash,
		"/indexer/tx/v1/evm-txs/0x" + "00000000000000000000000000000000000000000000000000000000000000ff",
		"/indexer/tx/v1/evm-txs?pagination.limit=1001",
		"/indexer/tx/v1/evm-txs/by_height/0",
		"no-evm /indexer/tx/v1/evm-txs",
	}
	var got []goldenEntry
	for _, req := range requests {
		base, path := ix.URL(), req
		if p, ok := strings.CutPrefix(req, "no-evm "); ok {
			base, path = noEVM.URL(), p
		}
		r := get(t, base, path)
		e := goldenEntry{Request: req, Status: r.status, ContentType: r.ctype}
		if r.ctype == "application/json" {
			e.Body = json.RawMessage(r.body)
		} else {
			e.Text = r.body
		}
		got = append(got, e)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	if update() {
		if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update)", err)
	}
	if !bytes.Equal(out, want) {
		t.Fatalf("replies differ from %s; run go test -run Golden -update and review the diff", goldenFile)
	}
}
