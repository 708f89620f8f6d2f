package ledger

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
)

// APDU fields of the Ethereum app (LedgerHQ app-ethereum, doc/ethapp.adoc).
const (
	CLA             byte = 0xE0
	INSGetAddress   byte = 0x02
	INSSignTx       byte = 0x04
	INSGetConfig    byte = 0x06
	INSSignPersonal byte = 0x08

	P1First byte = 0x00 // first chunk of a request
	P1More  byte = 0x80 // a later chunk

	// MaxChunk is the most data one APDU carries (its length field is one byte).
	MaxChunk = 255
	// MaxPathLen is the deepest derivation path the app takes.
	MaxPathLen = 10
)

// App is the Ethereum app on one device, reached through a Transport.
type App struct {
	mu sync.Mutex // one request (all of its chunks) at a time
	t  Transport
}

// New wraps a transport.
func New(t Transport) *App { return &App{t: t} }

// Close closes the transport.
func (a *App) Close() error { return a.t.Close() }

// EncodePath is the app's path field: a count byte, then each index as 4 big-endian bytes.
func EncodePath(path []uint32) ([]byte, error) {
	if len(path) == 0 || len(path) > MaxPathLen {
		return nil, fmt.Errorf("derivation path of %d elements: the Ethereum app takes 1 to %d", len(path), MaxPathLen)
	}
	out := make([]byte, 1, 1+4*len(path))
	out[0] = byte(len(path))
	for _, i := range path {
		out = binary.BigEndian.AppendUint32(out, i)
	}
	return out, nil
}

// exchange sends one APDU; the caller holds a.mu.
func (a *App) exchange(ctx context.Context, op string, ins, p1 byte, data []byte) ([]byte, error) {
	if len(data) > MaxChunk {
		return nil, fmt.Errorf("ledger %s: %d bytes in one APDU, at most %d", op, len(data), MaxChunk)
	}
	apdu := append([]byte{CLA, ins, p1, 0x00, byte(len(data))}, data...)
	reply, sw, err := a.t.Exchange(ctx, apdu)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("ledger %s: %w", op, err)
		}
		return nil, fmt.Errorf("ledger %s: %w: %w", op, ErrTransport, err)
	}
	if sw != SWOK {
		return nil, &StatusError{Op: op, SW: sw}
	}
	return reply, nil
}

// Version is the Ethereum app's version (GET APP CONFIGURATION).
func (a *App) Version(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	reply, err := a.exchange(ctx, "get app configuration", INSGetConfig, 0, nil)
	if err != nil {
		return "", err
	}
	if len(reply) < 4 {
		return "", fmt.Errorf("ledger get app configuration: reply of %d bytes, want 4", len(reply))
	}
	return fmt.Sprintf("%d.%d.%d", reply[1], reply[2], reply[3]), nil
}

// Address reads the public key and address at path without asking the user (P1 00). The
// address the device reports must be the one of its public key.
func (a *App) Address(ctx context.Context, path []uint32) (*ecdsa.PublicKey, common.Address, error) {
	return a.address(ctx, path, 0x00)
}

// ConfirmAddress shows the address at path on the device and returns it once the user
// confirms it there (P1 01), so the user can check it against the one on the screen.
func (a *App) ConfirmAddress(ctx context.Context, path []uint32) (*ecdsa.PublicKey, common.Address, error) {
	return a.address(ctx, path, 0x01)
}

func (a *App) address(ctx context.Context, path []uint32, p1 byte) (*ecdsa.PublicKey, common.Address, error) {
	p, err := EncodePath(path)
	if err != nil {
		return nil, common.Address{}, err
	}
	a.mu.Lock()
	reply, err := a.exchange(ctx, "get address", INSGetAddress, p1, p)
	a.mu.Unlock()
	if err != nil {
		return nil, common.Address{}, err
	}
	pub, addr, err := parseAddressReply(reply)
	if err != nil {
		return nil, common.Address{}, fmt.Errorf("ledger get address: %w", err)
	}
	return pub, addr, nil
}

func parseAddressReply(reply []byte) (*ecdsa.PublicKey, common.Address, error) {
	if len(reply) < 1 || len(reply) < 1+int(reply[0]) {
		return nil, common.Address{}, errors.New("reply lacks the public key")
	}
	pub, err := crypto.UnmarshalPubkey(reply[1 : 1+int(reply[0])])
	if err != nil {
		return nil, common.Address{}, fmt.Errorf("public key: %w", err)
	}
	reply = reply[1+int(reply[0]):]
	if len(reply) < 1 || len(reply) < 1+int(reply[0]) || reply[0] != 40 {
		return nil, common.Address{}, errors.New("reply lacks the 40-character address")
	}
	var addr common.Address
	if _, err := hex.Decode(addr[:], reply[1:41]); err != nil {
		return nil, common.Address{}, fmt.Errorf("address: %w", err)
	}
	if want := crypto.PubkeyToAddress(*pub); want != addr {
		return nil, common.Address{}, fmt.Errorf("the device reports address %s for public key of %s", addr.Hex(), want.Hex())
	}
	return pub, addr, nil
}

// TxPayload is what SIGN TRANSACTION takes for a typed transaction: the type byte and the RLP
// list of the fields the signature covers (the preimage of the London signer's hash).
func TxPayload(tx *types.Transaction, chainID *big.Int) ([]byte, error) {
	var fields []any
	switch tx.Type() {
	case types.DynamicFeeTxType:
		fields = []any{chainID, tx.Nonce(), tx.GasTipCap(), tx.GasFeeCap(), tx.Gas(), tx.To(), tx.Value(), tx.Data(), tx.AccessList()}
	case types.AccessListTxType:
		fields = []any{chainID, tx.Nonce(), tx.GasPrice(), tx.Gas(), tx.To(), tx.Value(), tx.Data(), tx.AccessList()}
	default:
		return nil, fmt.Errorf("transaction type %d: the Ledger signer sends EIP-1559 (type 2) or EIP-2930 (type 1) transactions", tx.Type())
	}
	body, err := rlp.EncodeToBytes(fields)
	if err != nil {
		return nil, fmt.Errorf("encode transaction: %w", err)
	}
	return append([]byte{tx.Type()}, body...), nil
}

// SignTx has the user confirm and sign a typed transaction on chainID with the key at path;
// from is the address the device must sign with. The returned transaction carries the
// signature and its sender is from.
func (a *App) SignTx(ctx context.Context, path []uint32, tx *types.Transaction, chainID *big.Int, from common.Address) (*types.Transaction, error) {
	p, err := EncodePath(path)
	if err != nil {
		return nil, err
	}
	payload, err := TxPayload(tx, chainID)
	if err != nil {
		return nil, err
	}
	reply, err := a.chunked(ctx, "sign transaction", INSSignTx, append(p, payload...))
	if err != nil {
		return nil, err
	}
	signer := types.LatestSignerForChainID(chainID)
	hash := signer.Hash(tx)
	sig, err := recoverable(reply, hash.Bytes(), from)
	if err != nil {
		return nil, fmt.Errorf("ledger sign transaction: %w", err)
	}
	signed, err := tx.WithSignature(signer, sig)
	if err != nil {
		return nil, fmt.Errorf("ledger sign transaction: %w", err)
	}
	return signed, nil
}

// SignPersonal has the user confirm and sign msg as an Ethereum personal message: the device
// signs Keccak-256("\x19Ethereum Signed Message:\n" + len(msg) + msg). The signature is
// R || S || V with V in {0, 1}, made by from.
func (a *App) SignPersonal(ctx context.Context, path []uint32, msg []byte, from common.Address) ([]byte, error) {
	p, err := EncodePath(path)
	if err != nil {
		return nil, err
	}
	head := binary.BigEndian.AppendUint32(p, uint32(len(msg)))
	reply, err := a.chunked(ctx, "sign personal message", INSSignPersonal, append(head, msg...))
	if err != nil {
		return nil, err
	}
	sig, err := recoverable(reply, accounts.TextHash(msg), from)
	if err != nil {
		return nil, fmt.Errorf("ledger sign personal message: %w", err)
	}
	return sig, nil
}

// chunked sends payload in chunks of at most MaxChunk bytes (P1 00 first, 80 after) and
// returns the last chunk's reply, holding the device for the whole request.
func (a *App) chunked(ctx context.Context, op string, ins byte, payload []byte) ([]byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p1 := P1First
	var reply []byte
	for len(payload) > 0 {
		n := min(MaxChunk, len(payload))
		var err error
		if reply, err = a.exchange(ctx, op, ins, p1, payload[:n]); err != nil {
			return nil, err
		}
		payload, p1 = payload[n:], P1More
		if len(payload) > 0 && len(reply) != 0 {
			return nil, fmt.Errorf("ledger %s: the device answered before the last chunk", op)
		}
	}
	return reply, nil
}

// recoverable turns the app's V || R || S reply into R || S || V (V in {0, 1}) and checks
// that it is from's signature of hash. The app encodes V differently per request kind (27 +
// parity for messages, the parity or an EIP-155 value for transactions), so the parity is
// found by recovery rather than trusted.
func recoverable(reply, hash []byte, from common.Address) ([]byte, error) {
	if len(reply) != 65 {
		return nil, fmt.Errorf("reply of %d bytes, want a 65-byte signature", len(reply))
	}
	sig := make([]byte, 65)
	copy(sig, reply[1:])
	for _, v := range []byte{0, 1} {
		sig[64] = v
		pub, err := crypto.SigToPub(hash, sig)
		if err == nil && crypto.PubkeyToAddress(*pub) == from {
			if !crypto.ValidateSignatureValues(v, new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64]), true) {
				return nil, errors.New("the device's signature is not in lower-S form")
			}
			return sig, nil
		}
	}
	return nil, fmt.Errorf("the signature is not from %s (is the right device and account selected?)", from.Hex())
}
