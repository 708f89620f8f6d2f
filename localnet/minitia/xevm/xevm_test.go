package xevm_test

import (
	"context"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/bindings/initiaevm"
	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/minitia"
)

const mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

type testNode struct {
	node   *minitia.Node
	c      *cosmostx.Client
	signer *cosmostx.Signer
	abi    *abi.ABI
}

func start(t *testing.T) *testNode {
	t.Helper()
	n, err := minitia.Start(context.Background(), minitia.Config{VM: vip.EVM, Mnemonics: []string{mnemonic}, GeneratedAccounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	enc, err := cosmostx.NewEncoding(n.Config().Bech32Prefix, initiaevm.RegisterInterfaces)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cosmostx.New(n.RPCURL(), n.RESTURL(), n.ChainID(), enc, n.Config().MinGasPrices()[0])
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Signer(context.Background(), n.Funded()[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	a, err := vipscore.VipScoreMetaData.ParseABI()
	if err != nil {
		t.Fatal(err)
	}
	return &testNode{node: n, c: c, signer: s, abi: a}
}

func (tn *testNode) sender() string { return tn.c.Address(tn.signer.Key.PubKey()) }

func (tn *testNode) evmAddr() common.Address {
	return common.BytesToAddress(tn.signer.Key.PubKey().Address())
}

func (tn *testNode) pack(t *testing.T, method string, args ...any) string {
	t.Helper()
	in, err := tn.abi.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(in)
}

// deploy deploys vip_score with initStage 7 in a Cosmos tx and returns its address.
func (tn *testNode) deploy(t *testing.T) common.Address {
	t.Helper()
	ctor, err := tn.abi.Pack("", uint64(7))
	if err != nil {
		t.Fatal(err)
	}
	code := hex.EncodeToString(append(common.FromHex(vipscore.VipScoreMetaData.Bin), ctor...))
	res, err := tn.c.Exec(context.Background(), tn.signer, &initiaevm.MsgCreate{Sender: tn.sender(), Code: code, Value: sdkmath.ZeroInt()})
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	var out initiaevm.MsgCreateResponse
	unpackResponse(t, res, &out)
	return common.HexToAddress(out.ContractAddr)
}

func unpackResponse(t *testing.T, res *sdk.TxResponse, out interface{ Unmarshal([]byte) error }) {
	t.Helper()
	data, err := hex.DecodeString(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	var msgData sdk.TxMsgData
	if err := msgData.Unmarshal(data); err != nil {
		t.Fatal(err)
	}
	if len(msgData.MsgResponses) != 1 {
		t.Fatalf("%d responses", len(msgData.MsgResponses))
	}
	if err := out.Unmarshal(msgData.MsgResponses[0].Value); err != nil {
		t.Fatal(err)
	}
}

// view calls the contract through x/evm's Call query over abci_query.
func (tn *testNode) view(t *testing.T, contract common.Address, method string, args ...any) ([]any, string) {
	t.Helper()
	req := initiaevm.QueryCallRequest{Sender: tn.sender(), ContractAddr: contract.Hex(), Input: tn.pack(t, method, args...), Value: sdkmath.ZeroInt()}
	bz, err := req.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	qr, err := tn.c.Node.ABCIQuery(context.Background(), "/minievm.evm.v1.Query/Call", bz)
	if err != nil {
		t.Fatal(err)
	}
	if qr.Code != 0 {
		t.Fatalf("query %s: code %d %s", method, qr.Code, qr.Log)
	}
	var resp initiaevm.QueryCallResponse
	if err := resp.Unmarshal(qr.Value); err != nil {
		t.Fatal(err)
	}
	if resp.Error != "" {
		return nil, resp.Error
	}
	vals, err := tn.abi.Unpack(method, common.FromHex(resp.Response))
	if err != nil {
		t.Fatal(err)
	}
	return vals, ""
}

func TestScoringContractRunsInCosmosTxs(t *testing.T) {
	tn := start(t)
	ctx := context.Background()
	seqBefore := tn.signer.Sequence
	contract := tn.deploy(t)
	if want := crypto.CreateAddress(tn.evmAddr(), seqBefore); contract != want {
		t.Fatalf("contract at %s, want the CREATE address of the sender's nonce %d: %s", contract, seqBefore, want)
	}
	_, seq, err := tn.c.Account(ctx, tn.sender())
	if err != nil {
		t.Fatal(err)
	}
	if seq != seqBefore+1 {
		t.Fatalf("sequence after a create %d, want %d (one raise per tx)", seq, seqBefore+1)
	}
	if vals, _ := tn.view(t, contract, "initStage"); vals[0].(uint64) != 7 {
		t.Fatalf("initStage %v, want 7", vals[0])
	}

	a, b := common.HexToAddress("0x00000000000000000000000000000000000000aa"), common.HexToAddress("0x00000000000000000000000000000000000000bb")
	update := &initiaevm.MsgCall{Sender: tn.sender(), ContractAddr: contract.Hex(), Value: sdkmath.ZeroInt(),
		Input: tn.pack(t, "updateScores", uint64(7), []common.Address{a, b}, []uint64{10, 20})}
	res, err := tn.c.Exec(ctx, tn.signer, update)
	if err != nil {
		t.Fatalf("updateScores: %v", err)
	}
	var callOut initiaevm.MsgCallResponse
	unpackResponse(t, res, &callOut)
	if len(callOut.Logs) == 0 {
		t.Fatal("updateScores logged nothing")
	}
	if vals, _ := tn.view(t, contract, "scores", uint64(7), b); vals[1].(uint64) != 20 {
		t.Fatalf("score of b %v, want 20", vals[1])
	}
	if res.GasUsed <= 21_000 {
		t.Fatalf("gas used %d: the tx's Cosmos gas plus the EVM's is above a transfer's", res.GasUsed)
	}

	finalize := &initiaevm.MsgCall{Sender: tn.sender(), ContractAddr: contract.Hex(), Value: sdkmath.ZeroInt(), Input: tn.pack(t, "finalizeStage", uint64(7))}
	if _, err := tn.c.Exec(ctx, tn.signer, finalize); err != nil {
		t.Fatalf("finalizeStage: %v", err)
	}
	// A second finalize reverts with StageFinalized(7): refused in simulation with x/evm's code.
	_, err = tn.c.Exec(ctx, tn.signer, finalize)
	var txErr *cosmostx.TxError
	if !errors.As(err, &txErr) || !strings.Contains(err.Error(), "Reverted") {
		t.Fatalf("second finalize: %v, want x/evm's Reverted", err)
	}
	// The revert's data reaches the query's caller.
	if _, errText := tn.view(t, contract, "updateScore", uint64(7), a, uint64(1)); errText != "Reverted" {
		t.Fatalf("update of a finalized stage in a query: %q, want Reverted", errText)
	}
	if vals, _ := tn.view(t, contract, "scores", uint64(7), a); vals[1].(uint64) != 10 {
		t.Fatalf("score of a after the refused update %v, want 10", vals[1])
	}
}

func TestValueMovesTheFeeDenom(t *testing.T) {
	tn := start(t)
	ctx := context.Background()
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	send := &initiaevm.MsgCall{Sender: tn.sender(), ContractAddr: to.Hex(), Value: sdkmath.NewInt(12345)}
	if _, err := tn.c.Exec(ctx, tn.signer, send); err != nil {
		t.Fatalf("value transfer: %v", err)
	}
	var bal struct {
		Balance struct{ Amount string } `json:"balance"`
	}
	bech := tn.c.Enc.MustAddr(to.Bytes())
	if err := tn.c.GetJSON(ctx, "/cosmos/bank/v1beta1/balances/"+bech+"/by_denom?denom="+tn.node.Config().FeeDenom, &bal); err != nil {
		t.Fatal(err)
	}
	if bal.Balance.Amount != "12345" {
		t.Fatalf("recipient's bank balance %q, want 12345", bal.Balance.Amount)
	}
	var supply struct {
		Amount struct{ Amount string } `json:"amount"`
	}
	if err := tn.c.GetJSON(ctx, "/cosmos/bank/v1beta1/supply/by_denom?denom="+tn.node.Config().FeeDenom, &supply); err != nil {
		t.Fatal(err)
	}
	total, _ := new(big.Int).SetString(supply.Amount.Amount, 10)
	if total == nil || total.Sign() <= 0 {
		t.Fatalf("supply %q after a transfer", supply.Amount.Amount)
	}
	tooMuch := &initiaevm.MsgCall{Sender: tn.sender(), ContractAddr: to.Hex(), Value: sdkmath.NewIntFromBigInt(new(big.Int).Lsh(big.NewInt(1), 200))}
	if _, err := tn.c.Exec(ctx, tn.signer, tooMuch); err == nil || !strings.Contains(err.Error(), "insufficient balance") {
		t.Fatalf("a transfer above the balance: %v, want the EVM's insufficient balance", err)
	}
}
