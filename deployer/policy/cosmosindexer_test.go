package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/indexer"
)

// fakeIndexer serves a fixed chain's Cosmos txs (oldest first by offset and by sequence
// cursor) and blocks, as the service pages them.
func fakeIndexer(t *testing.T, txs []indexer.Tx, head int64) *indexer.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case r.URL.Path == indexer.PathStatus:
			_ = json.NewEncoder(w).Encode(indexer.Status{Height: head})
		case strings.HasPrefix(r.URL.Path, indexer.PathBlocks+"/"):
			h, _ := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, indexer.PathBlocks+"/"), 10, 64)
			if h < 1 || h > head {
				http.Error(w, indexer.BlockNotFound, http.StatusNotFound)
				return
			}
			ts := time.Unix(1000*h, 0).UTC().Format(time.RFC3339)
			_ = json.NewEncoder(w).Encode(indexer.BlockReply{Block: indexer.Block{Height: strconv.FormatInt(h, 10), Hash: fmt.Sprintf("%064X", h), Timestamp: ts}})
		case r.URL.Path == indexer.PathTxs:
			if q.Get(indexer.ParamReverse) != "false" {
				t.Errorf("the reader asked newest first: %s", r.URL)
			}
			off, _ := strconv.Atoi(q.Get(indexer.ParamOffset))
			if k := q.Get(indexer.ParamKey); k != "" {
				seq, err := indexer.ParseSequenceKey(k)
				if err != nil {
					t.Errorf("key %q: %v", k, err)
				}
				off = int(seq) // sequence N is row N-1: continue after it
			}
			limit, _ := strconv.Atoi(q.Get(indexer.ParamLimit))
			end := min(len(txs), off+limit)
			page := indexer.TxPage{Txs: txs[min(off, end):end], Pagination: indexer.Pagination{Total: strconv.Itoa(len(txs))}}
			if end > off {
				k := indexer.SequenceKey(int64(end))
				page.Pagination.NextKey = &k
			}
			_ = json.NewEncoder(w).Encode(page)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := indexer.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func indexedTx(h int64, n int, code uint32, signer string, evs ...cosmosnode.Event) indexer.Tx {
	evs = append([]cosmosnode.Event{{Type: "tx", Attributes: []cosmosnode.Attribute{{Key: "acc_seq", Value: signer + "/1"}}}}, evs...)
	raw, _ := json.Marshal(evs)
	return indexer.Tx{TxHash: fmt.Sprintf("%062X%02X", h, n), Height: strconv.FormatInt(h, 10), Code: code,
		Timestamp: time.Unix(1000*h, 500_000_000).UTC().Format(time.RFC3339Nano), Events: raw}
}

// The indexer reader finds the window's first tx, pages oldest first across blocks, numbers
// each tx by its place in its block (failed ones too), yields successful txs' events only,
// takes block times from the txs and stops past the window; the window comes from the block
// API.
func TestCosmosIndexerReads(t *testing.T) {
	alice := bech(t, common.HexToAddress("0xa11ce"))
	move := func(points string) cosmosnode.Event {
		return cosmosnode.Event{Type: "move", Attributes: []cosmosnode.Attribute{{Key: "type_tag", Value: "0xcafe::demo::Played"}, {Key: "data", Value: `{"player":"0xa11ce","points":"` + points + `"}`}}}
	}
	var txs []indexer.Tx
	for h := int64(1); h <= 12; h++ {
		txs = append(txs, indexedTx(h, 0, 0, alice, move("1")))
		if h%3 == 0 {
			txs = append(txs, indexedTx(h, 1, 5, alice, move("1000")), indexedTx(h, 2, 0, alice, move("10")))
		}
	}
	x := &CosmosIndexer{Client: fakeIndexer(t, txs, 12)}
	ctx := context.Background()
	span, err := FindWindow(ctx, x, 4000, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if span.FirstBlock != 4 || span.LastBlock != 9 || span.Last.Hash != common.HexToHash(fmt.Sprintf("%064X", 9)) {
		t.Fatalf("window %+v", span)
	}
	p, err := Parse([]byte(moveHeader+"sources:\n  - name: s\n    move_event: {type_tag: \"$app::demo::Played\"}\nrules:\n  - {name: r, source: s, aggregate: sum, user: args.player, amount: uint(args.points)}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = x.Read(ctx, p.Sources[0], span.FirstBlock, span.LastBlock, func(r *Record) error {
		got = append(got, fmt.Sprintf("%d/%d/%d@%d", r.Block, r.TxIndex, r.LogIndex, r.Time))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "4/0/1@4000 5/0/1@5000 6/0/1@6000 6/2/1@6000 7/0/1@7000 8/0/1@8000 9/0/1@9000 9/2/1@9000"
	if strings.Join(got, " ") != want {
		t.Fatalf("records\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if _, err := FindWindow(ctx, x, 4000, 20000); err == nil || !strings.Contains(err.Error(), "behind") {
		t.Fatalf("a window past the indexer's head: %v", err)
	}
}
