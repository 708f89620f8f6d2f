package cosmostx

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	sdk "github.com/cosmos/cosmos-sdk/types"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/nodehttp"
	"github.com/vipharness/vipharness/bindings/pbwalk"
)

// A chunk's result holds one event per address. CometBFT's tx endpoint encodes every one of
// them as JSON through reflection on each lookup, which on a 500-address Move chunk costs the
// node about 15 ms; the SDK's tx service asked through abci_query answers the same lookup in
// protobuf for about a third of that. Both carry the events (no endpoint leaves them out); the
// client skips them without decoding. A node without the tx service over abci_query (it says
// "unknown query path") is asked through the tx endpoint from then on.

const getTxPath = "/cosmos.tx.v1beta1.Service/GetTx"

// abciQuery asks the app the gRPC method path with the protobuf request req through
// CometBFT's abci_query; the app's answer (a code, a log, a protobuf value) is the caller's
// to read.
func (c *Client) abciQuery(ctx context.Context, path string, req []byte) (cosmosnode.ABCIResponse, error) {
	return c.Node.ABCIQuery(ctx, path, req)
}

// sdk error codes a GetTx query answers with: the hash is not indexed (yet), or the node has
// no tx service on its query router.
const (
	codeKeyNotFound    = 22
	codeUnknownRequest = 6
)

// errNoTxService is a node that does not serve GetTx over abci_query.
var errNoTxService = errors.New("no tx service over abci_query")

// ErrTxIndexDisabled is a node started with indexer = "null": it cannot look a tx up by
// hash, and a push confirms each chunk by its hash.
var ErrTxIndexDisabled = errors.New(`the node does not index txs (indexer = "null" under [tx_index] in its config.toml): set indexer = "kv" and restart it, since a push confirms each chunk by its tx hash`)

func indexDisabled(msg string) bool { return strings.Contains(msg, "indexing is disabled") }

// CheckTxIndex asks the node for a tx that does not exist: ErrTxIndexDisabled when it
// cannot look txs up by hash at all.
func (c *Client) CheckTxIndex(ctx context.Context) error {
	_, err := c.txResult(ctx, strings.Repeat("00", 32))
	return err
}

// txResult reads a tx's result code, log, gas and height; nil when the node has not indexed
// the hash (yet).
func (c *Client) txResult(ctx context.Context, hash string) (*sdk.TxResponse, error) {
	if atomic.LoadInt32(&c.noTxQuery) == 0 {
		res, err := c.queryTxResult(ctx, hash)
		if !errors.Is(err, errNoTxService) {
			return res, err
		}
		atomic.StoreInt32(&c.noTxQuery, 1)
	}
	return c.endpointTxResult(ctx, hash)
}

// queryTxResult asks the SDK's tx service through abci_query.
func (c *Client) queryTxResult(ctx context.Context, hash string) (*sdk.TxResponse, error) {
	// GetTxRequest{hash: 1}
	q, err := c.abciQuery(ctx, getTxPath, protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), strings.ToUpper(hash)))
	if err != nil {
		return nil, err
	}
	switch {
	case q.Code == 0:
	case q.Codespace == "sdk" && q.Code == codeKeyNotFound:
		return nil, nil
	case q.Codespace == "sdk" && q.Code == codeUnknownRequest && strings.Contains(q.Log, "unknown query path"):
		return nil, errNoTxService
	case indexDisabled(q.Log):
		return nil, ErrTxIndexDisabled
	default:
		return nil, fmt.Errorf("abci_query %s: %s code %d: %s", getTxPath, q.Codespace, q.Code, q.Log)
	}
	res, err := decodeTxResponse(q.Value)
	if err != nil {
		return nil, fmt.Errorf("decode %s reply: %w", getTxPath, err)
	}
	res.TxHash = strings.ToUpper(hash)
	return res, nil
}

const simulatePath = "/cosmos.tx.v1beta1.Service/Simulate"

// querySimulate runs the SDK's Simulate through abci_query and reads its gas, skipping the
// result's events (one per address: the gateway's JSON of them cost the node more than the
// simulation of a 50-address probe).
func (c *Client) querySimulate(ctx context.Context, txBytes []byte) (*txtypes.SimulateResponse, error) {
	// SimulateRequest{tx_bytes: 2}
	q, err := c.abciQuery(ctx, simulatePath, protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), txBytes))
	if err != nil {
		return nil, err
	}
	switch {
	case q.Code == 0:
	case q.Codespace == "sdk" && q.Code == codeUnknownRequest && strings.Contains(q.Log, "unknown query path"):
		return nil, errNoTxService
	default:
		// The node ran the tx and it failed (a contract error, a bad sequence).
		return nil, &TxError{Phase: PhaseSimulate, Codespace: q.Codespace, Code: q.Code, RawLog: q.Log}
	}
	res := &txtypes.SimulateResponse{GasInfo: &sdk.GasInfo{}}
	err = pbwalk.EachField(q.Value, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num != 1 || typ != protowire.BytesType {
			return nil // the result, with its events
		}
		return pbwalk.EachField(v, func(num protowire.Number, typ protowire.Type, _ []byte, n uint64) error {
			switch {
			case num == 1 && typ == protowire.VarintType:
				res.GasInfo.GasWanted = n
			case num == 2 && typ == protowire.VarintType:
				res.GasInfo.GasUsed = n
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("decode %s reply: %w", simulatePath, err)
	}
	return res, nil
}

// decodeTxResponse reads height, code, codespace, raw log and gas from a GetTxResponse's
// tx_response (field 2), skipping the tx body and the events.
func decodeTxResponse(b []byte) (*sdk.TxResponse, error) {
	var inner []byte
	found := false
	if err := pbwalk.EachField(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num == 2 && typ == protowire.BytesType {
			inner, found = v, true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if !found {
		return nil, errors.New("no tx_response")
	}
	res := &sdk.TxResponse{}
	err := pbwalk.EachField(inner, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch {
		case num == 1 && typ == protowire.VarintType:
			res.Height = int64(n)
		case num == 3 && typ == protowire.BytesType:
			res.Codespace = string(v)
		case num == 4 && typ == protowire.VarintType:
			res.Code = uint32(n)
		case num == 6 && typ == protowire.BytesType:
			res.RawLog = string(v)
		case num == 9 && typ == protowire.VarintType:
			res.GasWanted = int64(n)
		case num == 10 && typ == protowire.VarintType:
			res.GasUsed = int64(n)
		}
		return nil
	})
	return res, err
}

// endpointTxResult reads the result from CometBFT's tx endpoint, decoding only the fields a
// push reads (the events and the tx bytes are skipped by the decoder).
func (c *Client) endpointTxResult(ctx context.Context, hash string) (*sdk.TxResponse, error) {
	tx, err := c.Node.Tx(ctx, hash)
	var rpcErr *nodehttp.RPCError
	if errors.As(err, &rpcErr) {
		data := string(rpcErr.Data)
		if strings.Contains(data, "not found") {
			return nil, nil
		}
		if indexDisabled(data) {
			return nil, ErrTxIndexDisabled
		}
	}
	if err != nil {
		return nil, fmt.Errorf("tx endpoint: %w", err)
	}
	r := tx.Result
	return &sdk.TxResponse{TxHash: strings.ToUpper(hash), Height: int64(tx.Height), Code: r.Code, Codespace: r.Codespace,
		RawLog: r.Log, GasUsed: int64(r.GasUsed)}, nil
}
