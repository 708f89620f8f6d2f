package indexer

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	sdkmath "cosmossdk.io/math"
	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	api "github.com/vipharness/vipharness/bindings/indexer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// The Cosmos stand-in follows a live Wasm rollup of the project's Cosmos SDK app: bank sends
// from the funded key appear in /indexer/tx/v1/txs (oldest first and newest first, cursors
// walking every page), by height, by account (signer only too), by hash and filtered by
// message type, with the block time and the events CometBFT gave; blocks carry CometBFT's
// hash; bad input is a 400 and unknown hashes and heights a 404, in rollytics' words.
func TestCosmosIndexerFollowsALiveRollup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := embedded.StartCosmos(ctx, vip.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	ep := r.Endpoints()
	c, err := cosmostx.Dial(ctx, ep.CometRPC, ep.REST)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := keys.FromHex(r.Funded()[0].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := keys.NewSoftware(acct, vip.Secp256k1, "funded")
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.SignerOf(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	to := []string{c.Enc.MustAddr([]byte("recipient-number-one")), c.Enc.MustAddr([]byte("recipient-number-two"))}
	var hashes []string
	var heights []int64
	for i := range 3 {
		res, err := c.Exec(ctx, s, &banktypes.MsgSend{FromAddress: s.Address, ToAddress: to[i%2], Amount: sdk.NewCoins(sdk.NewCoin(c.GasPrice().Denom, sdkmath.NewInt(int64(1000+i))))})
		if err != nil {
			t.Fatal(err)
		}
		hashes, heights = append(hashes, res.TxHash), append(heights, res.Height)
	}
	ix, err := NewCosmos(ctx, ep.CometRPC, ep.REST, WithPollInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	if err := ix.WaitHeight(ctx, uint64(heights[2])+1); err != nil {
		t.Fatal(err)
	}
	cl, err := api.NewClient(ix.URL())
	if err != nil {
		t.Fatal(err)
	}
	st, err := cl.Status(ctx)
	if err != nil || st.ChainID != r.ChainID() || st.Height < heights[2] {
		t.Fatalf("status %+v, %v", st, err)
	}

	// Every page of the list, oldest first, by cursor: our three sends, in order.
	var all []api.Tx
	for p, err := range cl.TxPages(ctx, api.PathTxs, api.TxQuery{Query: api.Query{Limit: 1, Ascending: true}}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p.Txs...)
	}
	var ours []api.Tx
	for _, tx := range all {
		for _, h := range hashes {
			if tx.TxHash == h {
				ours = append(ours, tx)
			}
		}
	}
	if len(ours) != 3 || ours[0].TxHash != hashes[0] || ours[2].TxHash != hashes[2] {
		t.Fatalf("the sends in the list: %d of %d txs", len(ours), len(all))
	}
	newest, err := cl.Txs(ctx, api.TxQuery{Query: api.Query{Limit: 1}})
	if err != nil || len(newest.Txs) != 1 || newest.Txs[0].TxHash != all[len(all)-1].TxHash {
		t.Fatalf("newest first: %+v, %v", newest, err)
	}
	tx := ours[1]
	if tx.Code != 0 || tx.Height != strconv.FormatInt(heights[1], 10) {
		t.Fatalf("tx %+v", tx)
	}
	evs, err := tx.DecodeEvents()
	if err != nil {
		t.Fatal(err)
	}
	var sawTransfer, sawSigner bool
	for _, e := range evs {
		for _, a := range e.Attributes {
			sawTransfer = sawTransfer || e.Type == "transfer" && a.Key == "recipient" && a.Value == to[1]
			sawSigner = sawSigner || e.Type == "tx" && a.Key == "acc_seq" && strings.HasPrefix(a.Value, s.Address+"/")
		}
	}
	if !sawTransfer || !sawSigner {
		t.Fatalf("events lack the transfer or the signer: %s", tx.Events)
	}
	var body struct {
		Body struct {
			Messages []map[string]any `json:"messages"`
		} `json:"body"`
	}
	if err := json.Unmarshal(tx.Tx, &body); err != nil || len(body.Body.Messages) != 1 || body.Body.Messages[0]["@type"] != "/cosmos.bank.v1beta1.MsgSend" {
		t.Fatalf("tx as REST prints it: %s (%v)", tx.Tx, err)
	}
	blk, err := cl.Block(ctx, uint64(heights[1]))
	if err != nil {
		t.Fatal(err)
	}
	h := heights[1]
	cmt, err := rpchttp.New(ep.CometRPC, "/websocket") // CometBFT's own client, not the one under test
	if err != nil {
		t.Fatal(err)
	}
	cb, err := cmt.Block(ctx, &h)
	if err != nil {
		t.Fatal(err)
	}
	bt, _ := blk.Time()
	txt, _ := tx.Time()
	if blk.Hash != strings.ToUpper(hex.EncodeToString(cb.BlockID.Hash)) || bt.Unix() != cb.Block.Time.Unix() || txt.Unix() != bt.Unix() || blk.TxCount == "0" || blk.ChainID != r.ChainID() {
		t.Fatalf("block %+v against CometBFT's %X at %s; tx time %s", blk, cb.BlockID.Hash, cb.Block.Time, tx.Timestamp)
	}

	byHeight, err := cl.TxsByHeight(ctx, uint64(heights[1]), api.TxQuery{})
	if err != nil || !hasTx(byHeight.Txs, hashes[1]) {
		t.Fatalf("by height: %+v, %v", byHeight, err)
	}
	toTwo, err := cl.TxsByAccount(ctx, to[1], api.TxQuery{})
	if err != nil || len(toTwo.Txs) != 1 || toTwo.Txs[0].TxHash != hashes[1] {
		t.Fatalf("by recipient: %+v, %v", toTwo, err)
	}
	signed, err := cl.TxsByAccount(ctx, to[0], api.TxQuery{Query: api.Query{SignerOnly: true}})
	if err != nil || len(signed.Txs) != 0 {
		t.Fatalf("a recipient signed nothing: %+v, %v", signed, err)
	}
	sent, err := cl.TxsByAccount(ctx, s.Address, api.TxQuery{Query: api.Query{SignerOnly: true}})
	if err != nil || !hasTx(sent.Txs, hashes[0]) || !hasTx(sent.Txs, hashes[2]) {
		t.Fatalf("by signer: %+v, %v", sent, err)
	}
	sends, err := cl.Txs(ctx, api.TxQuery{Msgs: []string{"cosmos.bank.v1beta1.MsgSend"}})
	if err != nil || len(sends.Txs) < 3 {
		t.Fatalf("msgs filter: %+v, %v", sends, err)
	}
	none, err := cl.Txs(ctx, api.TxQuery{Msgs: []string{"cosmwasm.wasm.v1.MsgExecuteContract"}})
	if err != nil || len(none.Txs) != 0 {
		t.Fatalf("msgs filter of a type never sent: %+v, %v", none, err)
	}
	one, err := cl.Tx(ctx, strings.ToLower(hashes[2]))
	if err != nil || one.TxHash != hashes[2] {
		t.Fatalf("by hash: %+v, %v", one, err)
	}

	// Blocks, oldest first by height cursor, two a page: every height once, in order.
	var n uint64
	for p, err := range cl.BlockPages(ctx, api.Query{Limit: 2, Ascending: true}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range p.Blocks {
			n++
			if got, _ := b.BlockHeight(); got != n {
				t.Fatalf("block %d where %d was due", got, n)
			}
		}
		if len(p.Blocks) > 0 && *p.Pagination.NextKey != api.HeightKey(int64(n)) {
			t.Fatalf("next_key %s after block %d", *p.Pagination.NextKey, n)
		}
	}
	if n < uint64(heights[2]) {
		t.Fatalf("walked %d blocks; the sends are at %v", n, heights)
	}

	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{api.PathTxs + "/" + strings.Repeat("ab", 32), http.StatusNotFound, api.TxNotFoundCosmos},
		{api.PathTxs + "/xyz", http.StatusBadRequest, "invalid hash format"},
		{api.PathBlocks + "/999999", http.StatusNotFound, api.BlockNotFound},
		{api.PathBlocks + "/0", http.StatusBadRequest, "must be a positive integer"},
		{api.PathTxs + "?pagination.limit=1001", http.StatusBadRequest, "pagination.limit must be between 1 and 1000"},
		{api.PathBlocks + "?pagination.key=eyJzZXF1ZW5jZSI6MX0=", http.StatusBadRequest, `must hold {"height":N}`},
		{api.PathTxsByAccount + "nope", http.StatusBadRequest, "invalid value for account"},
		{api.PathEVMTxs, http.StatusNotFound, api.NoEVMMessage},
	} {
		resp, err := http.Get(ix.URL() + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 512)
		m, _ := resp.Body.Read(b)
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.Contains(string(b[:m]), tc.body) {
			t.Errorf("%s: %d %q; want %d with %q", tc.path, resp.StatusCode, b[:m], tc.code, tc.body)
		}
	}
	if _, err := cl.Tx(ctx, strings.Repeat("cd", 32)); !api.IsNotFound(err) {
		t.Fatalf("unknown hash: %v", err)
	}
	var he *api.HTTPError
	if _, err := cl.Block(ctx, 1<<40); !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown block: %v", err)
	}
}

func hasTx(txs []api.Tx, hash string) bool {
	for _, t := range txs {
		if t.TxHash == hash {
			return true
		}
	}
	return false
}
