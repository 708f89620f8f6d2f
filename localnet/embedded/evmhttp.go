package embedded

import (
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
)

// jsonrpcServer serves the rollup's JSON-RPC on loopback as minievm serves it: HTTP on one
// port, WebSocket on a port of its own (minievm's json-rpc address and address-ws, 8545 and
// 8546), each an http.Server of its own around one rpc.Server, with geth's CORS and
// virtual-host checks and without compressing replies. As on a minievm, the HTTP port
// answers a GET (a WebSocket upgrade too) with 405 and the WebSocket port refuses a plain
// HTTP request (400). geth's node gzips every reply a client accepts gzip for (Go's HTTP
// client always does): a receipt of a 455-address chunk is 300 KB of JSON, and compressing
// it cost the chain as much as encoding it.
type jsonrpcServer struct {
	rpc        *rpc.Server
	http, ws   *http.Server
	url, wsURL string
}

// jsonrpcLimits are geth's node defaults, which minievm's match (jsonrpc/config: batches of
// up to 1,000 requests and 25 MB of replies).
var jsonrpcLimits = struct{ batchItems, batchBytes, bodyBytes int }{
	node.DefaultConfig.BatchRequestLimit, node.DefaultConfig.BatchResponseMaxSize, node.DefaultConfig.HTTPBodyLimit,
}

// startJSONRPC serves the APIs of the given namespaces on 127.0.0.1 at two free ports.
func startJSONRPC(apis []rpc.API, namespaces []string) (*jsonrpcServer, error) {
	srv := rpc.NewServer()
	srv.SetBatchLimits(jsonrpcLimits.batchItems, jsonrpcLimits.batchBytes)
	srv.SetHTTPBodyLimit(jsonrpcLimits.bodyBytes)
	if err := node.RegisterApis(apis, namespaces, srv); err != nil {
		srv.Stop()
		return nil, fmt.Errorf("json-rpc: register the namespaces %v: %w", namespaces, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Stop()
		return nil, fmt.Errorf("json-rpc: listen on 127.0.0.1: %w", err)
	}
	wsLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = ln.Close()
		srv.Stop()
		return nil, fmt.Errorf("json-rpc websocket: listen on 127.0.0.1: %w", err)
	}
	plain := node.NewHTTPHandlerStack(srv, []string{"*"}, []string{"*"}, nil, true)
	s := &jsonrpcServer{rpc: srv, url: "http://" + ln.Addr().String(), wsURL: "ws://" + wsLn.Addr().String()}
	server := func(h http.Handler) *http.Server {
		return &http.Server{
			Handler:           h,
			ReadTimeout:       rpc.DefaultHTTPTimeouts.ReadTimeout,
			ReadHeaderTimeout: rpc.DefaultHTTPTimeouts.ReadHeaderTimeout,
			WriteTimeout:      rpc.DefaultHTTPTimeouts.WriteTimeout,
			IdleTimeout:       rpc.DefaultHTTPTimeouts.IdleTimeout,
		}
	}
	s.http = server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Add("Vary", "Origin")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		plain.ServeHTTP(w, r)
	}))
	s.ws = server(srv.WebsocketHandler([]string{"*"}))
	go func() { _ = s.http.Serve(ln) }()
	go func() { _ = s.ws.Serve(wsLn) }()
	return s, nil
}

// URL is the HTTP endpoint.
func (s *jsonrpcServer) URL() string { return s.url }

// WSURL is the WebSocket endpoint (its own port).
func (s *jsonrpcServer) WSURL() string { return s.wsURL }

// Close stops serving: the listeners and idle connections, then the rpc server, which ends
// the WebSocket connections and their subscriptions.
func (s *jsonrpcServer) Close() error {
	err := errors.Join(s.http.Close(), s.ws.Close())
	s.rpc.Stop()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("json-rpc: close: %w", err)
	}
	return nil
}

// web3API is the web3 namespace, which geth's node serves itself (not the eth service).
// netAPI answers net_version as minievm does: "1" (its network id is not the chain id;
// clients take the chain id from eth_chainId). Registered after geth's net service, it
// replaces that method only.
type netAPI struct{}

// Version is minievm's network id.
func (netAPI) Version() string { return "1" }

type web3API struct{ clientVersion string }

// ClientVersion names the node software, as geth's node does.
func (a *web3API) ClientVersion() string { return a.clientVersion }

// Sha3 is keccak256 of input.
func (a *web3API) Sha3(input hexutil.Bytes) hexutil.Bytes { return crypto.Keccak256(input) }
