// Package ethsecp256k1 is Initia's Ethereum-style secp256k1 account key as it travels in Cosmos
// transactions: the public key's type URL is /initia.crypto.v1beta1.ethsecp256k1.PubKey (a
// 33-byte compressed key), the account address is the last 20 bytes of the Keccak-256 hash of
// the uncompressed key, and a SIGN_MODE_DIRECT signature is a lower-S ECDSA signature (R || S,
// optionally followed by V) over the Keccak-256 hash of the sign bytes.
//
// The key and message layout are Initia's; this implementation is written from those facts.
package ethsecp256k1

import (
	"bytes"
	"crypto/subtle"
	"fmt"

	cmtcrypto "github.com/cometbft/cometbft/crypto"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"
)

// Sizes and the key type name.
const (
	PubKeySize  = 33
	PrivKeySize = 32
	KeyType     = "eth_secp256k1"
)

var (
	_ cryptotypes.PubKey  = (*PubKey)(nil)
	_ cryptotypes.PrivKey = (*PrivKey)(nil)
)

// RegisterInterfaces registers PubKey and PrivKey under the Cosmos key interfaces.
func RegisterInterfaces(reg codectypes.InterfaceRegistry) {
	reg.RegisterImplementations((*cryptotypes.PubKey)(nil), &PubKey{})
	reg.RegisterImplementations((*cryptotypes.PrivKey)(nil), &PrivKey{})
}

// NewPrivKey wraps 32 secret bytes.
func NewPrivKey(secret []byte) (*PrivKey, error) {
	if len(secret) != PrivKeySize {
		return nil, fmt.Errorf("eth_secp256k1 private key must be %d bytes, got %d", PrivKeySize, len(secret))
	}
	return &PrivKey{Key: bytes.Clone(secret)}, nil
}

func keccak256(data ...[]byte) []byte {
	h := sha3.NewLegacyKeccak256()
	for _, d := range data {
		h.Write(d)
	}
	return h.Sum(nil)
}

// Address is the Ethereum address of the key: Keccak-256 of the uncompressed point, last 20 bytes.
func (k *PubKey) Address() cryptotypes.Address {
	pub, err := secp256k1.ParsePubKey(k.Key)
	if err != nil {
		return nil
	}
	return cmtcrypto.Address(keccak256(pub.SerializeUncompressed()[1:])[12:])
}

// Bytes is the compressed key.
func (k *PubKey) Bytes() []byte { return bytes.Clone(k.Key) }

// Type is "eth_secp256k1".
func (k *PubKey) Type() string { return KeyType }

// String shows the key in hex.
func (k *PubKey) String() string { return fmt.Sprintf("EthPubKeySecp256k1{%X}", k.Key) }

// Equals compares type and bytes.
func (k *PubKey) Equals(other cryptotypes.PubKey) bool {
	return other != nil && k.Type() == other.Type() && bytes.Equal(k.Bytes(), other.Bytes())
}

// VerifySignature checks a 64-byte (R || S) or 65-byte (R || S || V) lower-S signature over
// Keccak-256(msg).
func (k *PubKey) VerifySignature(msg, sig []byte) bool {
	if len(sig) == 65 {
		sig = sig[:64]
	}
	if len(sig) != 64 {
		return false
	}
	pub, err := secp256k1.ParsePubKey(k.Key)
	if err != nil {
		return false
	}
	var r, s secp256k1.ModNScalar
	if r.SetByteSlice(sig[:32]) || s.SetByteSlice(sig[32:]) || r.IsZero() || s.IsZero() || s.IsOverHalfOrder() {
		return false
	}
	return ecdsa.NewSignature(&r, &s).Verify(keccak256(msg), pub)
}

// Bytes is the secret.
func (k *PrivKey) Bytes() []byte { return bytes.Clone(k.Key) }

// Type is "eth_secp256k1".
func (k *PrivKey) Type() string { return KeyType }

// PubKey is the compressed public key.
func (k *PrivKey) PubKey() cryptotypes.PubKey {
	return &PubKey{Key: secp256k1.PrivKeyFromBytes(k.Key).PubKey().SerializeCompressed()}
}

// Equals compares type and secret in constant time.
func (k *PrivKey) Equals(other cryptotypes.LedgerPrivKey) bool {
	return other != nil && k.Type() == other.Type() && subtle.ConstantTimeCompare(k.Key, other.Bytes()) == 1
}

// Sign returns a 65-byte R || S || V signature over Keccak-256(msg), the form the PubKey
// verifies in SIGN_MODE_DIRECT. (Initia's own key prefixes msg with the EIP-191 header first,
// for its EIP-191 sign mode; direct-mode verification hashes the sign bytes as they are.)
func (k *PrivKey) Sign(msg []byte) ([]byte, error) {
	compact := ecdsa.SignCompact(secp256k1.PrivKeyFromBytes(k.Key), keccak256(msg), false)
	// compact is V || R || S with V = 27 + recovery id.
	out := make([]byte, 65)
	copy(out, compact[1:])
	out[64] = compact[0] - 27
	return out, nil
}
