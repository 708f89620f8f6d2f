package router

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vipharness/vipharness/bindings/pbwalk"
)

// The signed OP hook is what the service takes in signed_op_hook.hook: a Cosmos transaction
// (protobuf Tx, base64) holding the hook's messages, signed with eth_secp256k1 by the hook
// chain's account of the user, with that chain's account number and sequence. Initia's
// wallet kit signs it in SIGN_MODE_EIP_191 (an EIP-191 personal signature over the amino
// JSON sign doc); SIGN_MODE_DIRECT (keccak256 of the SignDoc bytes) is accepted too.
const (
	// MsgInitiateTokenDepositURL is the type URL of the OPinit deposit a hook runs.
	MsgInitiateTokenDepositURL = "/opinit.ophost.v1.MsgInitiateTokenDeposit"
	// AminoInitiateTokenDeposit is its amino name, in the EIP-191 sign doc.
	AminoInitiateTokenDeposit = "ophost/MsgInitiateTokenDeposit"
	// EthSecp256k1PubKeyURL is Initia's eth_secp256k1 public key type.
	EthSecp256k1PubKeyURL = "/initia.crypto.v1beta1.ethsecp256k1.PubKey"
)

// Coin is an amount of a denom, as amino JSON writes it.
type Coin struct {
	Amount string `json:"amount"`
	Denom  string `json:"denom"`
}

// TokenDeposit is an OPinit MsgInitiateTokenDeposit in its amino JSON form (the msg string
// of a hook message): bridge_id is a decimal string, data base64 and left out when empty.
type TokenDeposit struct {
	Sender   string `json:"sender"`
	BridgeID string `json:"bridge_id"`
	To       string `json:"to"`
	Amount   Coin   `json:"amount"`
	Data     string `json:"data,omitempty"`
}

// ParseTokenDeposit reads a hook message.
func ParseTokenDeposit(m CosmosMsg) (TokenDeposit, error) {
	var d TokenDeposit
	if m.MsgTypeURL != MsgInitiateTokenDepositURL {
		return d, fmt.Errorf("op hook: message type %q is not %s", m.MsgTypeURL, MsgInitiateTokenDepositURL)
	}
	if err := json.Unmarshal([]byte(m.Msg), &d); err != nil {
		return d, fmt.Errorf("op hook: deposit message: %w", err)
	}
	if _, err := strconv.ParseUint(d.BridgeID, 10, 64); err != nil {
		return d, fmt.Errorf("op hook: deposit bridge_id %q: %w", d.BridgeID, err)
	}
	if _, err := base64.StdEncoding.DecodeString(d.Data); err != nil {
		return d, fmt.Errorf("op hook: deposit data is not base64: %w", err)
	}
	return d, nil
}

// marshal is the message's protobuf encoding (sender 1, bridge_id 2, to 3, amount 4, data 5).
func (d TokenDeposit) marshal() []byte {
	id, _ := strconv.ParseUint(d.BridgeID, 10, 64)
	data, _ := base64.StdEncoding.DecodeString(d.Data)
	var coin []byte
	coin = appendString(coin, 1, d.Amount.Denom)
	coin = appendString(coin, 2, d.Amount.Amount)
	var b []byte
	b = appendString(b, 1, d.Sender)
	if id != 0 {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, id)
	}
	b = appendString(b, 3, d.To)
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendBytes(b, coin)
	if len(data) > 0 {
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		b = protowire.AppendBytes(b, data)
	}
	return b
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// unmarshalTokenDeposit decodes the protobuf message.
func unmarshalTokenDeposit(b []byte) (TokenDeposit, error) {
	var d TokenDeposit
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch {
		case num == 1 && typ == protowire.BytesType:
			d.Sender = string(v)
		case num == 2 && typ == protowire.VarintType:
			d.BridgeID = strconv.FormatUint(n, 10)
		case num == 3 && typ == protowire.BytesType:
			d.To = string(v)
		case num == 4 && typ == protowire.BytesType:
			return eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				switch {
				case num == 1 && typ == protowire.BytesType:
					d.Amount.Denom = string(v)
				case num == 2 && typ == protowire.BytesType:
					d.Amount.Amount = string(v)
				default:
					return fmt.Errorf("unknown coin field %d", num)
				}
				return nil
			})
		case num == 5 && typ == protowire.BytesType:
			d.Data = base64.StdEncoding.EncodeToString(v)
		default:
			return fmt.Errorf("unknown field %d", num)
		}
		return nil
	})
	if d.BridgeID == "" {
		d.BridgeID = "0"
	}
	return d, err
}

// eachField walks a protobuf message's fields (pbwalk.EachField): bytes fields give v,
// varints give n; a field of any other wire type is refused, as no hook tx field has one.
func eachField(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error) error {
	return pbwalk.EachField(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		if typ != protowire.BytesType && typ != protowire.VarintType {
			return fmt.Errorf("field %d: wire type %d not expected", num, typ)
		}
		return f(num, typ, v, n)
	})
}

// HookTx is a decoded signed OP hook.
type HookTx struct {
	Msgs      []TokenDeposit
	Memo      string
	PubKey    []byte // compressed, 33 bytes
	SignMode  signing.SignMode
	Sequence  uint64
	Fee       []Coin
	GasLimit  uint64
	Signature []byte // [R || S], 64 bytes

	bodyBytes, authInfoBytes []byte
}

// DecodeHookTx reads signed_op_hook.hook: base64 of a protobuf Tx (or TxRaw, the same bytes)
// with one signer, an eth_secp256k1 key and OPinit deposit messages only.
func DecodeHookTx(hook string) (*HookTx, error) {
	raw, err := base64.StdEncoding.DecodeString(hook)
	if err != nil {
		return nil, fmt.Errorf("not base64: %w", err)
	}
	var tr txtypes.TxRaw
	if err := tr.Unmarshal(raw); err != nil {
		return nil, fmt.Errorf("not a protobuf Cosmos tx: %w", err)
	}
	var body txtypes.TxBody
	if err := body.Unmarshal(tr.BodyBytes); err != nil {
		return nil, fmt.Errorf("tx body: %w", err)
	}
	var ai txtypes.AuthInfo
	if err := ai.Unmarshal(tr.AuthInfoBytes); err != nil {
		return nil, fmt.Errorf("tx auth info: %w", err)
	}
	t := &HookTx{Memo: body.Memo, bodyBytes: tr.BodyBytes, authInfoBytes: tr.AuthInfoBytes}
	if len(body.Messages) == 0 {
		return nil, errors.New("the tx has no messages")
	}
	for i, m := range body.Messages {
		if m.TypeUrl != MsgInitiateTokenDepositURL {
			return nil, fmt.Errorf("message %d is %s; a hook holds %s", i, m.TypeUrl, MsgInitiateTokenDepositURL)
		}
		d, err := unmarshalTokenDeposit(m.Value)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		t.Msgs = append(t.Msgs, d)
	}
	if len(ai.SignerInfos) != 1 || len(tr.Signatures) != 1 {
		return nil, fmt.Errorf("the tx has %d signers and %d signatures; a hook has one of each", len(ai.SignerInfos), len(tr.Signatures))
	}
	si := ai.SignerInfos[0]
	if si.PublicKey == nil || si.PublicKey.TypeUrl != EthSecp256k1PubKeyURL {
		got := "none"
		if si.PublicKey != nil {
			got = si.PublicKey.TypeUrl
		}
		return nil, fmt.Errorf("the signer's public key is %s; a hook is signed with %s", got, EthSecp256k1PubKeyURL)
	}
	if err := eachField(si.PublicKey.Value, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num != 1 || typ != protowire.BytesType {
			return fmt.Errorf("unknown public key field %d", num)
		}
		t.PubKey = v
		return nil
	}); err != nil || len(t.PubKey) != 33 {
		return nil, fmt.Errorf("the eth_secp256k1 public key must be 33 compressed bytes (%v)", err)
	}
	single := si.ModeInfo.GetSingle()
	if single == nil {
		return nil, errors.New("the signer's mode info is not single")
	}
	t.SignMode, t.Sequence = single.Mode, si.Sequence
	if ai.Fee != nil {
		t.GasLimit = ai.Fee.GasLimit
		for _, c := range ai.Fee.Amount {
			t.Fee = append(t.Fee, Coin{Amount: c.Amount.String(), Denom: c.Denom})
		}
	}
	t.Signature = tr.Signatures[0]
	return t, nil
}

// Signer is the address of the hook's key: the 20 bytes of keccak256 of its public key,
// as eth_secp256k1 accounts are addressed.
func (t *HookTx) Signer() ([]byte, error) {
	pub, err := crypto.DecompressPubkey(t.PubKey)
	if err != nil {
		return nil, fmt.Errorf("public key: %w", err)
	}
	return crypto.PubkeyToAddress(*pub).Bytes(), nil
}

// signBytes is what the signature covers in the tx's sign mode.
func (t *HookTx) signBytes(chainID string, accountNumber uint64) ([]byte, error) {
	switch t.SignMode {
	case signing.SignMode_SIGN_MODE_DIRECT:
		doc := txtypes.SignDoc{BodyBytes: t.bodyBytes, AuthInfoBytes: t.authInfoBytes, ChainId: chainID, AccountNumber: accountNumber}
		return doc.Marshal()
	case signing.SignMode_SIGN_MODE_EIP_191:
		return AminoSignDoc(chainID, accountNumber, t.Sequence, t.Fee, t.GasLimit, t.Memo, t.Msgs), nil
	default:
		return nil, fmt.Errorf("sign mode %s is not SIGN_MODE_DIRECT or SIGN_MODE_EIP_191", t.SignMode)
	}
}

// Verify checks the signature: ECDSA over keccak256 of the sign bytes (EIP-191 prefixed in
// SIGN_MODE_EIP_191) by the tx's public key, [R || S] with a low S, for the hook chain's
// chain id and the signer's account number there.
func (t *HookTx) Verify(chainID string, accountNumber uint64) error {
	msg, err := t.signBytes(chainID, accountNumber)
	if err != nil {
		return err
	}
	if len(t.Signature) != 64 {
		return fmt.Errorf("the signature is %d bytes; eth_secp256k1 signatures are 64 ([R || S])", len(t.Signature))
	}
	if new(big.Int).SetBytes(t.Signature[32:]).Cmp(secp256k1HalfN) > 0 {
		return errors.New("the signature's S is not in the lower half of the curve order")
	}
	hash := crypto.Keccak256(msg)
	if t.SignMode == signing.SignMode_SIGN_MODE_EIP_191 {
		hash = accounts.TextHash(msg)
	}
	if !crypto.VerifySignature(t.PubKey, hash, t.Signature) {
		return fmt.Errorf("the signature does not verify for chain %s, account number %d, sequence %d", chainID, accountNumber, t.Sequence)
	}
	return nil
}

var secp256k1HalfN = new(big.Int).Rsh(crypto.S256().Params().N, 1)

// AminoSignDoc is the amino JSON sign doc of SIGN_MODE_EIP_191 (and LEGACY_AMINO_JSON): keys
// sorted, numbers as strings, <, > and & escaped, as cosmjs's serializeSignDoc writes it.
func AminoSignDoc(chainID string, accountNumber, sequence uint64, fee []Coin, gas uint64, memo string, msgs []TokenDeposit) []byte {
	feeAmount := fee
	if feeAmount == nil {
		feeAmount = []Coin{}
	}
	am := make([]any, len(msgs))
	for i, m := range msgs {
		// through a map, so the value's keys come out sorted too
		var v map[string]any
		b, _ := json.Marshal(m)
		_ = json.Unmarshal(b, &v)
		am[i] = map[string]any{"type": AminoInitiateTokenDeposit, "value": v}
	}
	b, _ := json.Marshal(map[string]any{
		"account_number": strconv.FormatUint(accountNumber, 10),
		"chain_id":       chainID,
		"fee":            map[string]any{"amount": feeAmount, "gas": strconv.FormatUint(gas, 10)},
		"memo":           memo,
		"msgs":           am,
		"sequence":       strconv.FormatUint(sequence, 10),
	}) // strings and string-only structs: cannot fail
	return b
}

// SignHookTx builds the signed hook tx of msgs for chainID as interwovenkit does: no fee,
// gas 1, empty memo, SIGN_MODE_EIP_191, signed with sign (an EIP-191 personal signature,
// R || S || V); the public key is recovered from the signature. It returns the base64 Tx.
func SignHookTx(ctx context.Context, chainID string, accountNumber, sequence uint64, msgs []TokenDeposit, sign func(ctx context.Context, msg []byte) ([]byte, error)) (string, error) {
	doc := AminoSignDoc(chainID, accountNumber, sequence, nil, 1, "", msgs)
	sig, err := sign(ctx, doc)
	if err != nil {
		return "", err
	}
	if len(sig) != 65 {
		return "", fmt.Errorf("signature is %d bytes, want 65 (R || S || V)", len(sig))
	}
	rsv := append([]byte{}, sig...)
	if rsv[64] >= 27 {
		rsv[64] -= 27
	}
	pub, err := crypto.SigToPub(accounts.TextHash(doc), rsv)
	if err != nil {
		return "", fmt.Errorf("recover the signer's key: %w", err)
	}
	var pk []byte
	pk = protowire.AppendTag(pk, 1, protowire.BytesType)
	pk = protowire.AppendBytes(pk, crypto.CompressPubkey(pub))
	body := txtypes.TxBody{}
	for _, m := range msgs {
		body.Messages = append(body.Messages, &codectypes.Any{TypeUrl: MsgInitiateTokenDepositURL, Value: m.marshal()})
	}
	ai := txtypes.AuthInfo{
		SignerInfos: []*txtypes.SignerInfo{{
			PublicKey: &codectypes.Any{TypeUrl: EthSecp256k1PubKeyURL, Value: pk},
			ModeInfo:  &txtypes.ModeInfo{Sum: &txtypes.ModeInfo_Single_{Single: &txtypes.ModeInfo_Single{Mode: signing.SignMode_SIGN_MODE_EIP_191}}},
			Sequence:  sequence,
		}},
		Fee: &txtypes.Fee{Amount: sdk.Coins{}, GasLimit: 1},
	}
	bb, err := body.Marshal()
	if err != nil {
		return "", err
	}
	ab, err := ai.Marshal()
	if err != nil {
		return "", err
	}
	raw, err := (&txtypes.TxRaw{BodyBytes: bb, AuthInfoBytes: ab, Signatures: [][]byte{sig[:64]}}).Marshal()
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(raw), nil
}
