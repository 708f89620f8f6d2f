package cosmostx

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	sdk "github.com/cosmos/cosmos-sdk/types"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vipharness/vipharness/bindings/pbwalk"
)

// A chunk's result holds one event per address. CometBFT's tx endpoint encodes every one of
// them as JSON through reflection on each lookup, which on a 500-address Move chunk costs the
// node about 15 ms; the SDK's tx service asked through abci_query answers the same lookup in
// protobuf for about a third of that. Both carry the events (no endpoint leaves them out); the
// client skips them without decoding. A node without the tx service over abci_query (it says
// "unknown query path") is asked through the tx endpoint from then on.

const getTxPath = "/cosmos.tx.v1beta1.Service/GetTx"

// abciResponse is the part of an abci_query response the client reads.
type abciResponse struct {
	Code      uint32 `json:"code"`
	Log       string `json:"log"`
	Codespace string `json:"codespace"`
	Value     []byte `json:"value"`
}

// abciQueryReply is CometBFT's JSON-RPC reply to abci_query.
type abciQueryReply struct {
	Result *struct {
		Response abciResponse `json:"response"`
	} `json:"result"`
	Error *rpcError `json:"error"`
}

// abciQuery asks the app the gRPC method path with the protobuf request req through
// CometBFT's abci_query; the app's answer (a code, a log, a protobuf value) is the caller's
// to read.
func (c *Client) abciQuery(ctx context.Context, path string, req []byte) (abciResponse, error) {
	u := c.rpcBase() + "/abci_query?path=" + url.QueryEscape(`"`+path+`"`) + "&data=0x" + hex.EncodeToString(req)
	var reply abciQueryReply
	status, err := c.getRPC(ctx, u, &reply)
	if err != nil {
		return abciResponse{}, fmt.Errorf("abci_query %s: %w", path, err)
	}
	if reply.Error != nil {
		return abciResponse{}, fmt.Errorf("abci_query %s: %w", path, reply.Error)
	}
	if reply.Result == nil {
		return abciResponse{}, fmt.Errorf("abci_query %s: HTTP %d with neither result nor error", path, status)
	}
	return reply.Result.Response, nil
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

// rpcBase is the CometBFT RPC's HTTP address.
func (c *Client) rpcBase() string {
	if rest, ok := strings.CutPrefix(c.rpcURL, "tcp://"); ok {
		return "http://" + rest
	}
	return c.rpcURL
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

// leanTx is the part of CometBFT's tx reply a push reads; the events and the tx bytes are
// skipped by the decoder. Integers wider than 32 bits come as decimal strings.
type leanTx struct {
	Result *struct {
		Height   int64 `json:"height,string"`
		TxResult struct {
			Code      uint32 `json:"code"`
			Codespace string `json:"codespace"`
			Log       string `json:"log"`
			GasUsed   int64  `json:"gas_used,string"`
		} `json:"tx_result"`
	} `json:"result"`
	Error *rpcError `json:"error"`
}

// endpointTxResult reads the result from CometBFT's tx endpoint, decoding only the fields a
// push reads (the events and the tx bytes are skipped by the decoder).
func (c *Client) endpointTxResult(ctx context.Context, hash string) (*sdk.TxResponse, error) {
	var lt leanTx
	status, err := c.getRPC(ctx, c.rpcBase()+"/tx?prove=false&hash=0x"+url.QueryEscape(hash), &lt)
	if err != nil {
		return nil, fmt.Errorf("tx endpoint: %w", err)
	}
	if lt.Error != nil {
		if strings.Contains(lt.Error.Data, "not found") {
			return nil, nil
		}
		if indexDisabled(lt.Error.Data) {
			return nil, ErrTxIndexDisabled
		}
		return nil, fmt.Errorf("tx endpoint: %w", lt.Error)
	}
	if lt.Result == nil {
		return nil, fmt.Errorf("tx endpoint: HTTP %d with neither result nor error", status)
	}
	r := lt.Result
	return &sdk.TxResponse{TxHash: strings.ToUpper(hash), Height: r.Height, Code: r.TxResult.Code, Codespace: r.TxResult.Codespace,
		RawLog: r.TxResult.Log, GasUsed: r.TxResult.GasUsed}, nil
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d): %s", e.Message, e.Code, e.Data) }

// getRPC GETs a CometBFT RPC URL and decodes its JSON-RPC reply into v; it returns the HTTP
// status for errors that name it.
func (c *Client) getRPC(ctx context.Context, u string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return resp.StatusCode, fmt.Errorf("decode the reply (HTTP %d): %w", resp.StatusCode, err)
	}
	return resp.StatusCode, nil
}
