package container

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// cometRPC answers CometBFT's status as node id of chain.
func cometRPC(id, chain string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"node_info":{"id":%q,"network":%q},"sync_info":{"latest_block_height":"3"}}}`, id, chain)
	})
}

// restGateway answers node_info as node id of chain, and anything else as the SDK's gateway
// does a route it lacks.
func restGateway(id, chain string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/cosmos/base/tendermint/v1beta1/node_info" {
			fmt.Fprintf(w, `{"default_node_info":{"default_node_id":%q,"network":%q},"application_version":{}}`, id, chain)
			return
		}
		w.WriteHeader(http.StatusNotImplemented)
		fmt.Fprint(w, `{"code":12,"message":"Not Implemented","details":[]}`)
	})
}

func TestOneCosmosNode(t *testing.T) {
	closed := func(t *testing.T) string {
		// A port nobody listens on: reserved, then released.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := "http://" + l.Addr().String()
		l.Close()
		return addr
	}
	serve := func(t *testing.T, h http.Handler) string {
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.URL
	}
	tests := []struct {
		name      string
		rpc, rest func(t *testing.T) string
		foreign   bool // errForeignPort; else, when wantErr, a plain timeout
		wantErr   bool
	}{
		{"one node of the chain",
			func(t *testing.T) string { return serve(t, cometRPC("aa", "chain-1")) },
			func(t *testing.T) string { return serve(t, restGateway("aa", "chain-1")) }, false, false},
		{"the RPC port reaches another node's REST gateway",
			func(t *testing.T) string { return serve(t, restGateway("bb", "chain-1")) },
			func(t *testing.T) string { return serve(t, restGateway("aa", "chain-1")) }, true, true},
		{"the REST port reaches another node of the same chain",
			func(t *testing.T) string { return serve(t, cometRPC("aa", "chain-1")) },
			func(t *testing.T) string { return serve(t, restGateway("bb", "chain-1")) }, true, true},
		{"both ports reach a node of another chain",
			func(t *testing.T) string { return serve(t, cometRPC("aa", "chain-2")) },
			func(t *testing.T) string { return serve(t, restGateway("aa", "chain-2")) }, true, true},
		{"the REST gateway never starts",
			func(t *testing.T) string { return serve(t, cometRPC("aa", "chain-1")) },
			closed, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := oneCosmosNode(context.Background(), tt.rpc(t), tt.rest(t), "chain-1", 500*time.Millisecond)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
			}
			if got := errors.Is(err, errForeignPort); got != tt.foreign {
				t.Fatalf("errors.Is(err, errForeignPort) = %v, want %v (err: %v)", got, tt.foreign, err)
			}
		})
	}
}
