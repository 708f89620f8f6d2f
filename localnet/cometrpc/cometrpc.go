// Package cometrpc serves the slice of CometBFT's RPC that deployers read from a rollup
// (abci_info, status, health) for chains that have no CometBFT of their own: the embedded
// EVM chain and geth run as a rollup stand-in.
package cometrpc

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	errorsmod "cosmossdk.io/errors"
)

// NodeVersion is the CometBFT version the face reports (status node_info.version; minievm's
// web3_clientVersion and REST node_info show it too): the CometBFT the project's own Cosmos
// rollups run.
const NodeVersion = "0.38.21"

// Info is what the face needs from a chain.
type Info struct {
	App     string // abci_info data: the application's name
	Version string // abci_info version
	Network string // status node_info.network: the chain id
	Moniker string // status node_info.moniker ("": App)
	// Head returns the latest block height and the app hash (state root) at it.
	Head func(ctx context.Context) (height uint64, appHash []byte, err error)
	// Query answers a gRPC query over abci_query at the latest height: the response's
	// value, or an error whose ABCI codespace and code it answers (errorsmod.ABCIInfo).
	// nil: no abci_query.
	Query func(ctx context.Context, path string, data []byte) ([]byte, error)
	// Validator is the chain's one validator's ed25519 key (power 1, opchild's sequencer
	// power), which /validators lists; nil: none.
	Validator []byte
	// Unconfirmed counts the txs waiting for a block and their bytes (num_unconfirmed_txs);
	// nil: none wait.
	Unconfirmed func() (txs, bytes int)
}

func (c *Server) moniker() string {
	if c.info.Moniker != "" {
		return c.info.Moniker
	}
	return c.info.App
}

// Server answers the CometBFT RPC calls that deployers make against a rollup's RPC
// port (abci_info, status) in CometBFT's JSON-RPC 2.0 shapes, both as POST with a JSON-RPC
// body and as GET /method.
type Server struct {
	url  string
	srv  *http.Server
	info Info
}

// Start listens on an ephemeral 127.0.0.1 port.
func Start(info Info) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for cometbft rpc: %w", err)
	}
	c := &Server{url: "http://" + ln.Addr().String(), info: info}
	c.srv = &http.Server{Handler: c, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = c.srv.Serve(ln) }()
	return c, nil
}

// URL is the RPC base URL.
func (c *Server) URL() string { return c.url }

// Close stops serving.
func (c *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		// past the grace period (a pooled connection never used counts as busy): cut off
		if cerr := c.srv.Close(); cerr != nil {
			return fmt.Errorf("stop cometbft rpc: %w", cerr)
		}
	}
	return nil
}

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"` // read by the method that takes them
}

// queryParams are abci_query's: the path and the request's bytes in hex.
type queryParams struct {
	Path string `json:"path"`
	Data string `json:"data"`
	// Height is a method's height argument ("": the head).
	Height string `json:"height"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func (c *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := rpcRequest{JSONRPC: "2.0", ID: json.RawMessage("-1"), Method: strings.Trim(r.URL.Path, "/")}
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			writeRPC(w, http.StatusBadRequest, rpcResponse{JSONRPC: "2.0", ID: req.ID, Error: &rpcError{Code: -32700, Message: "Parse error", Data: err.Error()}})
			return
		}
		if len(strings.TrimSpace(string(body))) > 0 {
			if err := json.Unmarshal(body, &req); err != nil {
				writeRPC(w, http.StatusBadRequest, rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("-1"), Error: &rpcError{Code: -32700, Message: "Parse error. Invalid JSON", Data: err.Error()}})
				return
			}
		}
	} else if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if len(req.ID) == 0 {
		req.ID = json.RawMessage("-1")
	}
	var params queryParams
	if r.Method == http.MethodGet { // GET /abci_query?path="..."&data=0x...
		q := r.URL.Query()
		params = queryParams{Path: strings.Trim(q.Get("path"), `"`), Data: strings.Trim(q.Get("data"), `"`), Height: strings.Trim(q.Get("height"), `"`)}
	} else if (req.Method == "abci_query" || req.Method == "validators") && len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &params); err != nil {
			writeRPC(w, http.StatusInternalServerError, rpcResponse{JSONRPC: "2.0", ID: req.ID, Error: &rpcError{Code: -32602, Message: "Invalid params", Data: err.Error()}})
			return
		}
	}
	result, err := c.call(r.Context(), req.Method, params)
	if errors.Is(err, errMethodNotFound) && r.Method == http.MethodGet {
		// CometBFT serves each method on a path of its own; another path is its mux's 404.
		http.NotFound(w, r)
		return
	}
	if err != nil {
		status, code, msg, data := http.StatusInternalServerError, -32603, "Internal error", err.Error()
		if errors.Is(err, errMethodNotFound) {
			// CometBFT's wording, which clients match on.
			status, code, msg = http.StatusNotFound, -32601, "Method not found"
		}
		writeRPC(w, status, rpcResponse{JSONRPC: "2.0", ID: req.ID, Error: &rpcError{Code: code, Message: msg, Data: data}})
		return
	}
	writeRPC(w, http.StatusOK, rpcResponse{JSONRPC: "2.0", ID: req.ID, Result: result})
}

var errMethodNotFound = errors.New("method not found")

func (c *Server) call(ctx context.Context, method string, params queryParams) (any, error) {
	switch method {
	case "abci_query":
		if c.info.Query != nil {
			return c.abciQuery(ctx, params)
		}
	case "abci_info":
		height, hash, err := c.info.Head(ctx)
		if err != nil {
			return nil, fmt.Errorf("read chain head: %w", err)
		}
		return map[string]any{"response": map[string]string{
			"data":                c.info.App,
			"version":             c.info.Version,
			"last_block_height":   strconv.FormatUint(height, 10),
			"last_block_app_hash": base64.StdEncoding.EncodeToString(hash),
		}}, nil
	case "validators":
		height, _, err := c.info.Head(ctx)
		if err != nil {
			return nil, fmt.Errorf("read chain head: %w", err)
		}
		if params.Height != "" {
			// The set never changes (one sequencer): any height the chain has lists it.
			h, err := strconv.ParseInt(params.Height, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("height %q: %w", params.Height, err)
			}
			if h > int64(height) {
				return nil, fmt.Errorf("height %d must be less than or equal to the current blockchain height %d", h, height)
			}
			if h > 0 {
				height = uint64(h)
			}
		}
		vals := []any{}
		if key := c.info.Validator; key != nil {
			addr := sha256.Sum256(key)
			vals = append(vals, map[string]any{"address": strings.ToUpper(hex.EncodeToString(addr[:20])),
				"pub_key":      map[string]string{"type": "tendermint/PubKeyEd25519", "value": base64.StdEncoding.EncodeToString(key)},
				"voting_power": "1", "proposer_priority": "0"})
		}
		n := strconv.Itoa(len(vals))
		return map[string]any{"block_height": strconv.FormatUint(height, 10), "validators": vals, "count": n, "total": n}, nil
	case "net_info": // a single node, as a rollup's sequencer runs: no peers
		return map[string]any{"listening": true, "listeners": []string{"Listener(@)"}, "n_peers": "0", "peers": []any{}}, nil
	case "num_unconfirmed_txs":
		txs, size := 0, 0
		if c.info.Unconfirmed != nil {
			txs, size = c.info.Unconfirmed()
		}
		return map[string]any{"n_txs": strconv.Itoa(txs), "total": strconv.Itoa(txs), "total_bytes": strconv.Itoa(size), "txs": nil}, nil
	case "status", "health":
		height, hash, err := c.info.Head(ctx)
		if err != nil {
			return nil, fmt.Errorf("read chain head: %w", err)
		}
		if method == "health" {
			return map[string]any{}, nil
		}
		return map[string]any{
			// node_info.version is CometBFT's, as a node reports it (the app's is abci_info's).
			"node_info": map[string]any{"network": c.info.Network, "version": NodeVersion, "moniker": c.moniker()},
			"sync_info": map[string]any{
				"latest_block_height": strconv.FormatUint(height, 10),
				"latest_app_hash":     strings.ToUpper(fmt.Sprintf("%x", hash)),
				"catching_up":         false,
			},
		}, nil
	}
	return nil, fmt.Errorf("%w: %q", errMethodNotFound, method)
}

func writeRPC(w http.ResponseWriter, status int, resp rpcResponse) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}

// abciQuery answers abci_query as CometBFT does: the app's response, a refusal in its
// codespace and code with the error as the log.
func (c *Server) abciQuery(ctx context.Context, p queryParams) (any, error) {
	data, err := hex.DecodeString(strings.TrimPrefix(p.Data, "0x"))
	if err != nil {
		return nil, fmt.Errorf("abci_query data: %w", err)
	}
	height, _, err := c.info.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("read chain head: %w", err)
	}
	resp := map[string]any{"code": 0, "log": "", "info": "", "index": "0", "key": nil, "value": nil,
		"proofOps": nil, "height": strconv.FormatUint(height, 10), "codespace": ""}
	value, err := c.info.Query(ctx, p.Path, data)
	if err != nil {
		space, code, log := errorsmod.ABCIInfo(err, false)
		resp["codespace"], resp["code"], resp["log"], resp["height"] = space, code, log, "0"
	} else if len(value) > 0 {
		resp["value"] = base64.StdEncoding.EncodeToString(value)
	}
	return map[string]any{"response": resp}, nil
}
