// Package probe reads what a rollup says about itself through its public faces: the Cosmos
// REST node_info (chain id, minitia type and version), its bech32 prefix and minimum gas
// prices, the CometBFT abci_info, and the EVM chain id over JSON-RPC. It also holds Initia's
// rules that tie these together: the EVM chain id minievm derives from the chain id, and the
// minitiad release that matches a version.
package probe

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"golang.org/x/crypto/sha3"

	"github.com/vipharness/vipharness/deployer/httpstatus"
	"github.com/vipharness/vipharness/deployer/operation/stage"
)

const maxBody = 4 << 20

// Client reads a rollup's faces. Zero URLs are skipped by the calls that need them.
type Client struct {
	REST    string // Cosmos REST base URL
	JSONRPC string // EVM JSON-RPC URL
	HTTP    *http.Client
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 10 * time.Second}
}

// NodeInfo reads GET {rest}/cosmos/base/tendermint/v1beta1/node_info.
func (c *Client) NodeInfo(ctx context.Context) (stage.NodeInfo, error) {
	if c.REST == "" {
		return stage.NodeInfo{}, errors.New("no REST URL")
	}
	return stage.ReadNodeInfo(ctx, c.REST)
}

// Bech32Prefix reads GET {rest}/cosmos/auth/v1beta1/bech32.
func (c *Client) Bech32Prefix(ctx context.Context) (string, error) {
	var reply struct {
		Prefix string `json:"bech32_prefix"`
	}
	u := c.rest("/cosmos/auth/v1beta1/bech32")
	if err := c.getJSON(ctx, u, &reply); err != nil {
		return "", err
	}
	if reply.Prefix == "" {
		return "", fmt.Errorf("GET %s: empty bech32_prefix", u)
	}
	return reply.Prefix, nil
}

// MinGasPrices reads the node's minimum gas prices, GET {rest}/cosmos/base/node/v1beta1/config.
func (c *Client) MinGasPrices(ctx context.Context) (sdk.DecCoins, error) {
	var reply struct {
		MinimumGasPrice string `json:"minimum_gas_price"`
	}
	u := c.rest("/cosmos/base/node/v1beta1/config")
	if err := c.getJSON(ctx, u, &reply); err != nil {
		return nil, err
	}
	prices, err := sdk.ParseDecCoins(reply.MinimumGasPrice)
	if err != nil {
		return nil, fmt.Errorf("GET %s: minimum_gas_price %q: %w", u, reply.MinimumGasPrice, err)
	}
	return prices, nil
}

// Balance reads an account's balance of denom, GET {rest}/cosmos/bank/v1beta1/balances/{a}/by_denom.
func (c *Client) Balance(ctx context.Context, address, denom string) (sdk.Coin, error) {
	var reply struct {
		Balance *struct {
			Denom  string `json:"denom"`
			Amount string `json:"amount"`
		} `json:"balance"`
	}
	u := c.rest("/cosmos/bank/v1beta1/balances/" + address + "/by_denom?denom=" + denom)
	if err := c.getJSON(ctx, u, &reply); err != nil {
		return sdk.Coin{}, err
	}
	if reply.Balance == nil {
		return sdk.NewInt64Coin(denom, 0), nil
	}
	amt, ok := sdkmath.NewIntFromString(reply.Balance.Amount)
	if !ok {
		return sdk.Coin{}, fmt.Errorf("GET %s: amount %q is not an integer", u, reply.Balance.Amount)
	}
	return sdk.Coin{Denom: denom, Amount: amt}, nil
}

// EVMChainID asks the JSON-RPC endpoint for eth_chainId.
func (c *Client) EVMChainID(ctx context.Context) (uint64, error) {
	var out string
	if err := c.rpc(ctx, "eth_chainId", &out); err != nil {
		return 0, err
	}
	n, ok := new(big.Int).SetString(strings.TrimPrefix(out, "0x"), 16)
	if !ok || !n.IsUint64() {
		return 0, fmt.Errorf("eth_chainId at %s: %q is not a chain id", c.JSONRPC, out)
	}
	return n.Uint64(), nil
}

// EVMBalance is eth_getBalance at the latest block, in wei.
func (c *Client) EVMBalance(ctx context.Context, address string) (*big.Int, error) {
	var out string
	if err := c.rpc(ctx, "eth_getBalance", &out, address, "latest"); err != nil {
		return nil, err
	}
	n, ok := new(big.Int).SetString(strings.TrimPrefix(out, "0x"), 16)
	if !ok {
		return nil, fmt.Errorf("eth_getBalance at %s: %q is not a number", c.JSONRPC, out)
	}
	return n, nil
}

// EVMCode is eth_getCode at the latest block.
func (c *Client) EVMCode(ctx context.Context, address string) ([]byte, error) {
	var out string
	if err := c.rpc(ctx, "eth_getCode", &out, address, "latest"); err != nil {
		return nil, err
	}
	return decodeHex(out)
}

// EVMGasPrice is eth_gasPrice, in wei.
func (c *Client) EVMGasPrice(ctx context.Context) (*big.Int, error) {
	var out string
	if err := c.rpc(ctx, "eth_gasPrice", &out); err != nil {
		return nil, err
	}
	n, ok := new(big.Int).SetString(strings.TrimPrefix(out, "0x"), 16)
	if !ok {
		return nil, fmt.Errorf("eth_gasPrice at %s: %q is not a number", c.JSONRPC, out)
	}
	return n, nil
}

// EVMEstimateGas is eth_estimateGas of a call (to "" creates a contract).
func (c *Client) EVMEstimateGas(ctx context.Context, from, to string, data []byte) (uint64, error) {
	var out string
	call := map[string]string{"from": from, "data": "0x" + hex.EncodeToString(data)}
	if to != "" {
		call["to"] = to
	}
	if err := c.rpc(ctx, "eth_estimateGas", &out, call); err != nil {
		return 0, err
	}
	n, ok := new(big.Int).SetString(strings.TrimPrefix(out, "0x"), 16)
	if !ok || !n.IsUint64() {
		return 0, fmt.Errorf("eth_estimateGas at %s: %q is not a gas amount", c.JSONRPC, out)
	}
	return n.Uint64(), nil
}

// EVMCall is eth_call at the latest block.
func (c *Client) EVMCall(ctx context.Context, to string, data []byte) ([]byte, error) {
	var out string
	call := map[string]string{"to": to, "data": "0x" + hex.EncodeToString(data)}
	if err := c.rpc(ctx, "eth_call", &out, call, "latest"); err != nil {
		return nil, err
	}
	return decodeHex(out)
}

func decodeHex(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return nil, fmt.Errorf("%q is not hex", s)
	}
	return b, nil
}

func (c *Client) rest(path string) string { return strings.TrimRight(c.REST, "/") + path }

// GetJSON GETs a REST path and decodes the reply.
func (c *Client) GetJSON(ctx context.Context, path string, out any) error {
	return c.getJSON(ctx, c.rest(path), out)
}

// GetJSONURL GETs a full URL (another face of the node than its REST API) and decodes the
// reply; a non-2xx reply is an *httpstatus.Error that keeps its body.
func (c *Client) GetJSONURL(ctx context.Context, u string, out any) error {
	return c.getJSON(ctx, u, out)
}

func (c *Client) getJSON(ctx context.Context, u string, out any) error {
	if strings.HasPrefix(u, "/") {
		return errors.New("no REST URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	body, err := c.do(req)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("GET %s: malformed reply: %w", u, err)
	}
	return nil
}

func (c *Client) do(req *http.Request) ([]byte, error) {
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: unreachable: %w", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	return httpstatus.Read(req, resp, maxBody)
}

func (c *Client) rpc(ctx context.Context, method string, out any, params ...any) error {
	if c.JSONRPC == "" {
		return errors.New("no JSON-RPC URL")
	}
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.JSONRPC, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s at %s: %w", method, c.JSONRPC, err)
	}
	req.Header.Set("Content-Type", "application/json")
	reply, err := c.do(req)
	if err != nil {
		return err
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		return fmt.Errorf("%s at %s: malformed reply: %w", method, c.JSONRPC, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s at %s: error %d: %s", method, c.JSONRPC, r.Error.Code, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("%s at %s: result %s: %w", method, c.JSONRPC, r.Result, err)
	}
	return nil
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
	u := strings.TrimRight(cometRPC, "/") + "/status"
	if err := c.getJSON(ctx, u, &reply); err != nil {
		return "", err
	}
	if reply.Result == nil || reply.Result.NodeInfo.Network == "" {
		return "", fmt.Errorf("GET %s: no result.node_info.network", u)
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
	u := c.rest("/opinit/opchild/v1/bridge_info")
	if err := c.getJSON(ctx, u, &reply); err != nil {
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
