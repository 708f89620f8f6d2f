package devnode

import (
	"encoding/hex"
	"fmt"

	"github.com/cosmos/cosmos-sdk/crypto/hd"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/cosmos/go-bip39"

	"github.com/vipharness/vipharness/deployer/keys"
)

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
func DeriveAccount(mnemonic string, kind keys.KeyType, prefix string) (Account, error) {
	secret, err := hd.Secp256k1.Derive()(mnemonic, "", kind.Path(0).String())
	if err != nil {
		return Account{}, fmt.Errorf("derive key: %w", err)
	}
	key, err := keys.PrivKeyFromBytes(secret, kind)
	if err != nil {
		return Account{}, err
	}
	addr, err := bech32.ConvertAndEncode(prefix, key.PubKey().Address())
	if err != nil {
		return Account{}, fmt.Errorf("encode address: %w", err)
	}
	return Account{Address: addr, Mnemonic: mnemonic, PrivateKey: hex.EncodeToString(secret), Key: key}, nil
}
