package minitia

import (
	"testing"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"
)

// page cuts a table's coins as the SDK's filtered collection pagination cuts the entries
// of a minimove's store tables: offsets count entries listed or not, next_key is the store
// key after the page, the total is counted when asked or when no limit is given.
func TestPageCutsTableCoinsAsTheSDK(t *testing.T) {
	coin := func(d string, n int64) sdk.Coin { return sdk.NewInt64Coin(d, n) }
	entries := []tableCoin{
		{key: []byte{1}, coin: coin("ucoin", 5), listed: true},
		{key: []byte{2}, listed: false}, // an emptied store
		{key: []byte{3}, coin: coin("move/aa", 7), listed: true},
		{key: []byte{4}, coin: coin("move/bb", 9), listed: true},
	}
	for _, tc := range []struct {
		name      string
		req       *query.PageRequest
		want      sdk.Coins
		nextKey   []byte
		total     uint64
		wantError bool
	}{
		{name: "no request: all, counted", want: sdk.NewCoins(coin("ucoin", 5), coin("move/aa", 7), coin("move/bb", 9)), total: 3},
		{name: "a limit without count_total", req: &query.PageRequest{Limit: 1}, want: sdk.NewCoins(coin("ucoin", 5)), nextKey: []byte{2}},
		{name: "a limit with count_total: next_key is the next listed entry's", req: &query.PageRequest{Limit: 1, CountTotal: true},
			want: sdk.NewCoins(coin("ucoin", 5)), nextKey: []byte{3}, total: 3},
		{name: "an offset counts entries, listed or not", req: &query.PageRequest{Offset: 2, Limit: 5, CountTotal: true},
			want: sdk.NewCoins(coin("move/aa", 7), coin("move/bb", 9)), total: 4},
		{name: "from a key", req: &query.PageRequest{Key: []byte{2}, Limit: 1}, want: sdk.NewCoins(coin("move/aa", 7)), nextKey: []byte{4}},
		{name: "reverse", req: &query.PageRequest{Reverse: true, Limit: 1}, want: sdk.NewCoins(coin("move/bb", 9)), nextKey: []byte{3}},
		{name: "reverse from a key", req: &query.PageRequest{Reverse: true, Key: []byte{2}, Limit: 5}, want: sdk.NewCoins(coin("ucoin", 5))},
		{name: "key and offset", req: &query.PageRequest{Key: []byte{2}, Offset: 1}, wantError: true},
		{name: "an offset past the end", req: &query.PageRequest{Offset: 5}, wantError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, res, err := page(entries, tc.req)
			if tc.wantError {
				if err == nil {
					t.Fatalf("page(%v) = %v, want an error", tc.req, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tc.want) || string(res.NextKey) != string(tc.nextKey) || res.Total != tc.total {
				t.Fatalf("page(%v) = %v next %v total %d, want %v next %v total %d", tc.req, got, res.NextKey, res.Total, tc.want, tc.nextKey, tc.total)
			}
		})
	}
}
