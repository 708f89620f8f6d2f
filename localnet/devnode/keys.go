package devnode

import (
	"encoding/hex"
	"fmt"

	"github.com/cosmos/cosmos-sdk/crypto/hd"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/cosmos/go-bip39"

	"github.com/vipharness/vipharness/localnet/devnode/ethsecp256k1"
)

// KeyType is the kind of account key.
type KeyType string

const (
	// Secp256k1 is the Cosmos key (/cosmos.crypto.secp256k1.PubKey), derived with coin type 118;
	// its address is RIPEMD-160(SHA-256(compressed key)).
	Secp256k1 KeyType = "secp256k1"
	// EthSecp256k1 is Initia's Ethereum-style key (/initia.crypto.v1beta1.ethsecp256k1.PubKey),
	// derived with coin type 60; its address is the Ethereum address of the key.
	EthSecp256k1 KeyType = "eth_secp256k1"
)

// CoinType is the BIP44 coin type the key kind is derived with.
func (k KeyType) CoinType() uint32 {
	if k == EthSecp256k1 {
		return 60
	}
	return 118
}

// HDPath is the BIP44 path of the first account: m/44'/<coin>'/0'/0/0.
func (k KeyType) HDPath() string { return hd.CreateHDPath(k.CoinType(), 0, 0).String() }

// Account is a development account: its bech32 address, the mnemonic it was derived from and
// its private key. These are throwaway secrets of a local chain.
type Account struct {
	Address    string
	Mnemonic   string
	PrivateKey string // hex, no 0x
	Key        cryptotypes.PrivKey
}

// NewMnemonic returns a fresh 24-word BIP39 mnemonic.
func NewMnemonic() (string, error) {
	entropy, err := bip39.NewEntropy(256)
	if err != nil {
		return "", fmt.Errorf("mnemonic entropy: %w", err)
	}
	return bip39.NewMnemonic(entropy)
}

// DeriveAccount derives the first account of a mnemonic for a key kind and bech32 prefix.
func DeriveAccount(mnemonic string, kind KeyType, prefix string) (Account, error) {
	secret, err := hd.Secp256k1.Derive()(mnemonic, "", kind.HDPath())
	if err != nil {
		return Account{}, fmt.Errorf("derive key: %w", err)
	}
	key, err := PrivKeyFromBytes(secret, kind)
	if err != nil {
		return Account{}, err
	}
	addr, err := bech32.ConvertAndEncode(prefix, key.PubKey().Address())
	if err != nil {
		return Account{}, fmt.Errorf("encode address: %w", err)
	}
	return Account{Address: addr, Mnemonic: mnemonic, PrivateKey: hex.EncodeToString(secret), Key: key}, nil
}

// PrivKeyFromBytes wraps a 32-byte secret as a key of the given kind.
func PrivKeyFromBytes(secret []byte, kind KeyType) (cryptotypes.PrivKey, error) {
	if len(secret) != 32 {
		return nil, fmt.Errorf("private key must be 32 bytes, got %d", len(secret))
	}
	switch kind {
	case Secp256k1, "":
		return &secp256k1.PrivKey{Key: secret}, nil
	case EthSecp256k1:
		return ethsecp256k1.NewPrivKey(secret)
	}
	return nil, fmt.Errorf("unknown key type %q", kind)
}
