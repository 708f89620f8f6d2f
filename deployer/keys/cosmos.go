package keys

import (
	"fmt"
	"strings"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"

	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
)

// KeyType is the kind of a Cosmos account key.
type KeyType string

const (
	// Secp256k1 is the Cosmos key (/cosmos.crypto.secp256k1.PubKey), derived with coin type 118;
	// its address is RIPEMD-160(SHA-256(compressed key)).
	Secp256k1 KeyType = "secp256k1"
	// EthSecp256k1 is Initia's Ethereum-style key (/initia.crypto.v1beta1.ethsecp256k1.PubKey),
	// derived with coin type 60; its address is the Ethereum address of the key.
	EthSecp256k1 KeyType = "eth_secp256k1"
)

// ParseKeyType accepts "secp256k1" or "eth_secp256k1" (any case).
func ParseKeyType(s string) (KeyType, error) {
	switch k := KeyType(strings.ToLower(strings.TrimSpace(s))); k {
	case Secp256k1, EthSecp256k1:
		return k, nil
	}
	return "", fmt.Errorf("key type %q: want secp256k1 (coin type 118) or eth_secp256k1 (coin type 60)", s)
}

// CoinType is the BIP44 coin type the key kind is derived with.
func (k KeyType) CoinType() uint32 {
	if k == EthSecp256k1 {
		return 60
	}
	return 118
}

// Path is the BIP44 path of account index: m/44'/<coin>'/0'/0/<index>.
func (k KeyType) Path(index uint32) Path {
	if k == EthSecp256k1 {
		return EVMPath(index)
	}
	return CosmosPath(index)
}

// PrivKeyFromBytes wraps a 32-byte secret as a Cosmos key of the given kind ("" is secp256k1).
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
