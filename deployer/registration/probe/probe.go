// Package probe reads what a rollup says about itself through its public faces: the Cosmos
// REST node_info (chain id, minitia type and version), its bech32 prefix and minimum gas
// prices, the CometBFT abci_info, and the EVM chain id over JSON-RPC. It also holds Initia's
// rules that tie these together: the EVM chain id minievm derives from the chain id, and the
// minitiad release that matches a version.
package probe

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"golang.org/x/crypto/sha3"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/ethnode"
)

// Client reads a rollup's faces. Zero URLs are skipped by the calls that need them.
type Client struct {
	REST    string // Cosmos REST base URL
	JSONRPC string // EVM JSON-RPC URL
	HTTP    *http.Client
}

// cosmos reads the REST face; eth the JSON-RPC (the one client of each, nodehttp's).
func (c *Client) cosmos() *cosmosnode.Node { return cosmosnode.New(c.REST, "", c.HTTP) }
func (c *Client) eth() *ethnode.Node       { return ethnode.New(c.JSONRPC, c.HTTP) }

// NodeInfo reads GET {rest}/cosmos/base/tendermint/v1beta1/node_info.
func (c *Client) NodeInfo(ctx context.Context) (cosmosnode.NodeInfo, error) {
	if c.REST == "" {
		return cosmosnode.NodeInfo{}, errors.New("no REST URL")
	}
	return c.cosmos().NodeInfo(ctx)
}

// Bech32Prefix reads the chain's bech32 account prefix.
func (c *Client) Bech32Prefix(ctx context.Context) (string, error) {
	return c.cosmos().Bech32Prefix(ctx)
}

// MinGasPrices reads the node's minimum gas prices (empty when it has none).
func (c *Client) MinGasPrices(ctx context.Context) (sdk.DecCoins, error) {
	text, err := c.cosmos().MinGasPrice(ctx)
	if err != nil {
		return nil, err
	}
	prices, err := sdk.ParseDecCoins(text)
	if err != nil {
		return nil, fmt.Errorf("read the minimum gas price from %s: %q: %w", c.REST, text, err)
	}
	return prices, nil
}

// Balance reads an account's balance of denom (zero when it holds none).
func (c *Client) Balance(ctx context.Context, address, denom string) (sdk.Coin, error) {
	var reply struct {
		Balance *struct {
			Denom  string `json:"denom"`
			Amount string `json:"amount"`
		} `json:"balance"`
	}
	path := "/cosmos/bank/v1beta1/balances/" + address + "/by_denom?denom=" + url.QueryEscape(denom)
	if err := c.GetJSON(ctx, path, &reply); err != nil {
		return sdk.Coin{}, err
	}
	if reply.Balance == nil {
		return sdk.NewInt64Coin(denom, 0), nil
	}
	amt, ok := sdkmath.NewIntFromString(reply.Balance.Amount)
	if !ok {
		return sdk.Coin{}, fmt.Errorf("GET %s%s: amount %q is not an integer", c.REST, path, reply.Balance.Amount)
	}
	return sdk.Coin{Denom: denom, Amount: amt}, nil
}

// EVMChainID is eth_chainId.
func (c *Client) EVMChainID(ctx context.Context) (uint64, error) { return c.eth().ChainID(ctx) }

// EVMBalance is eth_getBalance at the latest block, in wei.
func (c *Client) EVMBalance(ctx context.Context, address string) (*big.Int, error) {
	return c.eth().Balance(ctx, address)
}

// EVMCode is eth_getCode at the latest block.
func (c *Client) EVMCode(ctx context.Context, address string) ([]byte, error) {
	return c.eth().Code(ctx, address)
}

// EVMGasPrice is eth_gasPrice, in wei.
func (c *Client) EVMGasPrice(ctx context.Context) (*big.Int, error) { return c.eth().GasPrice(ctx) }

// EVMEstimateGas is eth_estimateGas of data from from to to ("" creates a contract).
func (c *Client) EVMEstimateGas(ctx context.Context, from, to string, data []byte) (uint64, error) {
	return c.eth().EstimateGas(ctx, from, to, data)
}

// EVMCall is eth_call at the latest block.
func (c *Client) EVMCall(ctx context.Context, to string, data []byte) ([]byte, error) {
	return c.eth().Call(ctx, to, data)
}

// GetJSON GETs a path of the REST face and decodes its JSON.
func (c *Client) GetJSON(ctx context.Context, path string, out any) error {
	if c.REST == "" {
		return errors.New("no REST URL")
	}
	return c.cosmos().REST.GetJSON(ctx, path, out)
}

// metamaskMax bounds minievm's derived EVM chain ids (MetaMask's largest safe chain id).
const metamaskMax = 4503599627370476

// DeriveEVMChainID is the EVM chain id minievm derives from a Cosmos chain id: the first 8
// bytes of keccak256(chain id) as a big-endian integer, modulo 4503599627370476.
func DeriveEVMChainID(chainID string) uint64 {
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(chainID))
	sum := h.Sum(nil)
	v := new(big.Int).SetBytes(sum[:8])
	return v.Mod(v, big.NewInt(metamaskMax)).Uint64()
}

// CometNetwork reads the chain id the CometBFT RPC reports: GET {rpc}/status,
// result.node_info.network.
func (c *Client) CometNetwork(ctx context.Context, cometRPC string) (string, error) {
	var reply struct {
		Result *struct {
			NodeInfo struct {
				Network string `json:"network"`
			} `json:"node_info"`
		} `json:"result"`
	}
	rpc := cosmosnode.New("", cometRPC, c.HTTP).RPC
	if err := rpc.GetJSON(ctx, "/status", &reply); err != nil {
		return "", err
	}
	if reply.Result == nil || reply.Result.NodeInfo.Network == "" {
		return "", fmt.Errorf("GET %s/status: no result.node_info.network", rpc.URL)
	}
	return reply.Result.NodeInfo.Network, nil
}

// Bridge is the rollup's OPinit bridge as its opchild module knows it.
type Bridge struct {
	ID        uint64
	Address   string // the bridge's account on the L1
	L1ChainID string
}

// BridgeInfo reads GET {rest}/opinit/opchild/v1/bridge_info (a minitia's OPinit child module).
func (c *Client) BridgeInfo(ctx context.Context) (Bridge, error) {
	var reply struct {
		BridgeInfo *struct {
			BridgeID   string `json:"bridge_id"`
			BridgeAddr string `json:"bridge_addr"`
			L1ChainID  string `json:"l1_chain_id"`
		} `json:"bridge_info"`
	}
	u := strings.TrimRight(c.REST, "/") + "/opinit/opchild/v1/bridge_info"
	if err := c.GetJSON(ctx, "/opinit/opchild/v1/bridge_info", &reply); err != nil {
		return Bridge{}, err
	}
	if reply.BridgeInfo == nil {
		return Bridge{}, fmt.Errorf("GET %s: no bridge_info", u)
	}
	id, err := strconv.ParseUint(reply.BridgeInfo.BridgeID, 10, 64)
	if err != nil || id == 0 {
		return Bridge{}, fmt.Errorf("GET %s: bridge_id %q is not a bridge id", u, reply.BridgeInfo.BridgeID)
	}
	return Bridge{ID: id, Address: reply.BridgeInfo.BridgeAddr, L1ChainID: reply.BridgeInfo.L1ChainID}, nil
}
