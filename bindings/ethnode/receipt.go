package ethnode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/vipharness/vipharness/bindings/nodehttp"
)

// Receipt is the part of a receipt a push reads: its status, gas and block.
type Receipt struct {
	Status      hexutil.Uint64 `json:"status"`
	GasUsed     hexutil.Uint64 `json:"gasUsed"`
	BlockNumber *hexutil.Big   `json:"blockNumber"`
}

// receiptReader fetches receipts over HTTP JSON-RPC and reads only a receipt's status, gas
// and block. A score chunk's receipt is ~300 KB of JSON (one log per address): go-ethereum's
// client scans a reply four times with encoding/json (the envelope, then the result), which
// was half of vipctl's CPU in a push and, right after a block of many chunks, the delay
// before it sent the next ones. One pass that skips the logs costs a fraction of that.
type receiptReader struct {
	node *nodehttp.Client
}

// maxReceiptReply bounds a receipt reply: a block's gas limit allows no receipt near it.
const maxReceiptReply = 256 << 20

// newReceiptReader reads receipts from endpoint when it is an HTTP(S) URL; other endpoints
// (WebSocket, IPC) return nil and go through the RPC client.
func newReceiptReader(endpoint string) *receiptReader {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	c := nodehttp.New(endpoint, &http.Client{})
	c.MaxReply = maxReceiptReply
	return &receiptReader{node: c}
}

// receipt is tx hash's receipt, nil if the node knows no receipt for it. The node's JSON-RPC
// error comes back as an rpc.Error, as the RPC client returns it.
func (r *receiptReader) receipt(ctx context.Context, hash common.Hash) (*Receipt, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionReceipt","params":["` + hash.Hex() + `"]}`
	// The raw reply, for the one-pass parse (nodehttp.Client.Call would decode it whole).
	reply, err := r.node.Do(ctx, http.MethodPost, "", []byte(body))
	if err != nil {
		return nil, err
	}
	return parseReceiptReply(reply)
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string  { return e.Message }
func (e *rpcError) ErrorCode() int { return e.Code }
func (e *rpcError) ErrorData() any { return e.Data }

var _ rpc.DataError = (*rpcError)(nil)

// parseReceiptReply reads a JSON-RPC reply to eth_getTransactionReceipt: the receipt's
// status, gasUsed and blockNumber, nil for a null result, the error object as an rpcError.
// Everything else in it (the logs) is skipped, its strings and brackets checked.
func parseReceiptReply(b []byte) (*Receipt, error) {
	var (
		rc       *Receipt
		rpcErr   *rpcError
		haveBody bool
	)
	end, err := scanObject(b, skipSpace(b, 0), func(key string, v []byte) error {
		switch key {
		case "result":
			haveBody = true
			if string(v) == "null" {
				return nil
			}
			rc = new(Receipt)
			return parseLeanReceipt(v, rc)
		case "error":
			haveBody = true
			rpcErr = new(rpcError)
			if err := json.Unmarshal(v, rpcErr); err != nil {
				return fmt.Errorf("error object: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decode receipt reply: %w", err)
	}
	if skipSpace(b, end) != len(b) {
		return nil, errors.New("decode receipt reply: data after the reply")
	}
	switch {
	case rpcErr != nil:
		return nil, rpcErr
	case !haveBody:
		return nil, errors.New("decode receipt reply: neither result nor error")
	}
	return rc, nil
}

// parseLeanReceipt reads a receipt object's status, gasUsed and blockNumber.
func parseLeanReceipt(b []byte, rc *Receipt) error {
	end, err := scanObject(b, 0, func(key string, v []byte) error {
		var dst any
		switch key {
		case "status":
			dst = &rc.Status
		case "gasUsed":
			dst = &rc.GasUsed
		case "blockNumber":
			dst = &rc.BlockNumber
		default:
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fmt.Errorf("receipt %s: %w", key, err)
		}
		return nil
	})
	if err == nil && end != len(b) {
		err = errors.New("result: data after the receipt")
	}
	return err
}

// scanObject walks the JSON object starting at b[i], calling field with each key and its raw
// value, and returns the index after the object.
func scanObject(b []byte, i int, field func(key string, value []byte) error) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return 0, fmt.Errorf("want an object at byte %d", i)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, fmt.Errorf("want a key at byte %d", i)
		}
		kEnd, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		var key string
		if err := json.Unmarshal(b[i:kEnd], &key); err != nil {
			return 0, fmt.Errorf("key at byte %d: %w", i, err)
		}
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return 0, fmt.Errorf("want ':' at byte %d", i)
		}
		vStart := skipSpace(b, i+1)
		vEnd, err := skipValue(b, vStart)
		if err != nil {
			return 0, err
		}
		if err := field(key, b[vStart:vEnd]); err != nil {
			return 0, err
		}
		i = skipSpace(b, vEnd)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		return 0, fmt.Errorf("want ',' or '}' at byte %d", i)
	}
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("unexpected end of JSON")
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		return skipContainer(b, i)
	default:
		// A number or a literal: up to the next delimiter; the parsers of the fields read
		// here check theirs, and a skipped one is checked by json.Valid.
		j := i
		for j < len(b) && !isDelimiter(b[j]) {
			j++
		}
		if j == i || !json.Valid(b[i:j]) {
			return 0, fmt.Errorf("bad value at byte %d", i)
		}
		return j, nil
	}
}

// skipString returns the index after the JSON string starting at b[i] (a quote). The closing
// quote is found with IndexByte (vectorised): a backslash before it, rare in a receipt, sends
// the search past the escape.
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, fmt.Errorf("unterminated string at byte %d", i)
		}
		if e := bytes.IndexByte(b[j:j+k], '\\'); e >= 0 {
			j += e + 2 // the escape and the character it escapes
			if j > len(b) {
				return 0, fmt.Errorf("unterminated string at byte %d", i)
			}
			continue
		}
		return j + k + 1, nil
	}
}

// skipContainer returns the index after the object or array starting at b[i], checking that
// its brackets match and its strings, numbers and literals are well-formed.
func skipContainer(b []byte, i int) (int, error) {
	var stack []byte
	for j := i; j < len(b); {
		switch c := b[j]; c {
		case '{', '[':
			stack = append(stack, c)
			j++
		case '}', ']':
			open := byte('{')
			if c == ']' {
				open = '['
			}
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return 0, fmt.Errorf("unbalanced %q at byte %d", c, j)
			}
			stack = stack[:len(stack)-1]
			j++
			if len(stack) == 0 {
				return j, nil
			}
		case '"':
			end, err := skipString(b, j)
			if err != nil {
				return 0, err
			}
			j = end
		case ',', ':', ' ', '\t', '\r', '\n':
			j++
		default:
			end, err := skipValue(b, j)
			if err != nil {
				return 0, err
			}
			j = end
		}
	}
	return 0, fmt.Errorf("unterminated container at byte %d", i)
}

func isDelimiter(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n'
}

// skipSpace returns the index of the first non-space byte at or after b[i].
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
