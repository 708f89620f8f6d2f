package embedded

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
)

// jsonrpcServer serves the rollup's JSON-RPC on one loopback port, HTTP and WebSocket alike,
// as minievm serves it: an http.Server of its own around an rpc.Server, with geth's CORS and
// virtual-host checks and without compressing replies. geth's node gzips every reply a
// client accepts gzip for (Go's HTTP client always does): a receipt of a 455-address chunk
// is 300 KB of JSON, and compressing it cost the chain as much as encoding it.
type jsonrpcServer struct {
	rpc  *rpc.Server
	http *http.Server
	url  string
}

// jsonrpcLimits are geth's node defaults, which minievm's match (jsonrpc/config: batches of
// up to 1,000 requests and 25 MB of replies).
var jsonrpcLimits = struct{ batchItems, batchBytes, bodyBytes int }{
	node.DefaultConfig.BatchRequestLimit, node.DefaultConfig.BatchResponseMaxSize, node.DefaultConfig.HTTPBodyLimit,
}

// startJSONRPC serves the APIs of the given namespaces on 127.0.0.1 at a free port.
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
	plain := node.NewHTTPHandlerStack(srv, []string{"*"}, []string{"*"}, nil, true)
	ws := srv.WebsocketHandler([]string{"*"})
	s := &jsonrpcServer{rpc: srv, url: "http://" + ln.Addr().String()}
	s.http = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
				ws.ServeHTTP(w, r)
				return
			}
			plain.ServeHTTP(w, r)
		}),
		ReadTimeout:       rpc.DefaultHTTPTimeouts.ReadTimeout,
		ReadHeaderTimeout: rpc.DefaultHTTPTimeouts.ReadHeaderTimeout,
		WriteTimeout:      rpc.DefaultHTTPTimeouts.WriteTimeout,
		IdleTimeout:       rpc.DefaultHTTPTimeouts.IdleTimeout,
	}
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

// URL is the HTTP endpoint.
func (s *jsonrpcServer) URL() string { return s.url }

// WSURL is the WebSocket endpoint (the same port).
func (s *jsonrpcServer) WSURL() string { return "ws" + strings.TrimPrefix(s.url, "http") }

// Close stops serving: the listener and idle connections, then the rpc server, which ends
// the WebSocket connections and their subscriptions.
func (s *jsonrpcServer) Close() error {
	err := s.http.Close()
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
