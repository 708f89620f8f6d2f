package xevm_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/bindings/initiaevm"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"

	"github.com/vipharness/vipharness/localnet/minitia/xevm"
)

// sendEth signs an Ethereum tx with the funded key, wraps it as minievm does and broadcasts
// the Cosmos bytes through CometBFT; it returns the check's code and log and the Cosmos hash.
func (tn *testNode) sendEth(t *testing.T, data types.TxData) (uint32, string, string) {
	t.Helper()
	chainID := tn.node.ChainID()
	ethTx, err := tn.signer.Key.SignEVMTx(context.Background(), types.NewTx(data), xevm.EVMChainID(chainID))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := xevm.CosmosTx(tn.c.Enc.TxConfig, tn.c.Enc.Address, chainID, tn.node.Config().FeeDenom, ethTx)
	if err != nil {
		t.Fatal(err)
	}
	bz, err := tn.c.Enc.TxConfig.TxEncoder()(tx)
	if err != nil {
		t.Fatal(err)
	}
	back, carried, err := xevm.EthereumTx(tn.c.Enc.Address, chainID, tn.node.Config().FeeDenom, nil, tx)
	if err != nil || back == nil || back.Hash() != ethTx.Hash() || *carried != tn.evmAddr() {
		t.Fatalf("the wrapping gives back %v from %v (%v), want %s from %s", back, carried, err, ethTx.Hash(), tn.evmAddr())
	}
	res, err := tn.c.Broadcast(context.Background(), bz)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(bz)
	return res.Code, res.Log, strings.ToUpper(hex.EncodeToString(sum[:]))
}

func TestEthereumTxsRunInTheirCosmosWrapping(t *testing.T) {
	tn := start(t)
	ctx := context.Background()
	to := common.HexToAddress("0x00000000000000000000000000000000000000dd")
	price := big.NewInt(1_000_000_000)
	nonce := tn.signer.Sequence
	for _, tc := range []struct {
		name string
		data types.TxData
	}{
		{"legacy", &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: 200_000, To: &to, Value: big.NewInt(5)}},
		{"dynamic fee", &types.DynamicFeeTx{ChainID: xevm.EVMChainID(tn.node.ChainID()), Nonce: nonce + 1, GasFeeCap: price, GasTipCap: big.NewInt(0), Gas: 200_000, To: &to, Value: big.NewInt(7)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, log, hash := tn.sendEth(t, tc.data)
			if code != 0 {
				t.Fatalf("check: code %d %s", code, log)
			}
			res, err := tn.c.WaitTx(ctx, hash)
			if err != nil {
				t.Fatal(err)
			}
			if res.Code != 0 {
				t.Fatalf("deliver: code %d %s", res.Code, res.RawLog)
			}
		})
	}
	var bal struct {
		Balance struct{ Amount string } `json:"balance"`
	}
	if err := tn.c.GetJSON(ctx, "/cosmos/bank/v1beta1/balances/"+tn.c.Enc.MustAddr(to.Bytes())+"/by_denom?denom="+tn.node.Config().FeeDenom, &bal); err != nil {
		t.Fatal(err)
	}
	if bal.Balance.Amount != "12" {
		t.Fatalf("recipient holds %q, want 12", bal.Balance.Amount)
	}
	_, seq, err := tn.c.Account(ctx, tn.sender())
	if err != nil {
		t.Fatal(err)
	}
	if seq != nonce+2 {
		t.Fatalf("sequence %d after two Ethereum txs from %d", seq, nonce)
	}

	// A used nonce is refused at check in the SDK's words.
	code, log, _ := tn.sendEth(t, &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: 200_000, To: &to, Value: big.NewInt(6)})
	if code == 0 || !strings.Contains(log, "account sequence mismatch") {
		t.Fatalf("a used nonce: code %d %s", code, log)
	}
}

func TestAWrappingWithAnotherFeeIsRefused(t *testing.T) {
	enc, err := cosmostx.NewEncoding("init", initiaevm.RegisterInterfaces)
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	const chainID = "vip-evm-1"
	to := common.HexToAddress("0xdd")
	ethTx, err := types.SignNewTx(key, types.LatestSignerForChainID(xevm.EVMChainID(chainID)),
		&types.LegacyTx{GasPrice: big.NewInt(100), Gas: 50_000, To: &to, Value: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := xevm.CosmosTx(enc.TxConfig, enc.Address, chainID, "umin", ethTx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := enc.TxConfig.WrapTxBuilder(tx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, fee, wantErr string
	}{
		{"the fee it was made with", "5000001umin", ""},
		{"a lower fee", "1umin", "fee amount manipulation detected"},
		{"another denom", "5000001uinit", "fee amount manipulation detected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fee, err := sdk.ParseCoinsNormalized(tc.fee)
			if err != nil {
				t.Fatal(err)
			}
			b.SetFeeAmount(fee)
			back, _, err := xevm.EthereumTx(enc.Address, chainID, "umin", nil, b.GetTx())
			if tc.wantErr == "" {
				if err != nil || back == nil || back.Hash() != ethTx.Hash() {
					t.Fatalf("gives back %v (%v), want %s", back, err, ethTx.Hash())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}
