package indexer

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	api "github.com/vipharness/vipharness/bindings/indexer"
)

// cosmosChain is a Cosmos rollup the indexer follows as rollytics does: CometBFT's block and
// block_results for each height, and the REST API's txs of the block
// (/cosmos/tx/v1beta1/txs/block/{h}) for the txs as the chain prints them.
type cosmosChain struct {
	node    *cosmosnode.Node
	moniker string
}

// NewCosmos follows the Cosmos rollup (Move, Wasm) at its CometBFT RPC and REST URLs from
// its first block and serves rollytics' Cosmos tx and block APIs on 127.0.0.1:
//
//	GET /indexer/tx/v1/txs                       (also /by_account/{a}, /by_height/{h}, /{hash})
//	GET /indexer/block/v1/blocks                 (also /{height})
//	GET /status
//
// with the service's JSON and paging (sequence cursors for txs, height cursors for blocks).
// The EVM routes answer as on a chain without EVM. CometBFT finalizes each block once, so
// the Cosmos follower keeps no reorg logic; it refuses a block whose parent hash is not the
// stored tip's.
func NewCosmos(ctx context.Context, rpcURL, restURL string, opts ...Option) (*Indexer, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	cfg.noEVM = true
	node := cosmosnode.New(restURL, rpcURL, &http.Client{Timeout: 30 * time.Second})
	// A block's txs as REST prints them can be large (a full block of score chunks).
	node.REST.MaxReply = 256 << 20
	st, err := node.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("indexer: %s: %w", rpcURL, err)
	}
	if cfg.chainID == "" {
		cfg.chainID = st.ChainID
	}
	chain := &cosmosChain{node: node, moniker: st.Moniker}
	return startCosmos(ctx, cfg, chain)
}

func startCosmos(ctx context.Context, cfg config, chain *cosmosChain) (*Indexer, error) {
	return start(ctx, cfg, nil, nil, chain)
}

// stepCosmos indexes up to a batch of blocks after the tip and reports whether it reached
// the chain's newest block.
func (ix *Indexer) stepCosmos(ctx context.Context) (bool, error) {
	st, err := ix.cosmos.node.Status(ctx)
	if err != nil {
		return false, err
	}
	head := st.LatestHeight
	tip, tipHash, ok := ix.store.tip()
	from := max(st.EarliestHeight, 1)
	if ok {
		from = tip + 1
	}
	if from > head {
		return true, nil
	}
	to := min(head, from+ix.cfg.batch-1)
	for h := from; h <= to; h++ {
		blk, err := ix.cosmos.block(ctx, h, ix.cfg.chainID, ix.store.timeAt(h-1))
		if err != nil && h == head {
			// CometBFT reports a height before it has stored the block's results: the newest
			// block waits for the next poll (a lasting failure shows once the head moves on).
			ix.log.Debug("newest block not ready", "height", h, "err", err)
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("block %d: %w", h, err)
		}
		if ok && blk.parent != tipHash {
			return false, fmt.Errorf("block %d's parent %s is not the indexed block %d (%s): a Cosmos rollup does not reorganise; restart the indexer", h, blk.parent.Hex(), tip, tipHash.Hex())
		}
		if err := ix.store.applyCosmos(blk); err != nil {
			return false, err
		}
		tipHash, ok, tip = blk.hash, true, h
	}
	ix.log.Debug("indexed blocks", "from", from, "to", to)
	return to == head, nil
}

// cosmosBlock is one block made ready for the store.
type cosmosBlock struct {
	height       uint64
	hash, parent common.Hash
	time         time.Time
	body         []byte
	txs          []*record
}

// block reads block h, its results and its txs as REST prints them, and builds its rows.
func (c *cosmosChain) block(ctx context.Context, h uint64, chainID string, prevTime time.Time) (*cosmosBlock, error) {
	b, err := c.node.Block(ctx, h)
	if err != nil {
		return nil, err
	}
	results, err := c.node.BlockResults(ctx, h)
	if err != nil {
		return nil, err
	}
	if len(results) != len(b.Txs) {
		return nil, fmt.Errorf("%d txs but %d results", len(b.Txs), len(results))
	}
	var restTxs []json.RawMessage
	if len(b.Txs) > 0 {
		if restTxs, err = c.restTxs(ctx, h, len(b.Txs)); err != nil {
			return nil, err
		}
	}
	out := &cosmosBlock{height: h, hash: common.BytesToHash(b.Hash), parent: common.BytesToHash(b.Parent), time: b.Time.UTC()}
	ts := out.time.Format(time.RFC3339Nano)
	var gasUsed, gasWanted int64
	fees := map[string]string{}
	var feeOrder []string
	for i, tx := range b.Txs {
		r := results[i]
		gasUsed += int64(r.GasUsed)
		gasWanted += int64(r.GasWanted)
		evs := r.Events
		if evs == nil {
			evs = []cosmosnode.Event{}
		}
		evJSON, err := json.Marshal(evs)
		if err != nil {
			return nil, err
		}
		var rt restTx
		if err := json.Unmarshal(restTxs[i], &rt); err != nil {
			return nil, fmt.Errorf("tx %d as REST prints it: %w", i, err)
		}
		for _, f := range rt.AuthInfo.Fee.Amount {
			if _, seen := fees[f.Denom]; !seen {
				feeOrder = append(feeOrder, f.Denom)
				fees[f.Denom] = "0"
			}
			fees[f.Denom] = addDecimal(fees[f.Denom], f.Amount)
		}
		txHash := cosmosnode.TxHash(tx)
		hash := strings.ToUpper(hex.EncodeToString(txHash))
		t := api.Tx{
			TxHash: hash, Height: strconv.FormatUint(h, 10), Codespace: r.Codespace, Code: r.Code,
			Data: strings.ToUpper(hex.EncodeToString(r.Data)), RawLog: r.Log, Logs: json.RawMessage("[]"), Info: r.Info,
			GasWanted: strconv.FormatInt(int64(r.GasWanted), 10), GasUsed: strconv.FormatInt(int64(r.GasUsed), 10),
			Tx: restTxs[i], Timestamp: ts, Events: evJSON,
		}
		body, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		rec := &record{height: h, hash: common.BytesToHash(txHash), body: body}
		for _, m := range rt.Body.Messages {
			rec.msgs = append(rec.msgs, strings.TrimPrefix(m.Type, "/"))
		}
		fileAccounts(rec, evs)
		out.txs = append(out.txs, rec)
	}
	blockTime := int64(0)
	if h > 1 && !prevTime.IsZero() {
		blockTime = out.time.Sub(prevTime).Milliseconds()
	}
	totalFee := make([]api.Fee, 0, len(feeOrder))
	for _, d := range feeOrder {
		totalFee = append(totalFee, api.Fee{Denom: d, Amount: fees[d]})
	}
	out.body, err = json.Marshal(api.Block{
		ChainID: chainID, Height: strconv.FormatUint(h, 10), Hash: strings.ToUpper(hex.EncodeToString(b.Hash)),
		BlockTime: strconv.FormatInt(blockTime, 10), Timestamp: out.time.Format(time.RFC3339),
		GasUsed: strconv.FormatInt(gasUsed, 10), GasWanted: strconv.FormatInt(gasWanted, 10), TxCount: strconv.Itoa(len(b.Txs)),
		TotalFee: totalFee, Proposer: api.Proposer{Moniker: c.moniker},
	})
	return out, err
}

func addDecimal(a, b string) string {
	x, ok1 := new(big.Int).SetString(a, 10)
	y, ok2 := new(big.Int).SetString(b, 10)
	if !ok1 || !ok2 {
		return a
	}
	return x.Add(x, y).String()
}

// restTx is what the indexer reads of a tx as REST prints it.
type restTx struct {
	Body struct {
		Messages []struct {
			Type string `json:"@type"`
		} `json:"messages"`
	} `json:"body"`
	AuthInfo struct {
		Fee struct {
			Amount []api.Fee `json:"amount"`
		} `json:"fee"`
	} `json:"auth_info"`
}

// restTxs reads block h's txs as the REST API prints them, in block order (paged by offset).
func (c *cosmosChain) restTxs(ctx context.Context, h uint64, n int) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for len(out) < n {
		var page struct {
			Txs []json.RawMessage `json:"txs"`
		}
		path := fmt.Sprintf("/cosmos/tx/v1beta1/txs/block/%d?pagination.offset=%d&pagination.limit=100", h, len(out))
		if err := c.node.REST.GetJSON(ctx, path, &page); err != nil {
			return nil, fmt.Errorf("txs of block %d: %w", h, err)
		}
		if len(page.Txs) == 0 {
			return nil, fmt.Errorf("txs of block %d: REST gave %d of %d", h, len(out), n)
		}
		out = append(out, page.Txs...)
	}
	if len(out) != n {
		return nil, fmt.Errorf("txs of block %d: REST gave %d, the block holds %d", h, len(out), n)
	}
	return out, nil
}

var (
	bech32Re = regexp.MustCompile(`^` + Bech32Prefix + `1(?:[a-z0-9]{38}|[a-z0-9]{58})$`)
	hexRe    = regexp.MustCompile(`^0x[a-fA-F0-9]{1,64}$`)
	moveHex  = regexp.MustCompile(`0x[a-fA-F0-9]{1,64}`)
)

// fileAccounts sets the accounts a Cosmos tx is filed under, as rollytics greps them: the
// signer (the first acc_seq of the tx events, the first signer's account), every bech32
// address or 0x hex that is a whole attribute value (or a comma-separated part of one),
// and every 0x hex inside a Move event's data.
func fileAccounts(rec *record, evs []cosmosnode.Event) {
	seen := map[string]bool{}
	add := func(s string) string {
		b, err := parseAccount(s)
		if err != nil {
			return ""
		}
		k := string(b)
		if !seen[k] {
			seen[k] = true
			rec.accts = append(rec.accts, k)
		}
		return k
	}
	for _, e := range evs {
		if e.Type != "tx" {
			continue
		}
		for _, a := range e.Attributes {
			if a.Key == "acc_seq" && rec.signer == "" {
				addr, _, _ := strings.Cut(a.Value, "/")
				rec.signer = add(addr)
			}
		}
	}
	for _, e := range evs {
		for _, a := range e.Attributes {
			if e.Type == "move" && a.Key == "data" {
				for _, m := range moveHex.FindAllString(a.Value, -1) {
					add(m)
				}
				continue
			}
			for _, part := range strings.Split(a.Value, ",") {
				if bech32Re.MatchString(part) || hexRe.MatchString(part) {
					add(part)
				}
			}
		}
	}
}

// applyCosmos appends one block that extends the tip.
func (s *store) applyCosmos(b *cosmosBlock) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tip, _, ok := s.tipLocked(); ok && b.height != tip+1 {
		return fmt.Errorf("block %d does not extend the tip %d", b.height, tip)
	} else if !ok {
		s.base = b.height
	}
	s.blocks = append(s.blocks, b.hash)
	s.blockRows = append(s.blockRows, &record{seq: int64(b.height), height: b.height, hash: b.hash, body: b.body})
	s.times = append(s.times, b.time)
	for _, rec := range b.txs {
		s.appendLocked(rec, rec.accts)
	}
	s.notifyLocked()
	return nil
}

// timeAt is block h's time, or zero when it is not indexed.
func (s *store) timeAt(h uint64) time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.times) == 0 || h < s.base || h-s.base >= uint64(len(s.times)) {
		return time.Time{}
	}
	return s.times[h-s.base]
}

var errBlockNotFound = errors.New(api.BlockNotFound)
