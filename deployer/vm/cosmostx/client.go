// Package cosmostx is the Cosmos transaction path the Wasm and Move deployers share (and the
// dev node's tests use): it learns the chain (id, bech32 prefix, minimum gas price) from its
// CometBFT RPC and REST faces, signs with the Cosmos SDK's tx builder in SIGN_MODE_DIRECT,
// simulates through REST, broadcasts with broadcast_tx_sync and looks txs up by hash. It uses
// nothing of a node but its URLs, so what works against the dev node works against wasmd.
package cosmostx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	txsigning "cosmossdk.io/x/tx/signing"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"github.com/cosmos/gogoproto/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/nodehttp"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
)

// defaultPoll is how often a sent tx is looked up.
const defaultPoll = 20 * time.Millisecond

// maxReply bounds a REST reply (a page of stored codes, a tx with its events).
const maxReply = 64 << 20

// Client talks to one chain. Its settings (gas price, gas adjustment, poll, HTTP client) are
// fixed when it is made (New, Dial); WithGasPrice is a copy at another price, so a Client
// handed to several callers is never changed under them.
type Client struct {
	Enc     *Encoding
	ChainID string
	// Node reads the chain's REST face and CometBFT RPC (what the chain says of itself,
	// tx_search); the Client signs and sends on top of it.
	Node *cosmosnode.Node

	http     *http.Client
	gasPrice sdk.DecCoin // fee = ceil(gas limit × price)
	// adjust multiplies simulated gas into a gas limit.
	adjust float64
	// poll is how often WaitTx looks a tx up.
	poll time.Duration
	// noTxQuery is 1 once the node has said it serves no tx service over abci_query
	// (an int32 under sync/atomic, so that a Client stays copyable).
	noTxQuery int32
}

// New connects to a chain whose id, encoding and gas price the caller already knows.
func New(rpcURL, restURL, chainID string, enc *Encoding, gasPrice sdk.DecCoin) (*Client, error) {
	if rpcURL == "" {
		return nil, errors.New("cosmos client: no CometBFT RPC URL")
	}
	hc := &http.Client{Timeout: 60 * time.Second}
	node := cosmosnode.New(restURL, rpcURL, hc)
	node.REST.MaxReply = maxReply
	node.RPC.MaxReply = maxReply
	return &Client{Enc: enc, ChainID: chainID, Node: node,
		http: hc, gasPrice: gasPrice, adjust: deployer.DefaultGasAdjustment, poll: defaultPoll}, nil
}

// GasPrice is the price fees are paid at.
func (c *Client) GasPrice() sdk.DecCoin { return c.gasPrice }

// WithGasPrice is a copy of c that pays fees at p (c is left as it is).
func (c *Client) WithGasPrice(p sdk.DecCoin) *Client {
	cp := *c
	cp.gasPrice = p
	return &cp
}

type dialConfig struct {
	gasPrice *sdk.DecCoin
	register []func(codectypes.InterfaceRegistry)
	adjust   float64
	poll     time.Duration
}

// Option configures Dial.
type Option func(*dialConfig)

// WithGasPrice sets the gas price instead of the chain's reported minimum.
func WithGasPrice(p sdk.DecCoin) Option { return func(c *dialConfig) { c.gasPrice = &p } }

// WithMessages registers the message types the client sends (a module's RegisterInterfaces).
func WithMessages(register ...func(codectypes.InterfaceRegistry)) Option {
	return func(c *dialConfig) { c.register = append(c.register, register...) }
}

// WithGasAdjustment sets the factor from simulated gas to gas limit (default
// deployer.DefaultGasAdjustment).
func WithGasAdjustment(f float64) Option { return func(c *dialConfig) { c.adjust = f } }

// WithPollInterval sets how often a sent tx is looked up (default defaultPoll, 20ms).
func WithPollInterval(d time.Duration) Option { return func(c *dialConfig) { c.poll = d } }

// Dial connects to a chain and learns what a client needs from it: the chain id from
// CometBFT's status, the bech32 prefix from the auth module, and (unless WithGasPrice) the
// node's minimum gas price.
func Dial(ctx context.Context, rpcURL, restURL string, opts ...Option) (*Client, error) {
	cfg := dialConfig{adjust: deployer.DefaultGasAdjustment, poll: defaultPoll}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.adjust < 1 {
		return nil, fmt.Errorf("gas adjustment %v: want at least 1", cfg.adjust)
	}
	c, err := New(rpcURL, restURL, "", nil, sdk.DecCoin{})
	if err != nil {
		return nil, err
	}
	c.adjust, c.poll = cfg.adjust, cfg.poll
	st, err := c.Node.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("read chain status from %s: %w", rpcURL, err)
	}
	c.ChainID = st.ChainID
	prefix, err := c.Node.Bech32Prefix(ctx)
	if err != nil {
		return nil, err
	}
	if c.Enc, err = NewEncoding(prefix, cfg.register...); err != nil {
		return nil, err
	}
	if cfg.gasPrice != nil {
		c.gasPrice = *cfg.gasPrice
		return c, nil
	}
	minPrice, err := c.Node.MinGasPrice(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w (or pass a gas price)", err)
	}
	prices, err := sdk.ParseDecCoins(minPrice)
	if err != nil || len(prices) == 0 {
		return nil, fmt.Errorf("node at %s reports minimum gas price %q, which names no denom: pass a gas price such as 0.025stake", restURL, minPrice)
	}
	c.gasPrice = prices[0]
	return c, nil
}

// ParseGasPrice reads a gas price such as "0.025stake".
func ParseGasPrice(s string) (sdk.DecCoin, error) {
	p, err := sdk.ParseDecCoin(strings.TrimSpace(s))
	if err != nil {
		return sdk.DecCoin{}, fmt.Errorf("gas price %q: want an amount and a denom, such as 0.025stake: %w", s, err)
	}
	return p, nil
}

// Prefix is the chain's bech32 account prefix.
func (c *Client) Prefix() string { return c.Enc.Prefix }

// Address is the chain's bech32 form of a key's address.
func (c *Client) Address(key cryptotypes.PubKey) string { return c.Enc.MustAddr(key.Address()) }

// Signer is an account that signs txs; Sequence is the next sequence to use.
type Signer struct {
	Key      keys.Signer
	Address  string
	Number   uint64
	Sequence uint64
}

// String shows the address only, never the key.
func (s *Signer) String() string { return s.Address }

// Signer loads the account of a private key from the chain.
func (c *Client) Signer(ctx context.Context, key cryptotypes.PrivKey) (*Signer, error) {
	k, err := keys.FromPrivKey(key, "key")
	if err != nil {
		return nil, err
	}
	return c.SignerOf(ctx, k)
}

// SignerOf loads the account of a signer (a software key, a keyring key, a Ledger) from the chain.
func (c *Client) SignerOf(ctx context.Context, key keys.Signer) (*Signer, error) {
	addr := c.Address(key.PubKey())
	num, seq, err := c.Account(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &Signer{Key: key, Address: addr, Number: num, Sequence: seq}, nil
}

// ErrNoAccount is an address the chain holds no account for (it was never funded).
var ErrNoAccount = errors.New("no account on chain")

// Account reads an account's number and sequence (as of the latest block).
func (c *Client) Account(ctx context.Context, addr string) (number, sequence uint64, err error) {
	var res authtypes.QueryAccountResponse
	if err := c.Get(ctx, "/cosmos/auth/v1beta1/accounts/"+addr, &res); err != nil {
		if nodehttp.NotFound(err) {
			return 0, 0, fmt.Errorf("account %s: %w (fund it first)", addr, ErrNoAccount)
		}
		return 0, 0, fmt.Errorf("read account %s: %w", addr, err)
	}
	var acc sdk.AccountI
	if err := c.Enc.Registry.UnpackAny(res.Account, &acc); err != nil {
		return 0, 0, fmt.Errorf("decode account %s: %w", addr, err)
	}
	return acc.GetAccountNumber(), acc.GetSequence(), nil
}

// Fee is the fee for a gas limit at the client's gas price.
func (c *Client) Fee(gas uint64) sdk.Coins {
	amt := c.gasPrice.Amount.MulInt64(int64(gas)).Ceil().TruncateInt()
	return sdk.NewCoins(sdk.NewCoin(c.gasPrice.Denom, amt))
}

// GasLimit is simulated gas times the gas adjustment.
func (c *Client) GasLimit(simulated uint64) uint64 {
	return uint64(float64(simulated)*c.adjust) + 1
}

// SignTx builds and signs a tx at the signer's current sequence (which it does not advance).
func (c *Client) SignTx(ctx context.Context, s *Signer, gas uint64, msgs ...sdk.Msg) ([]byte, error) {
	return c.SignAt(ctx, s, s.Sequence, gas, msgs...)
}

// SignAt builds and signs a tx at sequence seq with a gas limit and its fee, in the signer's
// sign mode (SIGN_MODE_DIRECT, or SIGN_MODE_EIP_191 for a Ledger).
func (c *Client) SignAt(ctx context.Context, s *Signer, seq, gas uint64, msgs ...sdk.Msg) ([]byte, error) {
	b := c.Enc.TxConfig.NewTxBuilder()
	if err := b.SetMsgs(msgs...); err != nil {
		return nil, fmt.Errorf("build tx: %w", err)
	}
	b.SetGasLimit(gas)
	b.SetFeeAmount(c.Fee(gas))
	pub, mode := s.Key.PubKey(), s.Key.CosmosSignMode()
	// The signer info (public key, mode, sequence) is part of the signed bytes.
	if err := b.SetSignatures(signing.SignatureV2{PubKey: pub, Data: &signing.SingleSignatureData{SignMode: mode}, Sequence: seq}); err != nil {
		return nil, fmt.Errorf("build tx: %w", err)
	}
	anyPub, err := codectypes.NewAnyWithValue(pub)
	if err != nil {
		return nil, fmt.Errorf("build tx: %w", err)
	}
	signBytes, err := c.Enc.SignBytes(ctx, mode, txsigning.SignerData{
		Address: s.Address, ChainID: c.ChainID, AccountNumber: s.Number, Sequence: seq,
		PubKey: &anypb.Any{TypeUrl: anyPub.TypeUrl, Value: anyPub.Value},
	}, b.GetTx().(authsigning.V2AdaptableTx).GetSigningTxData())
	if err != nil {
		return nil, fmt.Errorf("sign bytes: %w", err)
	}
	sig, err := s.Key.SignCosmos(ctx, signBytes)
	if err != nil {
		return nil, fmt.Errorf("sign tx at sequence %d with %s: %w", seq, s.Key.Source(), err)
	}
	if err := b.SetSignatures(signing.SignatureV2{PubKey: pub, Data: &signing.SingleSignatureData{SignMode: mode, Signature: sig}, Sequence: seq}); err != nil {
		return nil, fmt.Errorf("build tx: %w", err)
	}
	return c.Enc.TxConfig.TxEncoder()(b.GetTx())
}

// Simulate estimates gas for msgs from s with an unsigned tx, through REST. The tx carries a
// fee (for 200,000 gas) so that the estimate includes the fee transfer. A failure is a
// *TxError in phase "simulate".
func (c *Client) Simulate(ctx context.Context, s *Signer, msgs ...sdk.Msg) (*txtypes.SimulateResponse, error) {
	b := c.Enc.TxConfig.NewTxBuilder()
	if err := b.SetMsgs(msgs...); err != nil {
		return nil, err
	}
	b.SetFeeAmount(c.Fee(200_000))
	if err := b.SetSignatures(signing.SignatureV2{PubKey: s.Key.PubKey(), Data: &signing.SingleSignatureData{SignMode: s.Key.CosmosSignMode()}, Sequence: s.Sequence}); err != nil {
		return nil, err
	}
	bz, err := c.Enc.TxConfig.TxEncoder()(b.GetTx())
	if err != nil {
		return nil, err
	}
	if atomic.LoadInt32(&c.noTxQuery) == 0 {
		res, err := c.querySimulate(ctx, bz)
		if !errors.Is(err, errNoTxService) {
			return res, err
		}
		atomic.StoreInt32(&c.noTxQuery, 1)
	}
	var res txtypes.SimulateResponse
	if err := c.Post(ctx, "/cosmos/tx/v1beta1/simulate", &txtypes.SimulateRequest{TxBytes: bz}, &res); err != nil {
		// The node ran the tx and it failed (a contract error, a bad sequence): the gateway
		// answers 4xx or 500 with the reason. 404, 501 and 503 say the endpoint is missing.
		var re *nodehttp.Error
		if errors.As(err, &re) && re.Status != http.StatusNotFound && re.Status != http.StatusNotImplemented && re.Status != http.StatusServiceUnavailable {
			return nil, &TxError{Phase: PhaseSimulate, RawLog: re.Message}
		}
		return nil, fmt.Errorf("simulate: %w", err)
	}
	if res.GasInfo == nil {
		return nil, errors.New("simulate: reply has no gas info")
	}
	return &res, nil
}

// Broadcast sends tx bytes with broadcast_tx_sync over the CometBFT RPC.
func (c *Client) Broadcast(ctx context.Context, tx []byte) (*cosmosnode.CheckResult, error) {
	return c.Node.BroadcastSync(ctx, tx)
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
		return &sdk.TxResponse{TxHash: res.Hash, Code: res.Code, Codespace: res.Codespace, RawLog: res.Log}, nil
	}
	s.Sequence++
	return c.WaitTx(ctx, res.Hash)
}

// Exec simulates msgs, signs them with the adjusted gas, broadcasts them and waits for the
// result. A failure at any phase is a *TxError; on success the signer's sequence advances.
func (c *Client) Exec(ctx context.Context, s *Signer, msgs ...sdk.Msg) (*sdk.TxResponse, error) {
	sim, err := c.Simulate(ctx, s, msgs...)
	if err != nil {
		return nil, err
	}
	res, err := c.Send(ctx, s, c.GasLimit(sim.GasInfo.GasUsed), msgs...)
	if err != nil {
		return nil, err
	}
	if res.Code != 0 {
		phase := PhaseDeliver
		if res.Height == 0 {
			phase = PhaseCheck
		}
		return res, txError(phase, res)
	}
	return res, nil
}

// WaitTx polls GetTx until the tx is found.
func (c *Client) WaitTx(ctx context.Context, hash string) (*sdk.TxResponse, error) {
	for {
		res, err := c.GetTx(ctx, hash)
		if err == nil {
			return res, nil
		}
		if !NotFound(err) {
			return nil, fmt.Errorf("look up tx %s: %w", hash, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for tx %s: %w", hash, ctx.Err())
		case <-time.After(c.poll):
		}
	}
}

// Get reads a REST path into a protobuf response.
func (c *Client) Get(ctx context.Context, path string, out proto.Message) error {
	body, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	return c.Enc.Codec.UnmarshalJSON(body, out)
}

// GetJSON reads a REST path into a plain JSON value.
func (c *Client) GetJSON(ctx context.Context, path string, out any) error {
	body, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decode %s reply: %w", path, err)
	}
	return nil
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

// NotFound reports whether err is a REST 404 (an unknown tx, account or contract).
func NotFound(err error) bool { return nodehttp.NotFound(err) }

func (c *Client) do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	return c.Node.REST.Do(ctx, method, path, body)
}

// DialFor dials a Cosmos rollup as a Scorer's config asks (its endpoints and poll, a gas
// price given instead of the node's, the gas adjustment), knowing the messages register
// adds: the one dial Move and Wasm share.
func DialFor(ctx context.Context, cfg deployer.Config, register func(codectypes.InterfaceRegistry)) (*Client, error) {
	if cfg.CometRPC == "" || cfg.REST == "" {
		return nil, &deployer.ConfigError{Field: "CometRPC and REST", Value: fmt.Sprintf("%q and %q", cfg.CometRPC, cfg.REST),
			Err: errors.New("a Cosmos rollup needs its CometBFT RPC and REST URLs")}
	}
	opts := []Option{WithMessages(register), WithPollInterval(cfg.Push.Poll)}
	if cfg.Cosmos.GasAdjustment != 0 {
		opts = append(opts, WithGasAdjustment(cfg.Cosmos.GasAdjustment))
	}
	if cfg.Cosmos.GasPrice != nil {
		opts = append(opts, WithGasPrice(*cfg.Cosmos.GasPrice))
	}
	return Dial(ctx, cfg.CometRPC, cfg.REST, opts...)
}
