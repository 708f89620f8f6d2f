// Package cosmosnode reads a Cosmos node (an Initia rollup, the L1, a wasmd) through its
// REST face (the gRPC gateway) and its CometBFT RPC: what the chain says of itself (bech32
// prefix, node_info, minimum gas price, abci_info) and its transactions by event (tx_search,
// decoded in one pass). It is the one reader of those faces; deployer/vm/cosmostx signs and
// sends on top of it.
package cosmosnode

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vipharness/vipharness/bindings/nodehttp"
)

// Node is a Cosmos node's REST face and CometBFT RPC; either may be absent (empty URL) when
// the caller needs only the other.
type Node struct {
	REST *nodehttp.Client
	RPC  *nodehttp.Client
}

// New reads the node at rest (REST root) and rpc (CometBFT RPC; tcp:// as CometBFT's
// config writes it is read as http://) through hc (nil: the nodehttp default timeout).
func New(rest, rpc string, hc *http.Client) *Node {
	if addr, ok := strings.CutPrefix(rpc, "tcp://"); ok {
		rpc = "http://" + addr
	}
	return &Node{REST: nodehttp.New(rest, hc), RPC: nodehttp.New(rpc, hc)}
}

// Bech32Prefix is the chain's bech32 account prefix (the auth module's).
func (n *Node) Bech32Prefix(ctx context.Context) (string, error) {
	var r struct {
		Prefix string `json:"bech32_prefix"`
	}
	if err := n.REST.GetJSON(ctx, "/cosmos/auth/v1beta1/bech32", &r); err != nil {
		return "", fmt.Errorf("read the bech32 prefix: %w", err)
	}
	if r.Prefix == "" {
		return "", fmt.Errorf("read the bech32 prefix from %s: the chain reports none", n.REST.URL)
	}
	return r.Prefix, nil
}

// NodeInfo is what a node says of itself (/cosmos/base/tendermint/v1beta1/node_info).
type NodeInfo struct {
	Network   string // the chain id
	NodeID    string // the node's P2P id, as CometBFT's status gives it
	Name      string // application_version.name: minievm, minimove, miniwasm on an Initia rollup
	AppName   string // application_version.app_name: minitiad on an Initia rollup
	Version   string // application_version.version
	BuildTags string // application_version.build_tags
}

// NodeInfo reads the node's node_info.
func (n *Node) NodeInfo(ctx context.Context) (NodeInfo, error) {
	var r struct {
		Default struct {
			Network string `json:"network"`
			NodeID  string `json:"default_node_id"`
		} `json:"default_node_info"`
		App struct {
			Name      string `json:"name"`
			AppName   string `json:"app_name"`
			Version   string `json:"version"`
			BuildTags string `json:"build_tags"`
		} `json:"application_version"`
	}
	if err := n.REST.GetJSON(ctx, "/cosmos/base/tendermint/v1beta1/node_info", &r); err != nil {
		return NodeInfo{}, fmt.Errorf("read node_info: %w", err)
	}
	return NodeInfo{Network: r.Default.Network, NodeID: r.Default.NodeID, Name: r.App.Name, AppName: r.App.AppName,
		Version: r.App.Version, BuildTags: r.App.BuildTags}, nil
}

// MinGasPrice is the node's minimum gas price as its config reports it ("0.15umin", "" at none).
func (n *Node) MinGasPrice(ctx context.Context) (string, error) {
	var r struct {
		MinimumGasPrice string `json:"minimum_gas_price"`
	}
	if err := n.REST.GetJSON(ctx, "/cosmos/base/node/v1beta1/config", &r); err != nil {
		return "", fmt.Errorf("read the minimum gas price: %w", err)
	}
	return r.MinimumGasPrice, nil
}

// Version is a node's abci_info.
type Version struct {
	App             string `json:"app"`
	Version         string `json:"version"`
	LastBlockHeight uint64 `json:"last_block_height"`
	AppHash         []byte `json:"app_hash"`
}

// ABCIInfo asks the CometBFT RPC for abci_info: the application's name and version, and its
// last block.
func (n *Node) ABCIInfo(ctx context.Context) (Version, error) {
	var r struct {
		Response struct {
			Data             string `json:"data"`
			Version          string `json:"version"`
			LastBlockHeight  string `json:"last_block_height"`
			LastBlockAppHash []byte `json:"last_block_app_hash"`
		} `json:"response"`
	}
	if err := n.RPC.Call(ctx, "abci_info", map[string]any{}, &r); err != nil {
		return Version{}, fmt.Errorf("read the rollup's version: %w", err)
	}
	v := Version{App: r.Response.Data, Version: r.Response.Version, AppHash: r.Response.LastBlockAppHash}
	if h := r.Response.LastBlockHeight; h != "" {
		var err error
		if v.LastBlockHeight, err = strconv.ParseUint(h, 10, 64); err != nil {
			return Version{}, fmt.Errorf("read the rollup's version from %s: last_block_height %q is not a number", n.RPC.URL, h)
		}
	}
	return v, nil
}

// SearchPage is one page of tx_search, oldest first.
type SearchPage struct {
	Txs        []Tx `json:"txs"`
	TotalCount Uint `json:"total_count"`
}

// Tx is a transaction of a tx_search reply: the fields CometBFT writes that the readers use.
type Tx struct {
	Hash     string `json:"hash"` // upper-case hex
	Height   Uint   `json:"height"`
	Index    Uint   `json:"index"`
	TxResult struct {
		Code   uint32  `json:"code"`
		Events []Event `json:"events"`
	} `json:"tx_result"`
}

// Event is a transaction's event as CometBFT writes it (and the indexer serves it).
type Event struct {
	Type       string      `json:"type"`
	Attributes []Attribute `json:"attributes"`
}

// Attribute is one attribute of an Event.
type Attribute struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Index bool   `json:"index,omitempty"`
}

// Attr is the value of the event's first attribute key, or "".
func (e *Event) Attr(key string) string {
	for _, a := range e.Attributes {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// HashBytes is the tx's 32-byte hash.
func (t *Tx) HashBytes() ([]byte, error) {
	h, err := hex.DecodeString(t.Hash)
	if err != nil || len(h) != 32 {
		return nil, fmt.Errorf("tx hash %q is not 32 bytes of hex", t.Hash)
	}
	return h, nil
}

// Uint is an integer CometBFT's JSON writes as a string (64-bit) or a number.
type Uint uint64

func (u *Uint) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseUint(strings.Trim(string(b), `"`), 10, 64)
	if err != nil {
		return fmt.Errorf("integer %s: %w", b, err)
	}
	*u = Uint(v)
	return nil
}

// MaxPerPage is CometBFT's largest tx_search page.
const MaxPerPage = 100

// TxSearch asks for page (from 1) of per transactions matching query (CometBFT's event
// query language), oldest first. It decodes the reply in one pass of encoding/json: CometBFT's
// own client decodes each tx result through amino JSON and then jsonpb, which re-validates the
// nested JSON at every level (80% of a policy reader's CPU; BENCHMARKS.md, "policy").
func (n *Node) TxSearch(ctx context.Context, query string, page, per int) (*SearchPage, error) {
	var r SearchPage
	params := map[string]any{"query": query, "prove": false, "page": strconv.Itoa(page), "per_page": strconv.Itoa(per), "order_by": "asc"}
	if err := n.RPC.Call(ctx, "tx_search", params, &r); err != nil {
		return nil, fmt.Errorf("tx_search %q page %d: %w", query, page, err)
	}
	return &r, nil
}

// FindTx returns the hash of the first successful tx matching query whose events satisfy
// match, or "" when there is none.
func (n *Node) FindTx(ctx context.Context, query string, match func([]Event) bool) (string, error) {
	for page := 1; ; page++ {
		res, err := n.TxSearch(ctx, query, page, MaxPerPage)
		if err != nil {
			return "", err
		}
		for i := range res.Txs {
			if tx := &res.Txs[i]; tx.TxResult.Code == 0 && match(tx.TxResult.Events) {
				return strings.ToUpper(tx.Hash), nil
			}
		}
		if len(res.Txs) < MaxPerPage || page*MaxPerPage >= int(res.TotalCount) {
			return "", nil
		}
	}
}

// LatestHeight is the height of the node's newest block (CometBFT status).
func (n *Node) LatestHeight(ctx context.Context) (uint64, error) {
	st, err := n.Status(ctx)
	return st.LatestHeight, err
}

// BlockMeta is a committed block's id hash and time.
type BlockMeta struct {
	Height uint64
	Hash   []byte
	Time   time.Time
}

// BlockMeta reads block height's id hash and time (CometBFT blockchain, one block); a block
// the node does not have is an error that says so.
func (n *Node) BlockMeta(ctx context.Context, height uint64) (BlockMeta, error) {
	h := strconv.FormatUint(height, 10)
	var r struct {
		BlockMetas []struct {
			BlockID struct {
				Hash string `json:"hash"`
			} `json:"block_id"`
			Header struct {
				Height Uint      `json:"height"`
				Time   time.Time `json:"time"`
			} `json:"header"`
		} `json:"block_metas"`
	}
	if err := n.RPC.Call(ctx, "blockchain", map[string]any{"minHeight": h, "maxHeight": h}, &r); err != nil {
		return BlockMeta{}, fmt.Errorf("cometbft block %d: %w", height, err)
	}
	if len(r.BlockMetas) != 1 || uint64(r.BlockMetas[0].Header.Height) != height {
		return BlockMeta{}, fmt.Errorf("cometbft block %d: no such block", height)
	}
	m := r.BlockMetas[0]
	hash, err := hex.DecodeString(m.BlockID.Hash)
	if err != nil || len(hash) != 32 {
		return BlockMeta{}, fmt.Errorf("cometbft block %d: id hash %q is not 32 bytes of hex", height, m.BlockID.Hash)
	}
	return BlockMeta{Height: height, Hash: hash, Time: m.Header.Time}, nil
}

// HasIndexedBlock reports whether the node's block index holds block height: CometBFT
// indexes a block's events and then its txs, block after block, so block h+1 in the block
// index means h's txs are all in the tx index.
func (n *Node) HasIndexedBlock(ctx context.Context, height uint64) (bool, error) {
	var r struct {
		TotalCount Uint `json:"total_count"`
	}
	params := map[string]any{"query": fmt.Sprintf("block.height = %d", height), "page": "1", "per_page": "1", "order_by": "asc"}
	if err := n.RPC.Call(ctx, "block_search", params, &r); err != nil {
		return false, fmt.Errorf("cometbft block_search for block %d: %w", height, err)
	}
	return r.TotalCount > 0, nil
}
