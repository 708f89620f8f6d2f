package container

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/nodehttp"
)

// errForeignPort: a published host port answered as some other server. Docker picks host
// ports from the range the kernel also gives other processes' listeners (parallel suites
// start many), so a port can reach someone else's node; the container then starts again
// on fresh ports.
var errForeignPort = errors.New("a published host port answers as another server")

// portAttempts bounds the starts of one container on fresh ports.
const portAttempts = 3

// oneCosmosNode waits until a Cosmos node's CometBFT RPC and REST gateway both answer at
// their published URLs, and proves them the same node of chainID ("": any chain): both
// report one node id. An answer from anything else is errForeignPort.
func oneCosmosNode(ctx context.Context, rpc, rest, chainID string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	n := cosmosnode.New(rest, rpc, nil)
	var last error
	for {
		status, errRPC := n.Status(ctx)
		info, errREST := n.NodeInfo(ctx)
		switch {
		case errRPC == nil && errREST == nil:
			if status.NodeID == "" || status.NodeID != info.NodeID || chainID != "" && (status.ChainID != chainID || info.Network != chainID) {
				return fmt.Errorf("%w: CometBFT RPC %s is node %q of %q, REST %s node %q of %q (want %q)",
					errForeignPort, rpc, status.NodeID, status.ChainID, rest, info.NodeID, info.Network, chainID)
			}
			return nil
		case answered(errRPC):
			// CometBFT answers status or nothing: an HTTP error is another server's.
			return fmt.Errorf("%w: CometBFT RPC %s: %v", errForeignPort, rpc, errRPC)
		case answered(errREST):
			return fmt.Errorf("%w: REST %s: %v", errForeignPort, rest, errREST)
		}
		last = errors.Join(errRPC, errREST)
		select {
		case <-ctx.Done():
			return fmt.Errorf("node not serving after %s: %w", timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// answered reports whether err is a reply (a status, a JSON-RPC error) rather than no
// connection.
func answered(err error) bool {
	var rpcErr *nodehttp.RPCError
	return nodehttp.Status(err) != 0 || errors.As(err, &rpcErr)
}
