package ethnode

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// ErrIndexLag is a lookup a node could not answer yet because its transaction index is
// still catching up with its newest blocks: not found for now, not for good.
var ErrIndexLag = errors.New("the node's transaction index is still catching up")

// Client is a rollup's EVM JSON-RPC as every package here reads it: go-ethereum's client
// (transactions, calls, estimates, logs, headers: what abigen's bindings need), receipts
// read lean over HTTP, and batches of raw calls. Lookups that lag come back as ErrIndexLag.
type Client struct {
	*ethclient.Client
	url  string
	lean *receiptReader // HTTP(S) endpoints only; others read receipts through the client
}

// Dial connects to the JSON-RPC at url (HTTP, WebSocket or IPC).
func Dial(ctx context.Context, url string) (*Client, error) {
	rc, err := rpc.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("dial the EVM JSON-RPC %s: %w", url, err)
	}
	return &Client{Client: ethclient.NewClient(rc), url: url, lean: newReceiptReader(url)}, nil
}

// DialHTTP is Dial of an HTTP(S) endpoint through hc (its transport and timeouts).
func DialHTTP(ctx context.Context, url string, hc *http.Client) (*Client, error) {
	rc, err := rpc.DialOptions(ctx, url, rpc.WithHTTPClient(hc))
	if err != nil {
		return nil, fmt.Errorf("dial the EVM JSON-RPC %s: %w", url, err)
	}
	return &Client{Client: ethclient.NewClient(rc), url: url, lean: newReceiptReader(url)}, nil
}

// URL is the endpoint the client was dialled at.
func (c *Client) URL() string { return c.url }

// RPC is the raw connection, for methods go-ethereum's client has none for.
func (c *Client) RPC() *rpc.Client { return c.Client.Client() }

// Batch sends elems as one JSON-RPC batch; each element's own error stays in it.
func (c *Client) Batch(ctx context.Context, elems []rpc.BatchElem) error {
	return c.RPC().BatchCallContext(ctx, elems)
}

// Receipt is tx hash's status, gas and block, without its logs (a score chunk's receipt
// holds one log per address). A tx the node knows no receipt for is ethereum.NotFound.
func (c *Client) Receipt(ctx context.Context, hash common.Hash) (*Receipt, error) {
	var (
		rc  *Receipt
		err error
	)
	if c.lean != nil {
		rc, err = c.lean.receipt(ctx, hash)
	} else {
		err = c.RPC().CallContext(ctx, &rc, "eth_getTransactionReceipt", hash)
	}
	if err == nil && rc == nil {
		err = ethereum.NotFound
	}
	return rc, typed(err)
}

// TransactionReceipt is go-ethereum's, with the index lag typed.
func (c *Client) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	rc, err := c.Client.TransactionReceipt(ctx, hash)
	return rc, typed(err)
}

// TransactionByHash is go-ethereum's, with the index lag typed.
func (c *Client) TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error) {
	tx, pending, err := c.Client.TransactionByHash(ctx, hash)
	return tx, pending, typed(err)
}

// typed wraps a node's index-lag answer in ErrIndexLag, keeping the node's words.
func typed(err error) error {
	if err != nil && !errors.Is(err, ErrIndexLag) && IndexLagging(err) {
		return fmt.Errorf("%w: %w", ErrIndexLag, err)
	}
	return err
}
