package wasmexec_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdkmath "cosmossdk.io/math"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/ethereum/go-ethereum/crypto"

	wasmcontract "github.com/vipharness/vipharness/contracts/wasm"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/wasm"
	"github.com/vipharness/vipharness/localnet/devnode"
	"github.com/vipharness/vipharness/localnet/devnode/wasmexec"
)

// Fixed development mnemonics (BIP39 test vectors), so runs are reproducible.
const (
	mnemonicA = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
	mnemonicB = "legal winner thank year wave sausage worth useful legal winner thank yellow"
)

type testNode struct {
	node *devnode.Node
	c    *cosmostx.Client
	keys []*cosmostx.Signer
}

func start(t testing.TB, opts ...devnode.Option) *testNode {
	t.Helper()
	exec, err := wasmexec.New()
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]devnode.Option{devnode.WithFundedMnemonics(mnemonicA, mnemonicB), devnode.WithGeneratedAccounts(0)}, opts...)
	n, err := devnode.Start(context.Background(), exec, opts...)
	if err != nil {
		_ = exec.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = n.Close()
		_ = exec.Close()
	})
	enc, err := cosmostx.NewEncoding(n.Encoding().Prefix, wasmtypes.RegisterInterfaces)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cosmostx.New(n.RPCURL(), n.RESTURL(), n.ChainID(), enc, sdk.NewDecCoinFromDec(n.FeeDenom(), n.MinGasPrice()))
	if err != nil {
		t.Fatal(err)
	}
	tn := &testNode{node: n, c: c}
	for _, a := range n.Funded() {
		s, err := c.Signer(context.Background(), a.Key)
		if err != nil {
			t.Fatal(err)
		}
		tn.keys = append(tn.keys, s)
	}
	return tn
}

func (tn *testNode) mustSend(t testing.TB, s *cosmostx.Signer, gas uint64, msgs ...sdk.Msg) *sdk.TxResponse {
	t.Helper()
	res, err := tn.c.Send(context.Background(), s, gas, msgs...)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("tx failed: %s %d %s", res.Codespace, res.Code, res.RawLog)
	}
	return res
}

func (tn *testNode) deploy(t testing.TB, initStage uint64) string {
	t.Helper()
	d := tn.keys[0]
	tn.mustSend(t, d, 3_000_000, &wasmtypes.MsgStoreCode{Sender: d.Address, WASMByteCode: wasmcontract.Code()})
	init, _ := json.Marshal(map[string]any{"allow_list": []string{d.Address}, "init_stage": initStage})
	res := tn.mustSend(t, d, 500_000, &wasmtypes.MsgInstantiateContract{Sender: d.Address, CodeID: 1, Label: "vip", Msg: init})
	for _, ev := range res.Events {
		if ev.Type == "instantiate" {
			return ev.Attributes[0].Value
		}
	}
	t.Fatal("no instantiate event")
	return ""
}

func scoresMsg(sender, contract string, stage uint64, addrs []string) *wasmtypes.MsgExecuteContract {
	pairs := make([][2]any, len(addrs))
	for i, a := range addrs {
		pairs[i] = [2]any{a, i + 1}
	}
	bz, _ := json.Marshal(map[string]any{"update_scores": map[string]any{"stage": stage, "scores": pairs}})
	return &wasmtypes.MsgExecuteContract{Sender: sender, Contract: contract, Msg: bz}
}

func addrs(seed, n int) []string {
	out := make([]string, n)
	for i := range out {
		b := make([]byte, 20)
		for j := range b {
			b[j] = byte(seed*131 + i*17 + j*5)
		}
		binary.BigEndian.PutUint32(b, uint32(seed))
		binary.BigEndian.PutUint32(b[4:], uint32(i))
		out[i], _ = bech32.ConvertAndEncode("init", b)
	}
	return out
}

func TestEthSecp256k1Accounts(t *testing.T) {
	tn := start(t, devnode.WithKeyType(keys.EthSecp256k1))
	s := tn.keys[0]
	// The address is the Ethereum address of the coin-type-60 key.
	priv, err := crypto.HexToECDSA(tn.node.Funded()[0].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := bech32.ConvertAndEncode("init", crypto.PubkeyToAddress(priv.PublicKey).Bytes())
	if s.Address != want {
		t.Fatalf("eth account address %s, want %s", s.Address, want)
	}
	if _, ok := s.Key.PubKey().(*ethsecp256k1.PubKey); !ok || s.Key.KeyType() != keys.EthSecp256k1 {
		t.Fatalf("funded key is %s", s.Key.KeyType())
	}
	contract := tn.deploy(t, 1)
	tn.mustSend(t, s, 1_000_000, scoresMsg(s.Address, contract, 1, addrs(1, 10)))

	var acc authtypes.QueryAccountResponse
	if err := tn.c.Get(context.Background(), "/cosmos/auth/v1beta1/accounts/"+s.Address, &acc); err != nil {
		t.Fatal(err)
	}
	if acc.Account.TypeUrl != "/cosmos.auth.v1beta1.BaseAccount" {
		t.Fatalf("account type %s", acc.Account.TypeUrl)
	}
	var base authtypes.BaseAccount
	if err := tn.c.Enc.Codec.Unmarshal(acc.Account.Value, &base); err != nil {
		t.Fatal(err)
	}
	if base.PubKey.TypeUrl != "/initia.crypto.v1beta1.ethsecp256k1.PubKey" || base.Sequence != 3 {
		t.Fatalf("account pubkey %s sequence %d", base.PubKey.TypeUrl, base.Sequence)
	}

	// A high-S signature is refused, like Initia's verifier does.
	msg := &banktypes.MsgSend{FromAddress: s.Address, ToAddress: tn.keys[1].Address, Amount: sdk.NewCoins(sdk.NewInt64Coin("umin", 5))}
	tx, err := tn.c.SignTx(context.Background(), s, 200_000, msg)
	if err != nil {
		t.Fatal(err)
	}
	var raw txtypes.TxRaw
	if err := raw.Unmarshal(tx); err != nil {
		t.Fatal(err)
	}
	var sVal secp256k1.ModNScalar
	sVal.SetByteSlice(raw.Signatures[0][32:64])
	high := sVal.Negate().Bytes()
	raw.Signatures[0] = append(append(bytes.Clone(raw.Signatures[0][:32]), high[:]...), raw.Signatures[0][64:]...)
	tampered, _ := raw.Marshal()
	br, err := tn.c.Broadcast(context.Background(), tampered)
	if err != nil {
		t.Fatal(err)
	}
	if br.Code != 4 || !strings.Contains(br.Log, "signature verification failed") {
		t.Fatalf("high-S signature: code %d log %s", br.Code, br.Log)
	}
	// The untampered tx goes through.
	if br, err = tn.c.Broadcast(context.Background(), tx); err != nil || br.Code != 0 {
		t.Fatalf("eth-signed send: %+v %v", br, err)
	}
}

func TestBankSendAndRPCShapes(t *testing.T) {
	tn := start(t)
	ctx := context.Background()
	from, to := tn.keys[0], tn.keys[1]
	res := tn.mustSend(t, from, 200_000, &banktypes.MsgSend{FromAddress: from.Address, ToAddress: to.Address, Amount: sdk.NewCoins(sdk.NewInt64Coin("umin", 12345))})

	// CometBFT's own RPC client reads the tx, its block and the block results.
	hash, _ := hex.DecodeString(res.TxHash)
	rt, err := tn.c.RPC.Tx(ctx, hash, false)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Height != res.Height || rt.TxResult.Code != 0 || !bytes.Equal(cmttypes.Tx(rt.Tx).Hash(), hash) {
		t.Fatalf("rpc tx: %+v", rt)
	}
	blk, err := tn.c.RPC.Block(ctx, &rt.Height)
	if err != nil {
		t.Fatal(err)
	}
	if blk.Block.ChainID != tn.node.ChainID() || len(blk.Block.Txs) != 1 || !bytes.Equal(blk.BlockID.Hash, blk.Block.Hash()) {
		t.Fatalf("block %d: %+v", rt.Height, blk.Block.Header)
	}
	if prev, err := tn.c.RPC.Block(ctx, ptr(rt.Height-1)); err != nil || !bytes.Equal(blk.Block.LastBlockID.Hash, prev.BlockID.Hash) {
		t.Fatalf("block %d does not link to its parent: %v", rt.Height, err)
	}
	br, err := tn.c.RPC.BlockResults(ctx, &rt.Height)
	if err != nil || len(br.TxsResults) != 1 || br.TxsResults[0].GasUsed != res.GasUsed {
		t.Fatalf("block results %+v: %v", br, err)
	}
	found, err := tn.c.RPC.TxSearch(ctx, "transfer.recipient='"+to.Address+"'", false, nil, nil, "")
	if err != nil || found.TotalCount != 1 || !bytes.Equal(found.Txs[0].Hash, hash) {
		t.Fatalf("tx_search: %+v %v", found, err)
	}

	// The gRPC query path over abci_query, as client.Context and the SDK's query clients use it.
	cctx := client.Context{}.WithClient(tn.c.RPC).WithInterfaceRegistry(tn.c.Enc.Registry).WithCodec(tn.c.Enc.Codec).WithTxConfig(tn.c.Enc.TxConfig).WithChainID(tn.node.ChainID())
	bal, err := banktypes.NewQueryClient(cctx).Balance(ctx, &banktypes.QueryBalanceRequest{Address: to.Address, Denom: "umin"})
	if err != nil {
		t.Fatal(err)
	}
	if want := devnode.DefaultGenesisBalance.Add(sdkmath.NewInt(12345)); !bal.Balance.Amount.Equal(want) {
		t.Fatalf("balance %s, want %s", bal.Balance, want)
	}
	if _, err := authtypes.NewQueryClient(cctx).Account(ctx, &authtypes.QueryAccountRequest{Address: from.Address}); err != nil {
		t.Fatal(err)
	}

	// Rebroadcasting an included tx is the mempool's "already in cache" refusal.
	tx, err := tn.c.RPC.Tx(ctx, hash, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tn.c.Broadcast(ctx, tx.Tx); err == nil || !strings.Contains(err.Error(), "tx already exists in cache") {
		t.Fatalf("rebroadcast over rpc: %v", err)
	}
	r2, err := tn.c.BroadcastREST(ctx, tx.Tx)
	if err != nil || r2.Code != 19 {
		t.Fatalf("rebroadcast over rest: %+v %v", r2, err)
	}
}

func TestAppHashIsDeterministic(t *testing.T) {
	run := func() []byte {
		tn := start(t, devnode.WithGenesisTime(time.Unix(1_700_000_000, 0)))
		contract := tn.deploy(t, 5)
		tn.mustSend(t, tn.keys[0], 2_000_000, scoresMsg(tn.keys[0].Address, contract, 5, addrs(7, 50)))
		return tn.node.AppHash()
	}
	a, b := run(), run()
	if !bytes.Equal(a, b) || len(a) != 32 {
		t.Fatalf("app hashes differ: %X vs %X", a, b)
	}
}

func ptr[T any](v T) *T { return &v }

func TestQueriesDuringTxs(t *testing.T) {
	tn := start(t)
	contract := tn.deploy(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	for range 2 {
		go func() {
			for ctx.Err() == nil {
				var si map[string]any
				if err := wasm.Smart(ctx, tn.c, contract, map[string]any{"get_stage_info": map[string]any{"stage": 1}}, &si); err != nil && ctx.Err() == nil {
					done <- err
					return
				}
				if _, err := tn.c.RPC.Status(ctx); err != nil && ctx.Err() == nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for i := range 10 {
		tn.mustSend(t, tn.keys[0], 1_000_000, scoresMsg(tn.keys[0].Address, contract, 1, addrs(i+1, 20)))
	}
	cancel()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
