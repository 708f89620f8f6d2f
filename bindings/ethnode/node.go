package ethnode

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/vipharness/vipharness/bindings/nodehttp"
)

// Node reads an EVM node's JSON-RPC with plain calls, for the probes that must not depend
// on what go-ethereum's client makes of a node's answers (chain id, balances, code, the gas
// price, a gas estimate, a read-only call).
type Node struct {
	RPC *nodehttp.Client
}

// New reads the JSON-RPC at url through hc (nil: the nodehttp default timeout).
func New(url string, hc *http.Client) *Node { return &Node{RPC: nodehttp.New(url, hc)} }

// ChainID is eth_chainId.
func (n *Node) ChainID(ctx context.Context) (uint64, error) {
	v, err := n.quantity(ctx, "eth_chainId")
	if err != nil {
		return 0, err
	}
	if !v.IsUint64() {
		return 0, fmt.Errorf("eth_chainId at %s: %s is not a chain id", n.RPC.URL, v)
	}
	return v.Uint64(), nil
}

// Balance is eth_getBalance of address at the latest block, in wei.
func (n *Node) Balance(ctx context.Context, address string) (*big.Int, error) {
	return n.quantity(ctx, "eth_getBalance", address, "latest")
}

// GasPrice is eth_gasPrice, in wei.
func (n *Node) GasPrice(ctx context.Context) (*big.Int, error) {
	return n.quantity(ctx, "eth_gasPrice")
}

// Code is eth_getCode of address at the latest block.
func (n *Node) Code(ctx context.Context, address string) ([]byte, error) {
	return n.data(ctx, "eth_getCode", address, "latest")
}

// EstimateGas is eth_estimateGas of data sent from from to to ("" creates a contract).
func (n *Node) EstimateGas(ctx context.Context, from, to string, data []byte) (uint64, error) {
	call := map[string]string{"from": from, "data": "0x" + hex.EncodeToString(data)}
	if to != "" {
		call["to"] = to
	}
	v, err := n.quantity(ctx, "eth_estimateGas", call)
	if err != nil {
		return 0, err
	}
	if !v.IsUint64() {
		return 0, fmt.Errorf("eth_estimateGas at %s: %s is not a gas amount", n.RPC.URL, v)
	}
	return v.Uint64(), nil
}

// Call is eth_call of data to to at the latest block.
func (n *Node) Call(ctx context.Context, to string, data []byte) ([]byte, error) {
	return n.data(ctx, "eth_call", map[string]string{"to": to, "data": "0x" + hex.EncodeToString(data)}, "latest")
}

// quantity calls method and reads its result as a hex quantity.
func (n *Node) quantity(ctx context.Context, method string, params ...any) (*big.Int, error) {
	var out string
	if err := n.RPC.Call(ctx, method, params, &out); err != nil {
		return nil, err
	}
	v, ok := new(big.Int).SetString(strings.TrimPrefix(out, "0x"), 16)
	if !ok {
		return nil, fmt.Errorf("%s at %s: %q is not a number", method, n.RPC.URL, out)
	}
	return v, nil
}

// data calls method and reads its result as hex bytes.
func (n *Node) data(ctx context.Context, method string, params ...any) ([]byte, error) {
	var out string
	if err := n.RPC.Call(ctx, method, params, &out); err != nil {
		return nil, err
	}
	b, err := hex.DecodeString(strings.TrimPrefix(out, "0x"))
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %q is not hex", method, n.RPC.URL, out)
	}
	return b, nil
}
