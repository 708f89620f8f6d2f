package cosmostx_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	wasmcontract "github.com/vipharness/vipharness/contracts/wasm"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/embedded"
)

func start(t *testing.T) (*embedded.WasmRollup, *cosmostx.Client, *cosmostx.Signer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := embedded.StartWasm(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	ep := r.Endpoints()
	c, err := cosmostx.Dial(ctx, ep.CometRPC, ep.REST, cosmostx.WithMessages(wasmtypes.RegisterInterfaces))
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := hex.DecodeString(r.Funded()[0].PrivateKey)
	s, err := c.Signer(ctx, &secp256k1.PrivKey{Key: secret})
	if err != nil {
		t.Fatal(err)
	}
	return r, c, s
}

func TestDialLearnsTheChain(t *testing.T) {
	r, c, s := start(t)
	if c.ChainID != r.ChainID() || c.Prefix() != "init" {
		t.Fatalf("chain %q prefix %q", c.ChainID, c.Prefix())
	}
	// The node's minimum gas price, as its config endpoint reports it.
	if c.GasPrice().Denom != "umin" || c.GasPrice().Amount.String() != "0.150000000000000000" {
		t.Fatalf("gas price %s", c.GasPrice())
	}
	if s.Address != r.Funded()[0].Address {
		t.Fatalf("signer %s, want %s", s.Address, r.Funded()[0].Address)
	}
	price, err := cosmostx.ParseGasPrice("0.025stake")
	if err != nil {
		t.Fatal(err)
	}
	ep := r.Endpoints()
	c2, err := cosmostx.Dial(context.Background(), ep.CometRPC, ep.REST, cosmostx.WithGasPrice(price))
	if err != nil || c2.GasPrice().Denom != "stake" {
		t.Fatalf("WithGasPrice: %v %v", c2, err)
	}
	for _, bad := range []string{"", "stake", "0.1", "-1stake"} {
		if _, err := cosmostx.ParseGasPrice(bad); err == nil || !strings.Contains(err.Error(), "0.025stake") {
			t.Errorf("ParseGasPrice(%q) = %v, want an error with an example", bad, err)
		}
	}
	if _, err := cosmostx.Dial(context.Background(), "http://127.0.0.1:1", ep.REST); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("unreachable rpc: %v", err)
	}
	unfunded, _ := bech32.ConvertAndEncode("init", bytes.Repeat([]byte{1}, 20))
	if _, _, err := c.Account(context.Background(), unfunded); !errors.Is(err, cosmostx.ErrNoAccount) {
		t.Errorf("unfunded account: %v", err)
	}
}

func TestExecReportsEachPhase(t *testing.T) {
	r, c, s := start(t)
	ctx := context.Background()
	res, err := c.Exec(ctx, s, &wasmtypes.MsgStoreCode{Sender: s.Address, WASMByteCode: wasmcontract.Code()})
	if err != nil {
		t.Fatal(err)
	}
	if ids := cosmostx.Attr(res, "store_code", "code_id"); len(ids) != 1 || s.Sequence != 1 {
		t.Fatalf("code ids %v, sequence %d", ids, s.Sequence)
	}

	// Simulation: a contract that does not exist.
	exec := &wasmtypes.MsgExecuteContract{Sender: s.Address, Contract: r.Funded()[1].Address, Msg: []byte(`{"finalize_stage":{"stage":1}}`)}
	_, err = c.Exec(ctx, s, exec)
	var te *cosmostx.TxError
	if !errors.As(err, &te) || te.Phase != cosmostx.PhaseSimulate || te.RawLog == "" || s.Sequence != 1 {
		t.Fatalf("simulate failure: %v (sequence %d)", err, s.Sequence)
	}

	// CheckTx: too little fee for the gas asked.
	send := &banktypes.MsgSend{FromAddress: s.Address, ToAddress: r.Funded()[1].Address, Amount: sdk.NewCoins(sdk.NewInt64Coin("umin", 1))}
	raw, err := c.SignAt(ctx, s, s.Sequence, 100_000, send)
	if err != nil {
		t.Fatal(err)
	}
	cheap := c.WithGasPrice(sdk.NewDecCoinFromDec("umin", c.GasPrice().Amount.QuoInt64(100)))
	rawCheap, err := cheap.SignAt(ctx, s, s.Sequence, 100_000, send)
	if err != nil {
		t.Fatal(err)
	}
	err = c.BroadcastSigned(ctx, rawCheap)
	if !push.IsRejected(err) || !errors.As(err, &te) || te.Phase != cosmostx.PhaseCheck || te.Code != 13 {
		t.Fatalf("underpriced tx: %v", err)
	}

	// Accepted, and accepted again (already in the node's cache) without an error.
	if err := c.BroadcastSigned(ctx, raw); err != nil {
		t.Fatal(err)
	}
	if err := c.BroadcastSigned(ctx, raw); err != nil {
		t.Fatalf("re-broadcast: %v", err)
	}
	// Blocks come on an interval: the tx is in the next one.
	hash := strings.ToUpper(hex.EncodeToString(sha(raw)))
	if _, err := c.WaitTx(ctx, hash); err != nil {
		t.Fatal(err)
	}
	out, err := c.Lookup(ctx, hash)
	if err != nil || !out.Found || !out.Success || out.GasUsed == 0 || out.Height == 0 {
		t.Fatalf("lookup %s: %+v %v", hash, out, err)
	}
	if out, err := c.Lookup(ctx, strings.Repeat("AB", 32)); err != nil || out.Found {
		t.Fatalf("unknown hash: %+v %v", out, err)
	}

	// DeliverTx: out of gas, included and failed.
	s.Sequence++
	raw, err = c.SignAt(ctx, s, s.Sequence, 600_000, &wasmtypes.MsgStoreCode{Sender: s.Address, WASMByteCode: wasmcontract.Code()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.BroadcastSigned(ctx, raw); err != nil {
		t.Fatal(err)
	}
	hash = strings.ToUpper(hex.EncodeToString(sha(raw)))
	if _, err := c.WaitTx(ctx, hash); err != nil {
		t.Fatal(err)
	}
	out, err = c.Lookup(ctx, hash)
	if err != nil || !out.Found || out.Success || !errors.As(out.Err, &te) || te.Phase != cosmostx.PhaseDeliver || te.Code != 11 || te.Height == 0 {
		t.Fatalf("out of gas: %+v %v", out, err)
	}

	// A node that does not answer is not a refusal: the tx may or may not have arrived.
	dead, err := cosmostx.New("http://127.0.0.1:1", "http://127.0.0.1:1", c.ChainID, c.Enc, c.GasPrice())
	if err != nil {
		t.Fatal(err)
	}
	if err := dead.BroadcastSigned(ctx, raw); err == nil || push.IsRejected(err) {
		t.Fatalf("unreachable node: %v", err)
	}
	limits, err := c.BlockLimits(ctx)
	if err != nil || limits.MaxBlockBytes <= 0 || limits.MaxBlockGas != -1 {
		t.Fatalf("limits %+v %v", limits, err)
	}
}

func sha(b []byte) []byte {
	h := sha256.Sum256(b)
	return h[:]
}
