package devnode

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"time"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/store/cachekv"
	storetypes "cosmossdk.io/store/types"
	txsigning "cosmossdk.io/x/tx/signing"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cosmos/cosmos-sdk/codec/legacy"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	"github.com/cosmos/cosmos-sdk/x/auth/migrations/legacytx"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/cosmos/gogoproto/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
)

// The SDK's x/auth parameter defaults, which the ante checks use.
const (
	maxMemoCharacters      = 256
	txSigLimit             = 7
	txSizeCostPerByte      = 10
	sigVerifyCostSecp256k1 = 1000
	sigVerifyCostED25519   = 590
)

var (
	// simPubKey and simSigGas stand in for a signature a simulated tx does not carry yet,
	// priced like the SDK's ConsumeTxSizeGasDecorator does.
	simPubKey = &secp256k1.PubKey{Key: bytes.Repeat([]byte{0x02}, 33)}
	simSigGas = txSizeCostPerByte * uint64(len(legacy.Cdc.MustMarshal(legacytx.StdSignature{ //nolint:staticcheck // the SDK prices simulated signatures with it
		Signature: make([]byte, 64), PubKey: simPubKey,
	}))+6)
)

// txOutcome is what running a tx produced.
type txOutcome struct {
	// rejected is set when the tx fails its checks (decoding, fees, sequence, signatures): a
	// real node refuses it in CheckTx, it never enters a block and nothing is written.
	rejected  error
	gasWanted uint64
	gasUsed   uint64
	// err is a message failure: the tx enters its block with this error, keeping only the
	// checks' effects (fee, sequence).
	err       error
	events    sdk.Events
	data      []byte
	responses []*codectypes.Any
}

// execResult renders the outcome as CometBFT's ExecTxResult.
func (o *txOutcome) execResult() *abci.ExecTxResult {
	res := &abci.ExecTxResult{
		GasWanted: int64(o.gasWanted),
		GasUsed:   int64(o.gasUsed),
		Events:    sdk.MarkEventsToIndex(o.events.ToABCIEvents(), nil),
		Data:      o.data,
	}
	if o.err != nil {
		res.Codespace, res.Code, res.Log = errorsmod.ABCIInfo(o.err, false)
		res.Data = nil
	}
	return res
}

// blockInfo is the block a tx runs in.
type blockInfo struct {
	height int64
	time   time.Time
	index  uint32
}

// runTx checks and executes txBytes over the committed state. With simulate, nothing is
// written; otherwise the checks' writes (fee, sequences, pubkeys) are committed when the
// checks pass, and the messages' writes when the messages succeed too.
func (n *Node) runTx(ctx context.Context, txBytes []byte, simulate bool, blk blockInfo) (out txOutcome) {
	tx, err := n.enc.TxConfig.TxDecoder()(txBytes)
	if err != nil {
		if _, code, _ := errorsmod.ABCIInfo(err, false); code == 1 {
			err = errorsmod.Wrap(sdkerrors.ErrTxDecode, err.Error())
		}
		out.rejected = err
		return out
	}
	msgs := tx.GetMsgs()
	if len(msgs) == 0 {
		out.rejected = errorsmod.Wrap(sdkerrors.ErrInvalidRequest, "must contain at least one message")
		return out
	}
	for _, m := range msgs {
		if !n.handles(sdk.MsgTypeURL(m)) {
			out.rejected = errorsmod.Wrapf(sdkerrors.ErrUnknownRequest, "no message handler found for %T", m)
			return out
		}
	}
	feeTx := tx.(sdk.FeeTx)
	out.gasWanted = feeTx.GetGas()

	var meter storetypes.GasMeter
	if simulate {
		meter = storetypes.NewInfiniteGasMeter()
	} else {
		meter = storetypes.NewGasMeter(out.gasWanted)
	}
	defer func() { out.gasUsed = meter.GasConsumed() }()

	anteCache := cachekv.NewStore(n.root)
	anteEvents := sdk.NewEventManager()
	if err := n.ante(tx, txBytes, simulate, blk, anteCache, meter, anteEvents); err != nil {
		out.rejected = err
		return out
	}
	out.events = anteEvents.Events()

	var msgCache *cachekv.Store
	if simulate {
		msgCache = cachekv.NewStore(anteCache)
	} else {
		anteCache.Write()
		msgCache = cachekv.NewStore(n.root)
	}
	c := &Context{
		Context:   ctx,
		ChainID:   n.cfg.chainID,
		Height:    blk.height,
		Time:      blk.time,
		TxIndex:   blk.index,
		TxBytes:   txBytes,
		Simulate:  simulate,
		GasMeter:  meter,
		Addresses: n.enc.Address,
		node:      n,
		store:     msgCache,
		txVals:    map[string]any{},
	}
	events, responses, err := n.runMsgs(c, msgs)
	if err != nil {
		out.err = err
		return out
	}
	data, err := proto.Marshal(&sdk.TxMsgData{MsgResponses: responses})
	if err != nil {
		out.err = errorsmod.Wrap(sdkerrors.ErrLogic, err.Error())
		return out
	}
	if !simulate {
		msgCache.Write()
	}
	out.events = append(out.events, events...)
	out.data, out.responses = data, responses
	return out
}

// recoverGas turns a gas panic into the SDK's out-of-gas error and any other panic into
// ErrPanic, as baseapp does.
func recoverGas(meter storetypes.GasMeter, gasWanted uint64, err *error) {
	r := recover()
	if r == nil {
		return
	}
	switch rt := r.(type) {
	case storetypes.ErrorOutOfGas:
		*err = errorsmod.Wrapf(sdkerrors.ErrOutOfGas, "out of gas in location: %v; gasWanted: %d, gasUsed: %d", rt.Descriptor, gasWanted, meter.GasConsumed())
	case storetypes.ErrorGasOverflow:
		*err = errorsmod.Wrapf(sdkerrors.ErrOutOfGas, "gas overflow in location: %v; gasWanted: %d", rt.Descriptor, gasWanted)
	default:
		*err = errorsmod.Wrap(sdkerrors.ErrPanic, fmt.Sprintf("recovered: %v", r))
	}
}

// ante is the SDK's default ante chain for one signer kind: gas limit, basic validation,
// timeout height, memo, size gas, fees, pubkeys, signature gas, sequences and signatures,
// sequence increments. It writes into kv and emits the SDK's ante events.
func (n *Node) ante(tx sdk.Tx, txBytes []byte, simulate bool, blk blockInfo, kv storetypes.KVStore, meter storetypes.GasMeter, em *sdk.EventManager) (err error) {
	feeTx := tx.(sdk.FeeTx)
	sigTx := tx.(authsigning.SigVerifiableTx)
	gas := feeTx.GetGas()
	if n.cfg.maxBlockGas > 0 && gas > uint64(n.cfg.maxBlockGas) {
		return errorsmod.Wrapf(sdkerrors.ErrInvalidGasLimit, "tx gas limit %d exceeds block max gas %d", gas, n.cfg.maxBlockGas)
	}
	defer recoverGas(meter, gas, &err)

	// Basic validation (types/tx.Tx.ValidateBasic without the global bech32 prefix).
	if gas > txtypes.MaxGasWanted {
		return errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "invalid gas supplied; %d > %d", gas, txtypes.MaxGasWanted)
	}
	fee := feeTx.GetFee()
	if fee.IsAnyNil() {
		return errorsmod.Wrap(sdkerrors.ErrInsufficientFee, "invalid fee provided: null")
	}
	if fee.IsAnyNegative() {
		return errorsmod.Wrapf(sdkerrors.ErrInsufficientFee, "invalid fee provided: %s", fee)
	}
	sigs, err := sigTx.GetSignaturesV2()
	if err != nil {
		return err
	}
	if len(sigs) == 0 {
		return sdkerrors.ErrNoSignatures
	}
	signers, err := sigTx.GetSigners()
	if err != nil {
		return err
	}
	if len(sigs) != len(signers) {
		return errorsmod.Wrapf(sdkerrors.ErrUnauthorized, "wrong number of signers; expected %d, got %d", len(signers), len(sigs))
	}
	if utx, ok := tx.(sdk.TxWithUnordered); ok && utx.GetUnordered() {
		return errorsmod.Wrap(sdkerrors.ErrNotSupported, "unordered transactions are not enabled")
	}
	if th := tx.(sdk.TxWithTimeoutHeight).GetTimeoutHeight(); th > 0 && uint64(blk.height) > th {
		return errorsmod.Wrapf(sdkerrors.ErrTxTimeoutHeight, "block height: %d, timeout height: %d", blk.height, th)
	}
	if memo := tx.(sdk.TxWithMemo).GetMemo(); len(memo) > maxMemoCharacters {
		return errorsmod.Wrapf(sdkerrors.ErrMemoTooLarge, "maximum number of characters is %d but received %d characters", maxMemoCharacters, len(memo))
	}

	st := openCore(kv, meter)
	pubKeys, err := sigTx.GetPubKeys()
	if err != nil {
		return err
	}

	// Size gas, plus the signatures a simulated tx leaves out.
	meter.ConsumeGas(txSizeCostPerByte*uint64(len(txBytes)), "txSize")
	if simulate {
		for i := range signers {
			if i < len(sigs) && !incomplete(sigs[i].Data) {
				continue
			}
			meter.ConsumeGas(simSigGas, "txSize")
		}
	}

	// Fees.
	if !simulate && !n.cfg.gasPrice.IsZero() {
		required := sdk.NewCoins(sdk.NewCoin(n.cfg.denom, n.cfg.gasPrice.MulInt64(int64(min(gas, math.MaxInt64))).Ceil().RoundInt()))
		if !fee.IsAnyGTE(required) {
			return errorsmod.Wrapf(sdkerrors.ErrInsufficientFee, "insufficient fees; got: %s required: %s", fee, required)
		}
	}
	payer := feeTx.FeePayer()
	if g := feeTx.FeeGranter(); len(g) > 0 && !bytes.Equal(g, payer) {
		return sdkerrors.ErrInvalidRequest.Wrap("fee grants are not enabled")
	}
	if n.getAccount(st, payer) == nil {
		return sdkerrors.ErrUnknownAddress.Wrapf("fee payer address: %s does not exist", n.enc.MustAddr(payer))
	}
	if !fee.IsZero() {
		if !fee.IsValid() {
			return errorsmod.Wrapf(sdkerrors.ErrInsufficientFee, "invalid fee amount: %s", fee)
		}
		if err := n.sendCoins(st, em, payer, feeCollector, fee); err != nil {
			return errorsmod.Wrap(sdkerrors.ErrInsufficientFunds, err.Error())
		}
	}
	em.EmitEvent(sdk.NewEvent(sdk.EventTypeTx,
		sdk.NewAttribute(sdk.AttributeKeyFee, fee.String()),
		sdk.NewAttribute(sdk.AttributeKeyFeePayer, n.enc.MustAddr(payer))))

	// Public keys.
	signerStrs := make([]string, len(signers))
	for i, signer := range signers {
		signerStrs[i] = n.enc.MustAddr(signer)
		pk := pubKeys[i]
		if pk == nil {
			if !simulate {
				continue
			}
			pk = simPubKey
		}
		if !simulate && !bytes.Equal(pk.Address(), signer) {
			return errorsmod.Wrapf(sdkerrors.ErrInvalidPubKey, "pubKey does not match signer address %s with signer index: %d", signerStrs[i], i)
		}
		acc := n.getAccount(st, signer)
		if acc == nil {
			return errorsmod.Wrapf(sdkerrors.ErrUnknownAddress, "account %s does not exist", signerStrs[i])
		}
		if acc.GetPubKey() != nil {
			continue
		}
		if err := acc.SetPubKey(pk); err != nil {
			return errorsmod.Wrap(sdkerrors.ErrInvalidPubKey, err.Error())
		}
		n.setAccount(st, signer, acc)
	}
	for i, sig := range sigs {
		em.EmitEvent(sdk.NewEvent(sdk.EventTypeTx,
			sdk.NewAttribute(sdk.AttributeKeyAccountSequence, fmt.Sprintf("%s/%d", signerStrs[i], sig.Sequence))))
	}
	for _, sig := range sigs {
		if single, ok := sig.Data.(*signing.SingleSignatureData); ok {
			em.EmitEvent(sdk.NewEvent(sdk.EventTypeTx,
				sdk.NewAttribute(sdk.AttributeKeySignature, base64.StdEncoding.EncodeToString(single.Signature))))
		}
	}
	if len(sigs) > txSigLimit {
		return errorsmod.Wrapf(sdkerrors.ErrTooManySignatures, "signatures: %d, limit: %d", len(sigs), txSigLimit)
	}

	// Signature gas.
	for i, sig := range sigs {
		acc := n.getAccount(st, signers[i])
		if acc == nil {
			return errorsmod.Wrapf(sdkerrors.ErrUnknownAddress, "account %s does not exist", signerStrs[i])
		}
		pk := acc.GetPubKey()
		if simulate && pk == nil {
			pk = simPubKey
		}
		if _, multi := sig.Data.(*signing.MultiSignatureData); multi {
			return errorsmod.Wrap(sdkerrors.ErrNotSupported, "multisig accounts are not supported by this node")
		}
		switch pk.(type) {
		case *secp256k1.PubKey, *ethsecp256k1.PubKey:
			meter.ConsumeGas(sigVerifyCostSecp256k1, "ante verify: secp256k1")
		default:
			return errorsmod.Wrapf(sdkerrors.ErrInvalidPubKey, "unrecognized public key type: %T", pk)
		}
	}

	// Sequences and signatures.
	for i, sig := range sigs {
		acc := n.getAccount(st, signers[i])
		pk := acc.GetPubKey()
		if !simulate && pk == nil {
			return errorsmod.Wrap(sdkerrors.ErrInvalidPubKey, "pubkey on account is not set")
		}
		if sig.Sequence != acc.GetSequence() {
			return errorsmod.Wrapf(sdkerrors.ErrWrongSequence, "account sequence mismatch, expected %d, got %d", acc.GetSequence(), sig.Sequence)
		}
		if simulate {
			continue
		}
		if err := n.verify(tx, pk, signerStrs[i], acc.GetAccountNumber(), sig); err != nil {
			return errorsmod.Wrap(sdkerrors.ErrUnauthorized, fmt.Sprintf(
				"signature verification failed; please verify account number (%d) and chain-id (%s): (%s)", acc.GetAccountNumber(), n.cfg.chainID, err.Error()))
		}
	}

	// Sequence increments.
	for _, signer := range signers {
		acc := n.getAccount(st, signer)
		if err := acc.SetSequence(acc.GetSequence() + 1); err != nil {
			return err
		}
		n.setAccount(st, signer, acc)
	}
	return nil
}

// verify checks one signature in a mode Initia's tx config enables: SIGN_MODE_DIRECT,
// DIRECT_AUX, LEGACY_AMINO_JSON or EIP_191 (the EIP-191-prefixed amino-JSON sign doc, what a
// Ledger's Ethereum app signs); any other mode is refused.
func (n *Node) verify(tx sdk.Tx, pk cryptotypes.PubKey, signer string, accNum uint64, sig signing.SignatureV2) error {
	single, ok := sig.Data.(*signing.SingleSignatureData)
	if !ok {
		return fmt.Errorf("unexpected signature data %T", sig.Data)
	}
	anyPk, err := codectypes.NewAnyWithValue(pk)
	if err != nil {
		return err
	}
	signerData := txsigning.SignerData{
		Address:       signer,
		ChainID:       n.cfg.chainID,
		AccountNumber: accNum,
		Sequence:      sig.Sequence,
		PubKey:        &anypb.Any{TypeUrl: anyPk.TypeUrl, Value: anyPk.Value},
	}
	adaptable, ok := tx.(authsigning.V2AdaptableTx)
	if !ok {
		return fmt.Errorf("expected tx to implement V2AdaptableTx, got %T", tx)
	}
	signBytes, err := n.enc.SignBytes(context.Background(), single.SignMode, signerData, adaptable.GetSigningTxData())
	if err != nil {
		return err
	}
	if !pk.VerifySignature(signBytes, single.Signature) {
		return fmt.Errorf("unable to verify single signer signature (%s)", single.SignMode)
	}
	return nil
}

func incomplete(data signing.SignatureData) bool {
	if data == nil {
		return true
	}
	if single, ok := data.(*signing.SingleSignatureData); ok {
		return len(single.Signature) == 0
	}
	return false
}

// runMsgs executes the messages in order, as baseapp does: each message's events are headed by
// a "message" event and carry its msg_index; a failing message fails them all.
func (n *Node) runMsgs(c *Context, msgs []sdk.Msg) (events sdk.Events, responses []*codectypes.Any, err error) {
	defer recoverGas(c.GasMeter, c.GasMeter.Limit(), &err)
	for i, msg := range msgs {
		signers, _, err := n.enc.Codec.GetMsgV1Signers(msg)
		if err != nil {
			return nil, nil, errorsmod.Wrapf(err, "failed to execute message; message index: %d", i)
		}
		c.MsgIndex, c.Signers, c.events = i, signers, sdk.NewEventManager()
		var resp proto.Message
		if send, ok := msg.(*banktypes.MsgSend); ok {
			resp, err = n.execSend(c, send)
		} else {
			resp, err = n.exec.Execute(c, msg)
		}
		if err != nil {
			return nil, nil, errorsmod.Wrapf(err, "failed to execute message; message index: %d", i)
		}
		typeURL := sdk.MsgTypeURL(msg)
		head := sdk.NewEvent(sdk.EventTypeMessage, sdk.NewAttribute(sdk.AttributeKeyAction, typeURL))
		if len(signers) > 0 {
			head = head.AppendAttributes(sdk.NewAttribute(sdk.AttributeKeySender, n.enc.MustAddr(signers[0])))
		}
		own := c.events.Events()
		if _, found := own.GetAttributes(sdk.AttributeKeyModule); !found {
			if module := sdk.GetModuleNameFromTypeURL(typeURL); module != "" {
				head = head.AppendAttributes(sdk.NewAttribute(sdk.AttributeKeyModule, module))
			}
		}
		msgEvents := sdk.Events{head}.AppendEvents(own)
		for j := range msgEvents {
			msgEvents[j] = msgEvents[j].AppendAttributes(sdk.NewAttribute("msg_index", strconv.Itoa(i)))
		}
		events = append(events, msgEvents...)
		if resp == nil {
			return nil, nil, errorsmod.Wrapf(sdkerrors.ErrLogic, "failed to execute message; message index: %d: no response", i)
		}
		anyResp, err := codectypes.NewAnyWithValue(resp)
		if err != nil {
			return nil, nil, errorsmod.Wrap(sdkerrors.ErrPackAny, err.Error())
		}
		responses = append(responses, anyResp)
	}
	return events, responses, nil
}

// execSend is the bank module's MsgSend.
func (n *Node) execSend(c *Context, msg *banktypes.MsgSend) (proto.Message, error) {
	from, err := n.enc.Address.StringToBytes(msg.FromAddress)
	if err != nil {
		return nil, errorsmod.Wrapf(sdkerrors.ErrInvalidAddress, "invalid from address: %s", err)
	}
	to, err := n.enc.Address.StringToBytes(msg.ToAddress)
	if err != nil {
		return nil, errorsmod.Wrapf(sdkerrors.ErrInvalidAddress, "invalid to address: %s", err)
	}
	if !msg.Amount.IsValid() || !msg.Amount.IsAllPositive() {
		return nil, errorsmod.Wrap(sdkerrors.ErrInvalidCoins, msg.Amount.String())
	}
	st := openCore(c.store, c.GasMeter)
	if err := n.sendCoins(st, c.events, from, to, msg.Amount); err != nil {
		return nil, err
	}
	return &banktypes.MsgSendResponse{}, nil
}

// handles reports whether the node runs messages of typeURL.
func (n *Node) handles(typeURL string) bool {
	return typeURL == sdk.MsgTypeURL(&banktypes.MsgSend{}) || n.msgTypes[typeURL]
}
