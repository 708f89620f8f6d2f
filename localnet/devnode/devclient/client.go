// Package devclient is a small Cosmos client for dev nodes and tests: it signs with the Cosmos
// SDK's tx builder (SIGN_MODE_DIRECT), broadcasts through CometBFT's own RPC client and reads
// through the REST gateway, decoding replies with the SDK's codec. It uses nothing of the node
// but its URLs, so what works here works against a real chain.
package devclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	clienttx "github.com/cosmos/cosmos-sdk/client/tx"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"github.com/cosmos/gogoproto/proto"

	"github.com/vipharness/vipharness/localnet/devnode"
)

// Client talks to one chain.
type Client struct {
	Enc      *devnode.Encoding
	ChainID  string
	RPC      *rpchttp.HTTP
	REST     string
	HTTP     *http.Client
	GasPrice sdk.DecCoin // fee = ceil(gas limit × price)
}

// New connects to a chain's CometBFT RPC and REST gateway.
func New(rpcURL, restURL, chainID string, enc *devnode.Encoding, gasPrice sdk.DecCoin) (*Client, error) {
	rpc, err := rpchttp.New(rpcURL, "/websocket")
	if err != nil {
		return nil, fmt.Errorf("cometbft rpc client: %w", err)
	}
	return &Client{Enc: enc, ChainID: chainID, RPC: rpc, REST: strings.TrimRight(restURL, "/"), HTTP: &http.Client{Timeout: 60 * time.Second}, GasPrice: gasPrice}, nil
}

// Signer is an account that signs txs; Sequence is the next sequence to use.
type Signer struct {
	Key      cryptotypes.PrivKey
	Address  string
	Number   uint64
	Sequence uint64
}

// Signer loads the account of key from the chain.
func (c *Client) Signer(ctx context.Context, key cryptotypes.PrivKey) (*Signer, error) {
	addr, err := c.Enc.Address.BytesToString(key.PubKey().Address())
	if err != nil {
		return nil, err
	}
	var res authtypes.QueryAccountResponse
	if err := c.Get(ctx, "/cosmos/auth/v1beta1/accounts/"+addr, &res); err != nil {
		return nil, err
	}
	var acc sdk.AccountI
	if err := c.Enc.Registry.UnpackAny(res.Account, &acc); err != nil {
		return nil, err
	}
	return &Signer{Key: key, Address: addr, Number: acc.GetAccountNumber(), Sequence: acc.GetSequence()}, nil
}

// Fee is the fee for a gas limit at the client's gas price.
func (c *Client) Fee(gas uint64) sdk.Coins {
	amt := c.GasPrice.Amount.MulInt64(int64(gas)).Ceil().TruncateInt()
	return sdk.NewCoins(sdk.NewCoin(c.GasPrice.Denom, amt))
}

// SignTx builds and signs a tx at the signer's current sequence (which it does not advance).
func (c *Client) SignTx(ctx context.Context, s *Signer, gas uint64, msgs ...sdk.Msg) ([]byte, error) {
	return c.signAt(ctx, s, s.Sequence, gas, c.Fee(gas), msgs...)
}

func (c *Client) signAt(ctx context.Context, s *Signer, seq, gas uint64, fee sdk.Coins, msgs ...sdk.Msg) ([]byte, error) {
	b := c.Enc.TxConfig.NewTxBuilder()
	if err := b.SetMsgs(msgs...); err != nil {
		return nil, err
	}
	b.SetGasLimit(gas)
	b.SetFeeAmount(fee)
	pub := s.Key.PubKey()
	// The signer info (public key, mode, sequence) is part of the signed bytes.
	if err := b.SetSignatures(signing.SignatureV2{PubKey: pub, Data: &signing.SingleSignatureData{SignMode: signing.SignMode_SIGN_MODE_DIRECT}, Sequence: seq}); err != nil {
		return nil, err
	}
	sig, err := clienttx.SignWithPrivKey(ctx, signing.SignMode_SIGN_MODE_DIRECT, authsigning.SignerData{
		ChainID: c.ChainID, AccountNumber: s.Number, Sequence: seq, Address: s.Address, PubKey: pub,
	}, b, s.Key, c.Enc.TxConfig, seq)
	if err != nil {
		return nil, err
	}
	if err := b.SetSignatures(sig); err != nil {
		return nil, err
	}
	return c.Enc.TxConfig.TxEncoder()(b.GetTx())
}

// Simulate estimates gas for msgs from s with an unsigned tx, through REST. The tx carries a
// fee (for 200,000 gas) so that the estimate includes the fee transfer.
func (c *Client) Simulate(ctx context.Context, s *Signer, msgs ...sdk.Msg) (*txtypes.SimulateResponse, error) {
	b := c.Enc.TxConfig.NewTxBuilder()
	if err := b.SetMsgs(msgs...); err != nil {
		return nil, err
	}
	b.SetFeeAmount(c.Fee(200_000))
	if err := b.SetSignatures(signing.SignatureV2{PubKey: s.Key.PubKey(), Data: &signing.SingleSignatureData{SignMode: signing.SignMode_SIGN_MODE_DIRECT}, Sequence: s.Sequence}); err != nil {
		return nil, err
	}
	bz, err := c.Enc.TxConfig.TxEncoder()(b.GetTx())
	if err != nil {
		return nil, err
	}
	var res txtypes.SimulateResponse
	err = c.Post(ctx, "/cosmos/tx/v1beta1/simulate", &txtypes.SimulateRequest{TxBytes: bz}, &res)
	return &res, err
}

// Broadcast sends tx bytes with broadcast_tx_sync over the CometBFT RPC.
func (c *Client) Broadcast(ctx context.Context, tx []byte) (*ctypes.ResultBroadcastTx, error) {
	return c.RPC.BroadcastTxSync(ctx, tx)
}

// BroadcastREST sends tx bytes with POST /cosmos/tx/v1beta1/txs (BROADCAST_MODE_SYNC).
func (c *Client) BroadcastREST(ctx context.Context, tx []byte) (*sdk.TxResponse, error) {
	var res txtypes.BroadcastTxResponse
	err := c.Post(ctx, "/cosmos/tx/v1beta1/txs", &txtypes.BroadcastTxRequest{TxBytes: tx, Mode: txtypes.BroadcastMode_BROADCAST_MODE_SYNC}, &res)
	return res.TxResponse, err
}

// GetTx reads a tx result through REST.
func (c *Client) GetTx(ctx context.Context, hash string) (*sdk.TxResponse, error) {
	var res txtypes.GetTxResponse
	if err := c.Get(ctx, "/cosmos/tx/v1beta1/txs/"+hash, &res); err != nil {
		return nil, err
	}
	return res.TxResponse, nil
}

// Send signs msgs at the signer's sequence, broadcasts them and returns the tx result. A tx
// refused at CheckTx comes back with its code and log and a zero height; an accepted one
// advances the signer's sequence and comes back as GetTx reports it.
func (c *Client) Send(ctx context.Context, s *Signer, gas uint64, msgs ...sdk.Msg) (*sdk.TxResponse, error) {
	tx, err := c.SignTx(ctx, s, gas, msgs...)
	if err != nil {
		return nil, err
	}
	res, err := c.Broadcast(ctx, tx)
	if err != nil {
		return nil, err
	}
	if res.Code != 0 {
		return sdk.NewResponseFormatBroadcastTx(res), nil
	}
	s.Sequence++
	return c.WaitTx(ctx, res.Hash.String())
}

// WaitTx polls GetTx until the tx is found.
func (c *Client) WaitTx(ctx context.Context, hash string) (*sdk.TxResponse, error) {
	for {
		res, err := c.GetTx(ctx, hash)
		if err == nil {
			return res, nil
		}
		if !strings.Contains(err.Error(), "404") {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Smart runs a contract smart query through REST and decodes its JSON answer into out.
func (c *Client) Smart(ctx context.Context, contract string, query, out any) error {
	q, err := json.Marshal(query)
	if err != nil {
		return err
	}
	path := fmt.Sprintf("/cosmwasm/wasm/v1/contract/%s/smart/%s", contract, url.PathEscape(base64.StdEncoding.EncodeToString(q)))
	body, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	var res struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("decode smart query reply %s: %w", body, err)
	}
	return json.Unmarshal(res.Data, out)
}

// Get reads a REST path into a protobuf response.
func (c *Client) Get(ctx context.Context, path string, out proto.Message) error {
	body, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	return c.Enc.Codec.UnmarshalJSON(body, out)
}

// Post sends a protobuf request as JSON and reads the response.
func (c *Client) Post(ctx context.Context, path string, in, out proto.Message) error {
	reqBody, err := c.Enc.Codec.MarshalJSON(in)
	if err != nil {
		return err
	}
	body, err := c.do(ctx, http.MethodPost, path, reqBody)
	if err != nil {
		return err
	}
	return c.Enc.Codec.UnmarshalJSON(body, out)
}

// RESTError is a non-200 REST reply.
type RESTError struct {
	Status int
	Code   int    `json:"code"`
	Msg    string `json:"message"`
}

func (e *RESTError) Error() string {
	return fmt.Sprintf("rest: http %d: code %d: %s", e.Status, e.Code, e.Msg)
}

func (c *Client) do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.REST+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		e := &RESTError{Status: resp.StatusCode}
		if json.Unmarshal(out, e) != nil || e.Msg == "" {
			e.Msg = string(out)
		}
		return nil, e
	}
	return out, nil
}
