package devnode

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// A websocket client as Initia.js WebSocketClient is one (raw JSON-RPC subscribe on
// /websocket) gets the NewBlock and the Tx event of a broadcast tx, in CometBFT's shapes, under
// the request id with "#event"; a malformed query is refused.
func TestWebsocketDeliversTxAndNewBlock(t *testing.T) {
	n := startCore(t)
	x := newSender(t, n)
	conn, _, err := websocket.DefaultDialer.Dial(strings.Replace(n.RPCURL(), "http://", "ws://", 1)+"/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	type reply struct {
		ID     any `json:"id"`
		Result struct {
			Query string `json:"query"`
			Data  struct {
				Type  string          `json:"type"`
				Value json.RawMessage `json:"value"`
			} `json:"data"`
			Events map[string][]string `json:"events"`
		} `json:"result"`
		Error *struct {
			Code int    `json:"code"`
			Data string `json:"data"`
		} `json:"error"`
	}
	read := func() reply {
		t.Helper()
		var r reply
		if err := conn.ReadJSON(&r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	subscribe := func(id int, q string) reply {
		t.Helper()
		if err := conn.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": "subscribe", "params": map[string]string{"query": q}}); err != nil {
			t.Fatal(err)
		}
		return read()
	}
	if r := subscribe(1, "tm.event='NewBlock'"); r.Error != nil {
		t.Fatalf("subscribe NewBlock: %+v", r.Error)
	}
	txQuery := "tm.event='Tx' AND message.sender='" + x.s.Address + "'"
	if r := subscribe(2, txQuery); r.Error != nil {
		t.Fatalf("subscribe Tx: %+v", r.Error)
	}
	res := x.send(t, 3)
	height := strconv.FormatInt(res.Height, 10)

	// Each subscription writes from its own goroutine (as CometBFT's do): the two events may
	// come in either order.
	got := map[any]reply{}
	for range 2 {
		r := read()
		got[r.ID] = r
	}
	blk, tx := got["1#event"], got["2#event"]
	var nb struct {
		Block struct {
			Header struct {
				Height string `json:"height"`
			} `json:"header"`
			Data struct {
				Txs []string `json:"txs"`
			} `json:"data"`
		} `json:"block"`
	}
	if err := json.Unmarshal(blk.Result.Data.Value, &nb); err != nil || blk.ID != "1#event" || blk.Result.Data.Type != "tendermint/event/NewBlock" || nb.Block.Header.Height != height || len(nb.Block.Data.Txs) != 1 {
		t.Errorf("NewBlock event %+v (%v), want block %s with the send", blk, err, height)
	}
	var et struct {
		TxResult struct {
			Height string `json:"height"`
		} `json:"TxResult"`
	}
	if err := json.Unmarshal(tx.Result.Data.Value, &et); err != nil || tx.ID != "2#event" || tx.Result.Query != txQuery || tx.Result.Data.Type != "tendermint/event/Tx" ||
		et.TxResult.Height != height || len(tx.Result.Events["tx.hash"]) != 1 || tx.Result.Events["tx.hash"][0] != res.TxHash {
		t.Errorf("Tx event %+v (%v), want the send %s", tx, err, res.TxHash)
	}
	if r := subscribe(3, "tm.event=="); r.Error == nil || !strings.Contains(r.Error.Data, "failed to parse query") {
		t.Errorf("malformed query: %+v", r.Error)
	}
}
