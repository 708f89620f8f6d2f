package indexer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
)

// Paths of the Cosmos transaction and block APIs (rollytics serves them on every VM).
const (
	PathTxs          = "/indexer/tx/v1/txs"
	PathTxsByAccount = PathTxs + "/by_account/" // + account
	PathTxsByHeight  = PathTxs + "/by_height/"  // + height
	PathBlocks       = "/indexer/block/v1/blocks"
)

// ParamMsgs filters the Cosmos tx lists by message type URL (without the leading slash,
// e.g. cosmos.bank.v1beta1.MsgSend), repeated or comma-separated.
const ParamMsgs = "msgs"

// TxNotFoundCosmos and BlockNotFound are the plain-text bodies of the 404 for an unknown
// Cosmos tx hash and an unknown block height.
const (
	TxNotFoundCosmos = "[NOT_FOUND] transaction not found"
	BlockNotFound    = "[NOT_FOUND] block not found"
)

// Tx is one indexed Cosmos transaction, as rollytics stores it: the tx result (height, code,
// gas and events as CometBFT's block results give them), the block's time and the tx as
// the chain's REST API prints it (body, auth_info, signatures). Numbers that the service
// writes as strings stay strings here; Events and Tx stay raw so that a decoded and encoded
// value is the bytes the service sent.
type Tx struct {
	TxHash    string          `json:"txhash"` // upper-case hex
	Height    string          `json:"height"`
	Codespace string          `json:"codespace"`
	Code      uint32          `json:"code"`
	Data      string          `json:"data"`
	RawLog    string          `json:"raw_log"`
	Logs      json.RawMessage `json:"logs"`
	Info      string          `json:"info"`
	GasWanted string          `json:"gas_wanted"`
	GasUsed   string          `json:"gas_used"`
	Tx        json.RawMessage `json:"tx"`
	Timestamp string          `json:"timestamp"` // the block's time, RFC 3339
	Events    json.RawMessage `json:"events"`
}

// BlockHeight parses Height.
func (t Tx) BlockHeight() (uint64, error) { return strconv.ParseUint(t.Height, 10, 64) }

// Time parses Timestamp.
func (t Tx) Time() (time.Time, error) { return time.Parse(time.RFC3339Nano, t.Timestamp) }

// DecodeEvents decodes Events.
func (t Tx) DecodeEvents() ([]cosmosnode.Event, error) {
	var evs []cosmosnode.Event
	if len(t.Events) == 0 || string(t.Events) == "null" {
		return nil, nil
	}
	if err := json.Unmarshal(t.Events, &evs); err != nil {
		return nil, fmt.Errorf("tx %s: events: %w", t.TxHash, err)
	}
	return evs, nil
}

// TxPage is the reply of the Cosmos tx lists.
type TxPage struct {
	Txs        []Tx       `json:"txs"`
	Pagination Pagination `json:"pagination"`
}

// TxReply is the reply of GET /indexer/tx/v1/txs/{tx_hash}.
type TxReply struct {
	Tx Tx `json:"tx"`
}

// Block is one block as the block API serves it. Hash is upper-case hex; Timestamp is RFC
// 3339 in whole seconds; BlockTime is the milliseconds since the previous block.
type Block struct {
	ChainID   string   `json:"chain_id"`
	Height    string   `json:"height"`
	Hash      string   `json:"hash"`
	BlockTime string   `json:"block_time"`
	Timestamp string   `json:"timestamp"`
	GasUsed   string   `json:"gas_used"`
	GasWanted string   `json:"gas_wanted"`
	TxCount   string   `json:"tx_count"`
	TotalFee  []Fee    `json:"total_fee"`
	Proposer  Proposer `json:"proposer"`
}

// Fee is one coin of a block's total fee.
type Fee struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

// Proposer is a block's proposer as the block API names it.
type Proposer struct {
	Moniker         string `json:"moniker"`
	Identity        string `json:"identity"`
	OperatorAddress string `json:"operator_address"`
}

// BlockHeight parses Height.
func (b Block) BlockHeight() (uint64, error) { return strconv.ParseUint(b.Height, 10, 64) }

// Time parses Timestamp.
func (b Block) Time() (time.Time, error) { return time.Parse(time.RFC3339, b.Timestamp) }

// BlockPage is the reply of GET /indexer/block/v1/blocks. Its cursor is
// base64 of {"height":N} (HeightKey).
type BlockPage struct {
	Blocks     []Block    `json:"blocks"`
	Pagination Pagination `json:"pagination"`
}

// BlockReply is the reply of GET /indexer/block/v1/blocks/{height}.
type BlockReply struct {
	Block Block `json:"block"`
}

// HeightKey is the block list's pagination.key that continues after block h.
func HeightKey(h int64) string { return jsonKey("height", h) }

// TxQuery is Query with the Cosmos lists' message filter.
type TxQuery struct {
	Query
	// Msgs are message type URLs (without the leading slash): only txs holding one.
	Msgs []string
}

func (q TxQuery) values() url.Values {
	v := q.Query.values()
	if len(q.Msgs) > 0 {
		v.Set(ParamMsgs, strings.Join(q.Msgs, ","))
	}
	return v
}

// Txs lists indexed Cosmos transactions.
func (c *Client) Txs(ctx context.Context, q TxQuery) (TxPage, error) {
	var p TxPage
	err := c.get(ctx, PathTxs, q.values(), &p)
	return p, err
}

// TxsByAccount lists the Cosmos transactions that involve account (bech32 or 0x hex): its
// signer, or an address in an event's attributes.
func (c *Client) TxsByAccount(ctx context.Context, account string, q TxQuery) (TxPage, error) {
	var p TxPage
	err := c.get(ctx, PathTxsByAccount+url.PathEscape(account), q.values(), &p)
	return p, err
}

// TxsByHeight lists the Cosmos transactions of one block.
func (c *Client) TxsByHeight(ctx context.Context, height uint64, q TxQuery) (TxPage, error) {
	var p TxPage
	err := c.get(ctx, PathTxsByHeight+strconv.FormatUint(height, 10), q.values(), &p)
	return p, err
}

// Tx fetches one Cosmos transaction by hash (hex). An unknown hash is a 404 (IsNotFound).
func (c *Client) Tx(ctx context.Context, hash string) (Tx, error) {
	var r TxReply
	err := c.get(ctx, PathTxs+"/"+url.PathEscape(hash), nil, &r)
	return r.Tx, err
}

// TxPages iterates over the pages of a Cosmos tx list (PathTxs, or PathTxsByAccount or
// PathTxsByHeight with its argument) from q on, as Pages does.
func (c *Client) TxPages(ctx context.Context, path string, q TxQuery) iter.Seq2[TxPage, error] {
	return func(yield func(TxPage, error) bool) {
		for {
			var p TxPage
			if err := c.get(ctx, path, q.values(), &p); err != nil {
				yield(TxPage{}, err)
				return
			}
			if !yield(p, nil) {
				return
			}
			next, err := nextKey(path, q.Key, len(p.Txs), q.limit(), p.Pagination)
			if next == "" || err != nil {
				if err != nil {
					yield(TxPage{}, err)
				}
				return
			}
			q.Key, q.Offset = next, 0
		}
	}
}

// Blocks lists indexed blocks.
func (c *Client) Blocks(ctx context.Context, q Query) (BlockPage, error) {
	var p BlockPage
	err := c.get(ctx, PathBlocks, q.values(), &p)
	return p, err
}

// Block fetches one block by height. An unknown height is a 404 (IsNotFound).
func (c *Client) Block(ctx context.Context, height uint64) (Block, error) {
	var r BlockReply
	err := c.get(ctx, PathBlocks+"/"+strconv.FormatUint(height, 10), nil, &r)
	return r.Block, err
}

// BlockPages iterates over the pages of the block list from q on, as Pages does.
func (c *Client) BlockPages(ctx context.Context, q Query) iter.Seq2[BlockPage, error] {
	return func(yield func(BlockPage, error) bool) {
		for {
			p, err := c.Blocks(ctx, q)
			if err != nil {
				yield(BlockPage{}, err)
				return
			}
			if !yield(p, nil) {
				return
			}
			next, err := nextKey(PathBlocks, q.Key, len(p.Blocks), q.limit(), p.Pagination)
			if next == "" || err != nil {
				if err != nil {
					yield(BlockPage{}, err)
				}
				return
			}
			q.Key, q.Offset = next, 0
		}
	}
}

// nextKey is the key of the page after one of n rows ("" at the end: a short or empty
// page, or no next_key; the service returns a next_key on its last page too).
func nextKey(path, key string, n, limit int, p Pagination) (string, error) {
	if n == 0 || n < limit || p.NextKey == nil {
		return "", nil
	}
	if *p.NextKey == key {
		return "", fmt.Errorf("indexer: %s: next_key %q repeats the request's key", path, key)
	}
	return *p.NextKey, nil
}

func jsonKey(field string, v int64) string {
	return base64.StdEncoding.EncodeToString([]byte(`{"` + field + `":` + strconv.FormatInt(v, 10) + `}`))
}
