package cosmosnode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The CometBFT RPC calls the signing client makes: status, consensus limits, broadcast,
// block scans and a tx's result, each decoding only the fields read.

// Status is what CometBFT's status says of the chain.
type Status struct {
	ChainID        string
	Moniker        string
	NodeID         string // the node's P2P id (hex of its node key's address)
	LatestHeight   uint64
	EarliestHeight uint64 // the lowest block the node still holds
}

// Status reads CometBFT's status.
func (n *Node) Status(ctx context.Context) (Status, error) {
	var r struct {
		NodeInfo struct {
			ID      string `json:"id"`
			Network string `json:"network"`
			Moniker string `json:"moniker"`
		} `json:"node_info"`
		SyncInfo struct {
			LatestBlockHeight   Uint `json:"latest_block_height"`
			EarliestBlockHeight Uint `json:"earliest_block_height"`
		} `json:"sync_info"`
	}
	if err := n.RPC.Call(ctx, "status", map[string]any{}, &r); err != nil {
		return Status{}, fmt.Errorf("cometbft status: %w", err)
	}
	return Status{ChainID: r.NodeInfo.Network, Moniker: r.NodeInfo.Moniker, NodeID: r.NodeInfo.ID, LatestHeight: uint64(r.SyncInfo.LatestBlockHeight),
		EarliestHeight: uint64(r.SyncInfo.EarliestBlockHeight)}, nil
}

// Limits are the consensus limits on a block.
type Limits struct {
	MaxBlockGas   int64 // -1: no limit
	MaxBlockBytes int64
}

// Limits reads the consensus parameters at height.
func (n *Node) Limits(ctx context.Context, height uint64) (Limits, error) {
	var r struct {
		Params struct {
			Block struct {
				MaxBytes Int `json:"max_bytes"`
				MaxGas   Int `json:"max_gas"`
			} `json:"block"`
		} `json:"consensus_params"`
	}
	if err := n.RPC.Call(ctx, "consensus_params", map[string]any{"height": strconv.FormatUint(height, 10)}, &r); err != nil {
		return Limits{}, fmt.Errorf("cometbft consensus_params at %d: %w", height, err)
	}
	return Limits{MaxBlockGas: int64(r.Params.Block.MaxGas), MaxBlockBytes: int64(r.Params.Block.MaxBytes)}, nil
}

// CheckResult is a node's answer to broadcast_tx_sync: the tx's CheckTx outcome.
type CheckResult struct {
	Code      uint32 `json:"code"`
	Codespace string `json:"codespace"`
	Log       string `json:"log"`
	Hash      string `json:"hash"` // upper-case hex
}

// BroadcastSync hands tx to the node's mempool (broadcast_tx_sync). A JSON-RPC error
// (a tx already in the cache, a full mempool) is a *nodehttp.RPCError.
func (n *Node) BroadcastSync(ctx context.Context, tx []byte) (*CheckResult, error) {
	var r CheckResult
	if err := n.RPC.Call(ctx, "broadcast_tx_sync", map[string]any{"tx": tx}, &r); err != nil {
		return nil, err
	}
	r.Hash = strings.ToUpper(r.Hash)
	return &r, nil
}

// Block is a block's hash, its parent's, its time and its txs, in order.
type Block struct {
	Height       uint64
	Hash, Parent HexBytes
	Time         time.Time
	Txs          [][]byte
}

// TxHash is the hash CometBFT names tx by (sha256 of its bytes).
func TxHash(tx []byte) []byte {
	h := sha256.Sum256(tx)
	return h[:]
}

// Block reads block height.
func (n *Node) Block(ctx context.Context, height uint64) (*Block, error) {
	var r struct {
		BlockID struct {
			Hash HexBytes `json:"hash"`
		} `json:"block_id"`
		Block struct {
			Header struct {
				Time        time.Time `json:"time"`
				LastBlockID struct {
					Hash HexBytes `json:"hash"`
				} `json:"last_block_id"`
			} `json:"header"`
			Data struct {
				Txs [][]byte `json:"txs"`
			} `json:"data"`
		} `json:"block"`
	}
	if err := n.RPC.Call(ctx, "block", map[string]any{"height": strconv.FormatUint(height, 10)}, &r); err != nil {
		return nil, fmt.Errorf("cometbft block %d: %w", height, err)
	}
	return &Block{Height: height, Hash: r.BlockID.Hash, Parent: r.Block.Header.LastBlockID.Hash,
		Time: r.Block.Header.Time, Txs: r.Block.Data.Txs}, nil
}

// TxResult is a delivered tx's outcome.
type TxResult struct {
	Code      uint32  `json:"code"`
	Codespace string  `json:"codespace"`
	Log       string  `json:"log"`
	Info      string  `json:"info"`
	Data      []byte  `json:"data"`
	GasWanted Int     `json:"gas_wanted"`
	GasUsed   Int     `json:"gas_used"`
	Events    []Event `json:"events"`
}

// BlockResults reads the outcomes of block height's txs, in block order.
func (n *Node) BlockResults(ctx context.Context, height uint64) ([]TxResult, error) {
	var r struct {
		TxsResults []TxResult `json:"txs_results"`
	}
	if err := n.RPC.Call(ctx, "block_results", map[string]any{"height": strconv.FormatUint(height, 10)}, &r); err != nil {
		return nil, fmt.Errorf("cometbft block_results %d: %w", height, err)
	}
	return r.TxsResults, nil
}

// IndexedTx is a tx's outcome as the node's tx index holds it.
type IndexedTx struct {
	Height Uint     `json:"height"`
	Result TxResult `json:"tx_result"`
}

// Tx reads tx hash (hex) from the node's tx index, without its proof; the tx and its events
// are skipped by the decoder. A hash the index does not hold is a *nodehttp.RPCError whose
// data says "not found".
func (n *Node) Tx(ctx context.Context, hash string) (*IndexedTx, error) {
	b, err := hex.DecodeString(hash)
	if err != nil {
		return nil, fmt.Errorf("cometbft tx %s: the hash is not hex", hash)
	}
	var r IndexedTx
	if err := n.RPC.Call(ctx, "tx", map[string]any{"hash": b, "prove": false}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ABCIResponse is the application's answer to an abci_query.
type ABCIResponse struct {
	Code      uint32 `json:"code"`
	Log       string `json:"log"`
	Codespace string `json:"codespace"`
	Value     []byte `json:"value"`
}

// ABCIQuery asks the application the gRPC method path with the protobuf request data; the
// answer's code, log and value are the caller's to read.
func (n *Node) ABCIQuery(ctx context.Context, path string, data []byte) (ABCIResponse, error) {
	var r struct {
		Response ABCIResponse `json:"response"`
	}
	if err := n.RPC.Call(ctx, "abci_query", map[string]any{"path": path, "data": hex.EncodeToString(data), "prove": false}, &r); err != nil {
		return ABCIResponse{}, fmt.Errorf("abci_query %s: %w", path, err)
	}
	return r.Response, nil
}

// Int is a signed integer CometBFT's JSON writes as a string (64-bit) or a number.
type Int int64

func (i *Int) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*i = 0
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("integer %s: %w", b, err)
	}
	*i = Int(v)
	return nil
}

// HexBytes are bytes CometBFT's JSON writes as hex (block and tx hashes).
type HexBytes []byte

func (h *HexBytes) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("hex bytes: %w", err)
	}
	v, err := hex.DecodeString(s)
	if err != nil {
		return fmt.Errorf("hex bytes %q: %w", s, err)
	}
	*h = v
	return nil
}
