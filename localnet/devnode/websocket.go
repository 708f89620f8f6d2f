package devnode

import (
	"context"
	"errors"
	"fmt"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	cmtpubsub "github.com/cometbft/cometbft/libs/pubsub"
	"github.com/cometbft/cometbft/libs/pubsub/query"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	rpcserver "github.com/cometbft/cometbft/rpc/jsonrpc/server"
	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"
	cmttypes "github.com/cometbft/cometbft/types"
)

// maxSubscriptionsPerClient is CometBFT's default max_subscriptions_per_client.
const maxSubscriptionsPerClient = 5

// websocketHandler serves CometBFT's /websocket: every RPC method, plus subscribe,
// unsubscribe and unsubscribe_all over the node's event bus (NewBlock, Tx, ...), as Initia.js
// WebSocketClient and CometBFT's own clients use it.
func (n *Node) websocketHandler(funcs map[string]*rpcserver.RPCFunc) *rpcserver.WebsocketManager {
	all := map[string]*rpcserver.RPCFunc{
		"subscribe":       rpcserver.NewWSRPCFunc(n.rpcSubscribe, "query"),
		"unsubscribe":     rpcserver.NewWSRPCFunc(n.rpcUnsubscribe, "query"),
		"unsubscribe_all": rpcserver.NewWSRPCFunc(n.rpcUnsubscribeAll, ""),
	}
	for name, f := range funcs {
		all[name] = f
	}
	return rpcserver.NewWebsocketManager(all, rpcserver.OnDisconnect(func(remote string) {
		_ = n.events.UnsubscribeAll(context.Background(), remote)
	}))
}

func (n *Node) rpcSubscribe(ctx *rpctypes.Context, q string) (*ctypes.ResultSubscribe, error) {
	addr := ctx.RemoteAddr()
	if n.events.NumClientSubscriptions(addr) >= maxSubscriptionsPerClient {
		return nil, fmt.Errorf("max_subscriptions_per_client %d reached", maxSubscriptionsPerClient)
	}
	parsed, err := query.New(q)
	if err != nil {
		return nil, fmt.Errorf("failed to parse query: %w", err)
	}
	subCtx, cancel := context.WithTimeout(ctx.Context(), 5*time.Second)
	defer cancel()
	sub, err := n.events.Subscribe(subCtx, addr, parsed, 100)
	if err != nil {
		return nil, err
	}
	// Events go out under the subscribe request's id with "#event", as CometBFT sends them.
	id := ctx.JSONReq.ID
	if num, ok := id.(rpctypes.JSONRPCIntID); ok {
		id = rpctypes.JSONRPCStringID(fmt.Sprintf("%d#event", num))
	} else if s, ok := id.(rpctypes.JSONRPCStringID); ok {
		id = rpctypes.JSONRPCStringID(string(s) + "#event")
	}
	conn := ctx.WSConn
	go func() {
		for {
			select {
			case msg := <-sub.Out():
				res := &ctypes.ResultEvent{Query: q, Data: msg.Data(), Events: msg.Events()}
				wctx, cancel := context.WithTimeout(conn.Context(), 10*time.Second)
				err := conn.WriteRPCResponse(wctx, rpctypes.NewRPCSuccessResponse(id, res))
				cancel()
				if err != nil {
					return
				}
			case <-sub.Canceled():
				if !errors.Is(sub.Err(), cmtpubsub.ErrUnsubscribed) {
					reason := "CometBFT exited"
					if sub.Err() != nil {
						reason = sub.Err().Error()
					}
					_ = conn.WriteRPCResponse(conn.Context(), rpctypes.RPCServerError(id, fmt.Errorf("subscription was canceled (reason: %s)", reason)))
				}
				return
			}
		}
	}()
	return &ctypes.ResultSubscribe{}, nil
}

func (n *Node) rpcUnsubscribe(ctx *rpctypes.Context, q string) (*ctypes.ResultUnsubscribe, error) {
	parsed, err := query.New(q)
	if err != nil {
		return nil, fmt.Errorf("failed to parse query: %w", err)
	}
	if err := n.events.Unsubscribe(context.Background(), ctx.RemoteAddr(), parsed); err != nil {
		return nil, err
	}
	return &ctypes.ResultUnsubscribe{}, nil
}

func (n *Node) rpcUnsubscribeAll(ctx *rpctypes.Context) (*ctypes.ResultUnsubscribe, error) {
	if err := n.events.UnsubscribeAll(context.Background(), ctx.RemoteAddr()); err != nil {
		return nil, err
	}
	return &ctypes.ResultUnsubscribe{}, nil
}

// publish announces a sealed block and its txs to subscribers, as CometBFT does after
// FinalizeBlock: NewBlock, NewBlockHeader, then one Tx event per tx.
func (n *Node) publish(rec *blockRecord) {
	if n.events == nil {
		return
	}
	b := rec.block
	_ = n.events.PublishEventNewBlock(cmttypes.EventDataNewBlock{
		Block: b, BlockID: rec.id,
		ResultFinalizeBlock: abci.ResponseFinalizeBlock{TxResults: rec.results, AppHash: rec.appHash},
	})
	_ = n.events.PublishEventNewBlockHeader(cmttypes.EventDataNewBlockHeader{Header: b.Header})
	for i, tx := range b.Txs {
		_ = n.events.PublishEventTx(cmttypes.EventDataTx{TxResult: abci.TxResult{
			Height: b.Height, Index: uint32(i), Tx: tx, Result: *rec.results[i],
		}})
	}
}
