package indexer

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// firstBlockOne answers eth as a minievm does about its first blocks: there is no block 0,
// and asked for it the node answers its first block, 1.
type firstBlockOne struct{ head uint64 }

func blockHash(n uint64) common.Hash { return crypto.Keccak256Hash([]byte{byte(n)}) }

func (f *firstBlockOne) BlockNumber() hexutil.Uint64 { return hexutil.Uint64(f.head) }

func (f *firstBlockOne) GetBlockByNumber(n hexutil.Uint64, _ bool) map[string]any {
	num := max(uint64(n), 1)
	if num > f.head {
		return nil
	}
	return map[string]any{"number": hexutil.Uint64(num), "hash": blockHash(num), "parentHash": blockHash(num - 1)}
}

func (f *firstBlockOne) GetBlockReceipts(string) []any { return []any{} }

// A chain whose first block is 1 (a minievm) is indexed from it: its answer for block 0 is
// not taken for a block out of place.
func TestIndexesAChainWithoutBlockZero(t *testing.T) {
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", &firstBlockOne{head: 3}); err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src, err := dialRPC(ctx, hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	hdrs, err := src.Headers(ctx, 0, 3)
	if err != nil || len(hdrs) != 3 || hdrs[0].Number != 1 || hdrs[2].Number != 3 {
		t.Fatalf("headers 0..3 = %+v, %v; want blocks 1..3", hdrs, err)
	}
	ix, err := New(ctx, hs.URL, WithPollInterval(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	waitHeight(t, ix, 3)
}
