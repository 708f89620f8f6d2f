package chainbench_test

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/crypto/tmhash"
	"github.com/cometbft/cometbft/libs/pubsub/query"
	"github.com/cometbft/cometbft/p2p"
	cmtversion "github.com/cometbft/cometbft/proto/tendermint/version"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"
	"github.com/cometbft/cometbft/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
)

// synthCosmos is a deterministic Cosmos rollup made as it is read: blocks 1..Blocks a
// second apart from Genesis, each with TxsPerBlock successful transactions of a user among
// Users, each with the events a minitia writes for a bank send and a game move: the ante
// handler's tx events and fee transfer (no msg_index), message 0's bank send (message,
// transfer) and message 1's play as a Move event and as a Wasm event (one chain holds both,
// so that one indexer run serves the Move and the Wasm policy). It answers, over CometBFT's
// JSON-RPC, what the policy's node reader and the indexer stand-in call (status, header,
// block, block_results, block_search, tx_search with CometBFT's query language), and the REST
// route of a block's txs; requests outside what a CometBFT node accepts are refused.
type synthCosmos struct {
	Blocks, TxsPerBlock, Users uint64
	Genesis                    int64
	ChainID                    string
	headers                    []types.Header // index: height
	hashes                     [][]byte
	bech32s                    []string // index: user

	mu      sync.Mutex
	matches map[string][]uint64 // tx_search query -> global tx numbers, oldest first
}

const (
	synthArenaMove = "0xa"
	synthDenom     = "umin"
)

var (
	synthArenaWasm = mustBech32(make([]byte, 32))
	feeCollector   = mustBech32([]byte("fee_collector_addr__"))
)

func mustBech32(b []byte) string {
	s, err := bech32.ConvertAndEncode("init", b)
	if err != nil {
		panic(err)
	}
	return s
}

// build makes the headers and their hashes (a few MB for 10,000 blocks).
func (c *synthCosmos) build() *synthCosmos {
	c.headers = make([]types.Header, c.Blocks+1)
	c.hashes = make([][]byte, c.Blocks+1)
	c.matches = map[string][]uint64{}
	c.bech32s = make([]string, c.Users)
	for i := range c.Users {
		c.bech32s[i] = mustBech32(c.user(i))
	}
	prev := make([]byte, 32)
	for h := uint64(1); h <= c.Blocks; h++ {
		txs := c.txs(h)
		c.headers[h] = types.Header{
			Version: cmtversion.Consensus{Block: 11}, ChainID: c.ChainID, Height: int64(h),
			Time: time.Unix(c.Genesis+int64(h), 0).UTC(), LastBlockID: types.BlockID{Hash: prev},
			DataHash: txs.Hash(), ValidatorsHash: tmhash.Sum([]byte("validators")), NextValidatorsHash: tmhash.Sum([]byte("validators")),
			ProposerAddress: tmhash.SumTruncated([]byte("proposer")),
		}
		c.hashes[h] = c.headers[h].Hash()
		prev = c.hashes[h]
	}
	return c
}

// Records is how many records each kind of source finds in the stage (blocks 1..Blocks-1).
func (c *synthCosmos) Txs() uint64 { return (c.Blocks - 1) * c.TxsPerBlock }

func (c *synthCosmos) user(i uint64) []byte {
	a := make([]byte, 20)
	a[0] = 0x5e
	binary.BigEndian.PutUint64(a[12:], i%c.Users+1)
	return a
}

func (c *synthCosmos) txs(h uint64) types.Txs {
	out := make(types.Txs, c.TxsPerBlock)
	for j := range out {
		out[j] = []byte(fmt.Sprintf("synth-tx-%d-%d", h, j))
	}
	return out
}

// events are transaction n's (n counts from 0 over the whole chain).
func (c *synthCosmos) events(n uint64) []abci.Event {
	from := c.user(n)
	fromB, toB := c.bech32s[n%c.Users], c.bech32s[(n*7+3)%c.Users]
	fee := "100" + synthDenom
	value := strconv.FormatUint(n%1000*1000+1, 10) + synthDenom
	points := strconv.FormatUint(n%97, 10)
	ev := func(typ string, kv ...string) abci.Event {
		e := abci.Event{Type: typ}
		for i := 0; i < len(kv); i += 2 {
			e.Attributes = append(e.Attributes, abci.EventAttribute{Key: kv[i], Value: kv[i+1], Index: true})
		}
		return e
	}
	player := fmt.Sprintf("0x%064x", from)
	return []abci.Event{
		ev("tx", "fee", fee, "fee_payer", fromB),
		ev("tx", "acc_seq", fmt.Sprintf("%s/%d", fromB, n/c.Users)),
		ev("coin_spent", "spender", fromB, "amount", fee),
		ev("transfer", "recipient", feeCollector, "sender", fromB, "amount", fee),
		ev("message", "action", "/cosmos.bank.v1beta1.MsgSend", "sender", fromB, "module", "bank", "msg_index", "0"),
		ev("transfer", "recipient", toB, "sender", fromB, "amount", value, "msg_index", "0"),
		ev("move", "type_tag", synthArenaMove+"::arena::PlayEvent",
			"data", fmt.Sprintf(`{"player":"%s","round":"%d","points":"%s"}`, player, n, points), "msg_index", "1"),
		ev("wasm", "_contract_address", synthArenaWasm, "action", "play", "player", fromB, "points", points, "msg_index", "1"),
	}
}

func (c *synthCosmos) height(n uint64) uint64 { return n/c.TxsPerBlock + 1 }

// serve starts the JSON-RPC and REST server on 127.0.0.1.
func (c *synthCosmos) serve() (url string, stop func(), err error) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /", c.rpc)
	mux.HandleFunc("GET /cosmos/tx/v1beta1/txs/block/{h}", c.restTxs)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln) //nolint:errcheck // ends with Close
	return "http://" + ln.Addr().String(), func() { _ = hs.Close() }, nil
}

// restTxs answers /cosmos/tx/v1beta1/txs/block/{h} with what the indexer reads of each tx.
func (c *synthCosmos) restTxs(w http.ResponseWriter, r *http.Request) {
	h, err := strconv.ParseUint(r.PathValue("h"), 10, 64)
	if err != nil || h < 1 || h > c.Blocks {
		http.Error(w, `{"code":3,"message":"invalid height"}`, http.StatusBadRequest)
		return
	}
	off, err1 := strconv.Atoi(r.URL.Query().Get("pagination.offset"))
	limit, err2 := strconv.Atoi(r.URL.Query().Get("pagination.limit"))
	if err1 != nil || err2 != nil || off < 0 || limit < 1 {
		http.Error(w, `{"code":3,"message":"bad pagination"}`, http.StatusBadRequest)
		return
	}
	type tx struct {
		Body     any `json:"body"`
		AuthInfo any `json:"auth_info"`
	}
	var page struct {
		Txs []tx `json:"txs"`
	}
	for j := off; j < int(c.TxsPerBlock) && len(page.Txs) < limit; j++ {
		page.Txs = append(page.Txs, tx{
			Body:     map[string]any{"messages": []map[string]string{{"@type": "/cosmos.bank.v1beta1.MsgSend"}, {"@type": "/initia.move.v1.MsgExecute"}}},
			AuthInfo: map[string]any{"fee": map[string]any{"amount": []map[string]string{{"denom": synthDenom, "amount": "100"}}}},
		})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(page)
}

var (
	heightRange = regexp.MustCompile(`^tx\.height >= (\d+) AND tx\.height <= (\d+)( AND |$)`)
	blockHeight = regexp.MustCompile(`^block\.height = (\d+)$`)
)

func (c *synthCosmos) rpc(w http.ResponseWriter, r *http.Request) {
	var req rpctypes.RPCRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var params map[string]json.RawMessage
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &params); err != nil {
			c.reply(w, rpctypes.NewRPCErrorResponse(req.ID, -32602, "Invalid params", err.Error()))
			return
		}
	}
	res, err := c.call(req.Method, params)
	if err != nil {
		c.reply(w, rpctypes.NewRPCErrorResponse(req.ID, -32603, "Internal error", err.Error()))
		return
	}
	if ts, ok := res.(*ctypes.ResultTxSearch); ok {
		// CometBFT's encoder (amino JSON, jsonpb for each result) costs the parent more CPU
		// than the reader spends, on the same 2 cores: the same JSON, written by
		// encoding/json (node and indexer must still give the same digests).
		raw, err := json.Marshal(txSearchJSON(ts))
		if err == nil {
			c.reply(w, rpctypes.RPCResponse{JSONRPC: "2.0", ID: req.ID, Result: raw})
			return
		}
	}
	c.reply(w, rpctypes.NewRPCSuccessResponse(req.ID, res))
}

// txSearchJSON is a tx_search result as CometBFT writes it: 64-bit integers as strings,
// hashes as upper-case hex, the tx in base64, the tx result as jsonpb prints it.
func txSearchJSON(res *ctypes.ResultTxSearch) any {
	type attr struct {
		Key   string `json:"key"`
		Value string `json:"value"`
		Index bool   `json:"index"`
	}
	type event struct {
		Type       string `json:"type"`
		Attributes []attr `json:"attributes"`
	}
	type result struct {
		Code      uint32  `json:"code"`
		Data      *string `json:"data"`
		Log       string  `json:"log"`
		Info      string  `json:"info"`
		GasWanted string  `json:"gas_wanted"`
		GasUsed   string  `json:"gas_used"`
		Events    []event `json:"events"`
		Codespace string  `json:"codespace"`
	}
	type tx struct {
		Hash     string `json:"hash"`
		Height   string `json:"height"`
		Index    uint32 `json:"index"`
		TxResult result `json:"tx_result"`
		Tx       []byte `json:"tx"`
	}
	out := struct {
		Txs        []tx   `json:"txs"`
		TotalCount string `json:"total_count"`
	}{Txs: make([]tx, len(res.Txs)), TotalCount: strconv.Itoa(res.TotalCount)}
	for i, t := range res.Txs {
		r := t.TxResult
		evs := make([]event, len(r.Events))
		for j, e := range r.Events {
			evs[j].Type = e.Type
			for _, a := range e.Attributes {
				evs[j].Attributes = append(evs[j].Attributes, attr{a.Key, a.Value, a.Index})
			}
		}
		out.Txs[i] = tx{Hash: strings.ToUpper(hex.EncodeToString(t.Hash)), Height: strconv.FormatInt(t.Height, 10), Index: t.Index, Tx: t.Tx,
			TxResult: result{Code: r.Code, Log: r.Log, Info: r.Info, GasWanted: strconv.FormatInt(r.GasWanted, 10), GasUsed: strconv.FormatInt(r.GasUsed, 10), Events: evs, Codespace: r.Codespace}}
	}
	return out
}

func (c *synthCosmos) reply(w http.ResponseWriter, res rpctypes.RPCResponse) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(res)
}

// intParam reads an integer parameter as CometBFT's JSON writes it (a string) or as a number.
func intParam(params map[string]json.RawMessage, key string, def int64) (int64, error) {
	raw, ok := params[key]
	if !ok || string(raw) == "null" {
		return def, nil
	}
	s := strings.Trim(string(raw), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not an integer", key, raw)
	}
	return v, nil
}

func (c *synthCosmos) heightParam(params map[string]json.RawMessage) (uint64, error) {
	h, err := intParam(params, "height", int64(c.Blocks))
	if err != nil {
		return 0, err
	}
	if h < 1 || uint64(h) > c.Blocks {
		return 0, fmt.Errorf("height %d must be within [1, %d]", h, c.Blocks)
	}
	return uint64(h), nil
}

func (c *synthCosmos) call(method string, params map[string]json.RawMessage) (any, error) {
	switch method {
	case "status":
		last := c.headers[c.Blocks]
		return &ctypes.ResultStatus{NodeInfo: p2p.DefaultNodeInfo{Network: c.ChainID, Moniker: "synth"},
			SyncInfo: ctypes.SyncInfo{LatestBlockHeight: last.Height, LatestBlockHash: c.hashes[c.Blocks], LatestBlockTime: last.Time,
				EarliestBlockHeight: 1, EarliestBlockTime: c.headers[1].Time}}, nil
	case "header":
		h, err := c.heightParam(params)
		if err != nil {
			return nil, err
		}
		return &ctypes.ResultHeader{Header: &c.headers[h]}, nil
	case "blockchain":
		lo, err1 := intParam(params, "minHeight", 1)
		hi, err2 := intParam(params, "maxHeight", int64(c.Blocks))
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		res := &ctypes.ResultBlockchainInfo{LastHeight: int64(c.Blocks)}
		for h := min(uint64(hi), c.Blocks); h >= max(uint64(lo), 1) && h >= 1; h-- { // newest first, as CometBFT lists them
			res.BlockMetas = append(res.BlockMetas, &types.BlockMeta{BlockID: types.BlockID{Hash: c.hashes[h]}, Header: c.headers[h]})
		}
		return res, nil
	case "block":
		h, err := c.heightParam(params)
		if err != nil {
			return nil, err
		}
		blk := &types.Block{Header: c.headers[h], Data: types.Data{Txs: c.txs(h)}}
		return &ctypes.ResultBlock{BlockID: types.BlockID{Hash: c.hashes[h]}, Block: blk}, nil
	case "block_results":
		h, err := c.heightParam(params)
		if err != nil {
			return nil, err
		}
		res := &ctypes.ResultBlockResults{Height: int64(h)}
		for j := range c.TxsPerBlock {
			res.TxsResults = append(res.TxsResults, &abci.ExecTxResult{GasWanted: 200_000, GasUsed: 120_000, Events: c.events((h-1)*c.TxsPerBlock + j)})
		}
		return res, nil
	case "block_search":
		var q string
		if err := json.Unmarshal(params["query"], &q); err != nil {
			return nil, fmt.Errorf("query: %w", err)
		}
		m := blockHeight.FindStringSubmatch(q)
		if m == nil {
			return nil, fmt.Errorf("block_search: this node answers block.height = N only, not %q", q)
		}
		h, _ := strconv.ParseUint(m[1], 10, 64)
		res := &ctypes.ResultBlockSearch{}
		if h >= 1 && h <= c.Blocks {
			res.TotalCount = 1
			res.Blocks = []*ctypes.ResultBlock{{BlockID: types.BlockID{Hash: c.hashes[h]}, Block: &types.Block{Header: c.headers[h]}}}
		}
		return res, nil
	case "tx_search":
		return c.txSearch(params)
	}
	return nil, fmt.Errorf("method %q is not served here", method)
}

// txSearch pages the txs that match a query (CometBFT's language and matching), oldest
// first, at most 100 a page as CometBFT caps it.
func (c *synthCosmos) txSearch(params map[string]json.RawMessage) (any, error) {
	var q, order string
	if err := json.Unmarshal(params["query"], &q); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	if raw, ok := params["order_by"]; ok {
		if err := json.Unmarshal(raw, &order); err != nil {
			return nil, fmt.Errorf("order_by: %w", err)
		}
	}
	if order != "" && order != "asc" {
		return nil, fmt.Errorf("order_by %q: this node pages oldest first only", order)
	}
	page, err := intParam(params, "page", 1)
	if err != nil {
		return nil, err
	}
	per, err := intParam(params, "per_page", 30)
	if err != nil {
		return nil, err
	}
	per = min(max(per, 1), 100)
	all, err := c.match(q)
	if err != nil {
		return nil, err
	}
	pages := max((int64(len(all))+per-1)/per, 1)
	if page < 1 || page > pages {
		return nil, fmt.Errorf("page should be within [1, %d] range, given %d", pages, page)
	}
	res := &ctypes.ResultTxSearch{TotalCount: len(all)}
	for _, n := range all[min((page-1)*per, int64(len(all))):min(page*per, int64(len(all)))] {
		h := c.height(n)
		tx := types.Tx(fmt.Sprintf("synth-tx-%d-%d", h, n%c.TxsPerBlock))
		res.Txs = append(res.Txs, &ctypes.ResultTx{Hash: tx.Hash(), Height: int64(h), Index: uint32(n % c.TxsPerBlock),
			TxResult: abci.ExecTxResult{GasWanted: 200_000, GasUsed: 120_000, Events: c.events(n)}, Tx: tx})
	}
	return res, nil
}

// match lists the txs a query selects, once per query (the pages of a search ask again).
func (c *synthCosmos) match(q string) ([]uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.matches[q]; ok {
		return m, nil
	}
	r := heightRange.FindStringSubmatch(q)
	if r == nil {
		return nil, errors.New("tx_search: this node wants a query that starts with a tx.height range")
	}
	parsed, err := query.New(q)
	if err != nil {
		return nil, fmt.Errorf("tx_search: %w", err)
	}
	from, _ := strconv.ParseUint(r[1], 10, 64)
	to, _ := strconv.ParseUint(r[2], 10, 64)
	out := []uint64{}
	for h := max(from, 1); h <= min(to, c.Blocks); h++ {
		for j := range c.TxsPerBlock {
			n := (h-1)*c.TxsPerBlock + j
			evs := map[string][]string{"tx.height": {strconv.FormatUint(h, 10)}}
			for _, e := range c.events(n) {
				for _, a := range e.Attributes {
					k := e.Type + "." + a.Key
					evs[k] = append(evs[k], a.Value)
				}
			}
			ok, err := parsed.Matches(evs)
			if err != nil {
				return nil, fmt.Errorf("tx_search: %w", err)
			}
			if ok {
				out = append(out, n)
			}
		}
	}
	c.matches[q] = out
	return out, nil
}
