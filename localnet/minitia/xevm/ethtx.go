package xevm

import (
	"bytes"
	"encoding/json"
	"math/big"

	"cosmossdk.io/core/address"
	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	"github.com/cosmos/cosmos-sdk/x/auth/ante"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/bindings/initiaevm"
	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
	"github.com/vipharness/vipharness/deployer/registration/probe"
)

// An Ethereum tx travels on a minievm as a Cosmos tx: one MsgCreate or MsgCall from its
// sender, its gas limit as the tx's, its fee cap times its gas as the fee, its signature
// under minievm's own sign mode, and what the Cosmos tx cannot hold (type, caps, gas) as JSON
// in the memo. The conversion is minievm's (x/evm/types/txutils.go, read for the rules), so a
// tx's Cosmos bytes, and so its Cosmos hash, are what a minievm makes of it. The fee denom
// has 18 decimals here, as wei: amounts pass unscaled. A minievm reads the decimals from the
// fee token when it checks a wrapping's fee (an EVM call the tx pays for), so the ante
// handler does too; a read that runs out of gas gives 0, and the fee then does not match.

// EtherDecimals are the fee denom's decimals: the EVM's native coin counts in wei.
const EtherDecimals = 18

// SignModeEthereum is minievm's sign mode of a Cosmos tx that carries an Ethereum tx.
const SignModeEthereum = signing.SignMode(9999)

// ErrTxConversionFailed is minievm's refusal of a Cosmos tx that claims to carry an Ethereum
// tx and does not.
var ErrTxConversionFailed = errorsmod.Register(ModuleName, 31, "Tx conversion failed")

type txMetadata struct {
	Type      uint8    `json:"type"`
	GasFeeCap *big.Int `json:"gas_fee_cap"`
	GasTipCap *big.Int `json:"gas_tip_cap"`
	GasLimit  uint64   `json:"gas_limit"`
}

// EVMChainID is the EVM chain id of a Cosmos chain id, as minievm derives it.
func EVMChainID(cosmosChainID string) *big.Int {
	return new(big.Int).SetUint64(probe.DeriveEVMChainID(cosmosChainID))
}

// feeAmount is minievm's fee for a cap and a gas limit: their product in wei, in the fee
// denom's units, plus one against rounding (none for a zero cap).
func feeAmount(feeCap *big.Int, gas uint64, decimals uint8) *big.Int {
	if feeCap.Sign() == 0 {
		return big.NewInt(0)
	}
	fee := new(big.Int).Mul(feeCap, new(big.Int).SetUint64(gas))
	switch {
	case decimals > EtherDecimals:
		fee.Mul(fee, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals-EtherDecimals)), nil))
	case decimals < EtherDecimals:
		fee.Quo(fee, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(EtherDecimals-decimals)), nil))
	}
	return fee.Add(fee, big.NewInt(1))
}

// CosmosTx is the Cosmos tx that carries ethTx on the chain cosmosChainID.
func CosmosTx(txConfig client.TxConfig, addresses address.Codec, cosmosChainID, feeDenom string, ethTx *types.Transaction) (sdk.Tx, error) {
	signer := types.LatestSignerForChainID(EVMChainID(cosmosChainID))
	from, err := types.Sender(signer, ethTx)
	if err != nil {
		return nil, err
	}
	v, r, s := ethTx.RawSignatureValues()
	sig := make([]byte, 65)
	switch ethTx.Type() {
	case types.LegacyTxType:
		chain := EVMChainID(cosmosChainID)
		sig[64] = byte(new(big.Int).Sub(v, new(big.Int).Add(new(big.Int).Add(chain, chain), big.NewInt(35))).Uint64())
	case types.AccessListTxType, types.DynamicFeeTxType:
		sig[64] = byte(v.Uint64())
	default:
		return nil, sdkerrors.ErrorInvalidSigner.Wrapf("unsupported tx type: %d", ethTx.Type())
	}
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:64])
	pub, err := crypto.Ecrecover(signer.Hash(ethTx).Bytes(), sig)
	if err != nil {
		return nil, sdkerrors.ErrorInvalidSigner.Wrapf("failed to recover pubkey: %v", err)
	}
	pk, err := crypto.UnmarshalPubkey(pub)
	if err != nil {
		return nil, sdkerrors.ErrorInvalidSigner.Wrapf("failed to create pubkey: %v", err)
	}
	sender, err := addresses.BytesToString(from.Bytes())
	if err != nil {
		return nil, err
	}
	msg := Message(sender, ethTx.To(), ethTx.Data(), sdkmath.NewIntFromBigInt(ethTx.Value()), ethTx.AccessList())
	b := txConfig.NewTxBuilder()
	if err := b.SetMsgs(msg); err != nil {
		return nil, err
	}
	b.SetGasLimit(ethTx.Gas())
	b.SetFeeAmount(sdk.NewCoins(sdk.NewCoin(feeDenom, sdkmath.NewIntFromBigInt(feeAmount(ethTx.GasFeeCap(), ethTx.Gas(), EtherDecimals)))))
	if err := b.SetSignatures(signing.SignatureV2{PubKey: &ethsecp256k1.PubKey{Key: crypto.CompressPubkey(pk)},
		Data: &signing.SingleSignatureData{SignMode: SignModeEthereum, Signature: sig}, Sequence: ethTx.Nonce()}); err != nil {
		return nil, err
	}
	memo, err := json.Marshal(txMetadata{Type: ethTx.Type(), GasFeeCap: ethTx.GasFeeCap(), GasTipCap: ethTx.GasTipCap(), GasLimit: ethTx.Gas()})
	if err != nil {
		return nil, err
	}
	b.SetMemo(string(memo))
	return b.GetTx(), nil
}

// Message is the x/evm message of a call to to (nil: a create) from sender (bech32), as
// minievm builds it from an Ethereum tx or an estimate's arguments.
func Message(sender string, to *common.Address, data []byte, value sdkmath.Int, list types.AccessList) sdk.Msg {
	var tuples []initiaevm.AccessTuple
	for _, t := range list {
		keys := make([]string, len(t.StorageKeys))
		for i, k := range t.StorageKeys {
			keys[i] = k.Hex()
		}
		tuples = append(tuples, initiaevm.AccessTuple{Address: t.Address.Hex(), StorageKeys: keys})
	}
	if to == nil {
		return &initiaevm.MsgCreate{Sender: sender, Code: hexutil.Encode(data), Value: value, AccessList: tuples}
	}
	return &initiaevm.MsgCall{Sender: sender, ContractAddr: to.Hex(), Input: hexutil.Encode(data), Value: value, AccessList: tuples}
}

// EthereumTx is the Ethereum tx a Cosmos tx carries and its claimed sender, or nil when it
// carries none (not one message of x/evm, no metadata memo, not minievm's sign mode).
// decimals reads the fee denom's decimals when the fee is to be checked; nil takes
// EtherDecimals unread.
func EthereumTx(addresses address.Codec, cosmosChainID, feeDenom string, decimals func() uint8, tx sdk.Tx) (*types.Transaction, *common.Address, error) {
	msgs := tx.GetMsgs()
	sigTx, ok := tx.(authsigning.Tx)
	if len(msgs) != 1 || !ok || sigTx.GetMemo() == "" {
		return nil, nil, nil
	}
	var md txMetadata
	dec := json.NewDecoder(bytes.NewReader([]byte(sigTx.GetMemo())))
	dec.DisallowUnknownFields()
	if dec.Decode(&md) != nil || md.GasFeeCap == nil || md.GasTipCap == nil || md.Type > types.DynamicFeeTxType {
		return nil, nil, nil
	}
	sigs, err := sigTx.GetSignaturesV2()
	if err != nil || len(sigs) != 1 {
		return nil, nil, err
	}
	single, ok := sigs[0].Data.(*signing.SingleSignatureData)
	if !ok || single.SignMode != SignModeEthereum || sigs[0].PubKey == nil || len(sigs[0].PubKey.Address()) != common.AddressLength {
		return nil, nil, nil
	}
	if len(single.Signature) != 65 {
		return nil, nil, ErrTxConversionFailed.Wrap("invalid signature length")
	}
	fee := sigTx.GetFee()
	d := uint8(EtherDecimals)
	if decimals != nil {
		d = decimals()
	}
	if want := sdk.NewCoins(sdk.NewCoin(feeDenom, sdkmath.NewIntFromBigInt(feeAmount(md.GasFeeCap, md.GasLimit, d)))); !fee.Equal(want) {
		return nil, nil, ErrTxConversionFailed.Wrap("fee amount manipulation detected")
	}
	var to *common.Address
	var input []byte
	var value *big.Int
	var tuples []initiaevm.AccessTuple
	switch m := msgs[0].(type) {
	case *initiaevm.MsgCall:
		addr, err := parseAddress(addresses, m.ContractAddr)
		if err != nil {
			return nil, nil, err
		}
		if input, err = hexutil.Decode(m.Input); err != nil {
			return nil, nil, err
		}
		to, value, tuples = &addr, m.Value.BigInt(), m.AccessList
	case *initiaevm.MsgCreate:
		if input, err = hexutil.Decode(m.Code); err != nil {
			return nil, nil, err
		}
		value, tuples = m.Value.BigInt(), m.AccessList
	default:
		return nil, nil, nil
	}
	if value == nil {
		value = new(big.Int)
	}
	var list types.AccessList
	for _, t := range tuples {
		entry := types.AccessTuple{Address: common.HexToAddress(t.Address)}
		for _, k := range t.StorageKeys {
			entry.StorageKeys = append(entry.StorageKeys, common.HexToHash(k))
		}
		list = append(list, entry)
	}
	chain := EVMChainID(cosmosChainID)
	sig := single.Signature
	r, s, v := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64]), new(big.Int).SetBytes(sig[64:])
	nonce := sigs[0].Sequence
	var data types.TxData
	switch md.Type {
	case types.LegacyTxType:
		data = &types.LegacyTx{Nonce: nonce, GasPrice: md.GasFeeCap, Gas: md.GasLimit, To: to, Value: value, Data: input,
			V: new(big.Int).Add(v, new(big.Int).SetUint64(35+chain.Uint64()*2)), R: r, S: s}
	case types.AccessListTxType:
		data = &types.AccessListTx{ChainID: chain, Nonce: nonce, GasPrice: md.GasFeeCap, Gas: md.GasLimit, To: to, Value: value,
			Data: input, AccessList: list, V: v, R: r, S: s}
	case types.DynamicFeeTxType:
		data = &types.DynamicFeeTx{ChainID: chain, Nonce: nonce, GasTipCap: md.GasTipCap, GasFeeCap: md.GasFeeCap, Gas: md.GasLimit,
			To: to, Value: value, Data: input, AccessList: list, V: v, R: r, S: s}
	}
	sender := common.BytesToAddress(sigs[0].PubKey.Address())
	return types.NewTx(data), &sender, nil
}

// ethTxKey is the context key under which EthereumTxDecorator leaves the Ethereum tx a
// Cosmos tx carries, with its claimed sender.
type ethTxKey struct{}

type carried struct {
	tx     *types.Transaction
	sender common.Address
}

// IsEthereumTx reports whether ctx's tx carries an Ethereum tx (after EthereumTxDecorator).
func IsEthereumTx(ctx sdk.Context) bool { return ctx.Value(ethTxKey{}) != nil }

// EthereumTxDecorator finds the Ethereum tx a Cosmos tx carries, refusing a wrapping that
// does not convert, and leaves it in the context for the decorators after it, as minievm's
// EthTxDecorator does. The fee check reads the fee token's decimals on the tx's meter.
type EthereumTxDecorator struct {
	Addresses address.Codec
	Keeper    *Keeper
}

// AnteHandle implements sdk.AnteDecorator.
func (d EthereumTxDecorator) AnteHandle(ctx sdk.Context, tx sdk.Tx, simulate bool, next sdk.AnteHandler) (sdk.Context, error) {
	ethTx, sender, err := EthereumTx(d.Addresses, ctx.ChainID(), d.Keeper.denom, func() uint8 { return d.Keeper.FeeDecimals(ctx) }, tx)
	if err != nil {
		return ctx, err
	}
	if ethTx != nil {
		ctx = ctx.WithValue(ethTxKey{}, carried{tx: ethTx, sender: *sender})
	}
	return next(ctx, tx, simulate)
}

// UnlessEthereumTx runs Next on every tx but one that carries an Ethereum tx (found by an
// EthereumTxDecorator before it). minievm skips the SDK's size and signature gas for those:
// the Ethereum tx's intrinsic gas pays for its bytes and signature (without it a score
// update's calldata, hex in the Cosmos message, cost 20 gas a byte more than on a minievm).
type UnlessEthereumTx struct{ Next sdk.AnteDecorator }

// AnteHandle implements sdk.AnteDecorator.
func (d UnlessEthereumTx) AnteHandle(ctx sdk.Context, tx sdk.Tx, simulate bool, next sdk.AnteHandler) (sdk.Context, error) {
	if ctx.Value(ethTxKey{}) != nil {
		return next(ctx, tx, simulate)
	}
	return d.Next.AnteHandle(ctx, tx, simulate, next)
}

// SigVerifyDecorator verifies a Cosmos tx that carries an Ethereum tx (found by an
// EthereumTxDecorator before it) by the Ethereum tx's signature (the sender it recovers must
// be the tx's signer, its nonce the account's sequence) and hands every other tx to Next.
type SigVerifyDecorator struct {
	Next     sdk.AnteDecorator
	Accounts ante.AccountKeeper
}

// AnteHandle implements sdk.AnteDecorator.
func (d SigVerifyDecorator) AnteHandle(ctx sdk.Context, tx sdk.Tx, simulate bool, next sdk.AnteHandler) (sdk.Context, error) {
	if !carriesEthereumSig(tx) {
		return d.Next.AnteHandle(ctx, tx, simulate, next)
	}
	c, ok := ctx.Value(ethTxKey{}).(carried)
	if !ok {
		if simulate {
			// An estimate (eth_estimateGas) simulates the message under the Ethereum sign
			// mode with no signature: as the SDK does in a simulation, nothing to verify.
			return next(ctx, tx, simulate)
		}
		return ctx, errorsmod.Wrap(ErrTxConversionFailed, "a signature in the Ethereum sign mode on a tx that carries no Ethereum tx")
	}
	ethTx, claimed := c.tx, c.sender
	acc, err := ante.GetSignerAcc(ctx, d.Accounts, claimed.Bytes())
	if err != nil {
		return ctx, err
	}
	if ethTx.Nonce() != acc.GetSequence() {
		return ctx, errorsmod.Wrapf(sdkerrors.ErrWrongSequence, "account sequence mismatch, expected %d, got %d", acc.GetSequence(), ethTx.Nonce())
	}
	if simulate || ctx.IsReCheckTx() || !ctx.IsSigverifyTx() {
		return next(ctx, tx, simulate)
	}
	from, err := types.Sender(types.LatestSignerForChainID(EVMChainID(ctx.ChainID())), ethTx)
	if err != nil {
		return ctx, errorsmod.Wrapf(sdkerrors.ErrorInvalidSigner, "failed to recover sender address: %v", err)
	}
	if from != claimed {
		return ctx, errorsmod.Wrapf(sdkerrors.ErrorInvalidSigner, "expected sender %s, got %s", claimed, from)
	}
	return next(ctx, tx, simulate)
}

func carriesEthereumSig(tx sdk.Tx) bool {
	sigTx, ok := tx.(authsigning.Tx)
	if !ok {
		return false
	}
	sigs, err := sigTx.GetSignaturesV2()
	if err != nil {
		return false
	}
	for _, s := range sigs {
		if single, ok := s.Data.(*signing.SingleSignatureData); ok && single.SignMode == SignModeEthereum {
			return true
		}
	}
	return false
}
