package keys

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strconv"
	"strings"

	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Signer is an account the deployer signs with, wherever its key lives: the environment, a
// cosmos-sdk keyring, a keystore file or a Ledger. It signs EVM transactions and the sign
// bytes of Cosmos transactions in the one sign mode it supports; the key never leaves it.
// Its String and LogValue show the address and where the key is, never the key.
type Signer interface {
	// KeyType is the key's kind on Cosmos chains.
	KeyType() vip.KeyType
	// PubKey is the Cosmos public key (of KeyType).
	PubKey() cryptotypes.PubKey
	// Address is the account's 20 address bytes: the Ethereum address for eth_secp256k1
	// keys (and on EVM), RIPEMD-160(SHA-256(key)) for secp256k1.
	Address() common.Address
	// SignEVMTx signs a transaction for chainID; only eth_secp256k1 signers can.
	SignEVMTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)
	// SignPersonal is an EIP-191 personal-message signature (R || S || V, V in {0, 1}) by
	// the Ethereum address; only eth_secp256k1 signers can.
	SignPersonal(ctx context.Context, msg []byte) ([]byte, error)
	// CosmosSignMode is the sign mode SignCosmos signs in: SIGN_MODE_DIRECT for software
	// keys, SIGN_MODE_EIP_191 for a Ledger's Ethereum app.
	CosmosSignMode() signing.SignMode
	// SignCosmos signs the sign bytes of a Cosmos tx in CosmosSignMode.
	SignCosmos(ctx context.Context, signBytes []byte) ([]byte, error)
	// Source names where the key is, for messages: "PRIVATE_KEY", "keyring file: op", ...
	Source() string
	String() string
}

// EIP191Prefix starts what an EIP-191 (personal_sign) signature covers; Initia's
// SIGN_MODE_EIP_191 sign bytes are this prefix, the decimal length and the amino-JSON sign doc.
const EIP191Prefix = "\x19Ethereum Signed Message:\n"

// FormatEIP191 is EIP191Prefix + len(msg) + msg.
func FormatEIP191(msg []byte) []byte {
	out := append([]byte(EIP191Prefix), strconv.Itoa(len(msg))...)
	return append(out, msg...)
}

// StripEIP191 returns the message inside EIP-191 sign bytes, checking the announced length.
func StripEIP191(signBytes []byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(signBytes, []byte(EIP191Prefix))
	if !ok {
		return nil, errors.New("sign bytes lack the EIP-191 prefix")
	}
	for n := 1; n <= len(rest) && n <= 10; n++ {
		if l, err := strconv.Atoi(string(rest[:n])); err == nil && l == len(rest)-n {
			return rest[n:], nil
		}
	}
	return nil, errors.New("EIP-191 sign bytes: the announced length does not match the message")
}

// CheckSender refuses a signer whose address is not want (0x hex or bech32 with any prefix),
// naming both, so a command never signs with another account than the one it expects.
// An empty want accepts any signer.
func CheckSender(s Signer, want string) error {
	want = strings.TrimSpace(want)
	if want == "" {
		return nil
	}
	wantBytes, err := AddressBytes(want)
	if err != nil {
		return fmt.Errorf("expected sender: %w", err)
	}
	if !bytes.Equal(wantBytes, s.Address().Bytes()) {
		return fmt.Errorf("%s signs as %s, but the command expects sender %s: refusing to sign with another account", s.Source(), s.Address().Hex(), want)
	}
	return nil
}

// AddressBytes reads a 20-byte account address in 0x hex or bech32 (any prefix).
func AddressBytes(s string) ([]byte, error) {
	if common.IsHexAddress(s) {
		return common.HexToAddress(s).Bytes(), nil
	}
	if _, bz, err := bech32.DecodeAndConvert(s); err == nil && len(bz) == 20 {
		return bz, nil
	}
	return nil, fmt.Errorf("%q is neither a 0x address nor a bech32 account address", s)
}

// Software is a signer holding its key in memory (from the environment, a keyring or a
// keystore file). It signs Cosmos txs in SIGN_MODE_DIRECT.
type Software struct {
	key    *ecdsa.PrivateKey
	cosmos cryptotypes.PrivKey
	kind   vip.KeyType
	source string
}

// NewSoftware is the signer of an account's key as a Cosmos key of kind (secp256k1 or
// eth_secp256k1; "" is eth_secp256k1); source names where the key came from.
func NewSoftware(a *Account, kind vip.KeyType, source string) (*Software, error) {
	if kind == "" {
		kind = vip.EthSecp256k1
	}
	pk, err := PrivKeyFromBytes(a.Secret(), kind)
	if err != nil {
		return nil, err
	}
	if source == "" {
		source = a.Source()
	}
	return &Software{key: a.PrivateKey(), cosmos: pk, kind: kind, source: source}, nil
}

// Signer is the account's signer for keys of kind.
func (a *Account) Signer(kind vip.KeyType) (*Software, error) { return NewSoftware(a, kind, "") }

// KeyType is the Cosmos key kind.
func (s *Software) KeyType() vip.KeyType { return s.kind }

// PubKey is the Cosmos public key.
func (s *Software) PubKey() cryptotypes.PubKey { return s.cosmos.PubKey() }

// Address is the account address of the key kind.
func (s *Software) Address() common.Address {
	return common.BytesToAddress(s.cosmos.PubKey().Address())
}

// SignEVMTx signs with the latest signer for chainID.
func (s *Software) SignEVMTx(_ context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	if s.kind != vip.EthSecp256k1 {
		return nil, fmt.Errorf("%s is a %s key: EVM transactions need an eth_secp256k1 key", s.source, s.kind)
	}
	return types.SignTx(tx, types.LatestSignerForChainID(chainID), s.key)
}

// SignPersonal signs keccak256 of the EIP-191 message.
func (s *Software) SignPersonal(_ context.Context, msg []byte) ([]byte, error) {
	if s.kind != vip.EthSecp256k1 {
		return nil, fmt.Errorf("%s is a %s key: personal messages need an eth_secp256k1 key", s.source, s.kind)
	}
	return crypto.Sign(crypto.Keccak256(FormatEIP191(msg)), s.key)
}

// CosmosSignMode is SIGN_MODE_DIRECT.
func (s *Software) CosmosSignMode() signing.SignMode { return signing.SignMode_SIGN_MODE_DIRECT }

// SignCosmos signs direct-mode sign bytes with the Cosmos key.
func (s *Software) SignCosmos(_ context.Context, signBytes []byte) ([]byte, error) {
	return s.cosmos.Sign(signBytes)
}

// Source names where the key came from.
func (s *Software) Source() string { return s.source }

// String shows the address and source.
func (s *Software) String() string { return describe(s) }

// GoString keeps %#v from dumping the key.
func (s *Software) GoString() string { return "keys.Software{" + describe(s) + "}" }

// LogValue keeps slog from dumping the key.
func (s *Software) LogValue() slog.Value { return logValue(s) }

func describe(s Signer) string {
	return fmt.Sprintf("%s (%s, from %s)", s.Address().Hex(), s.KeyType(), s.Source())
}

func logValue(s Signer) slog.Value {
	return slog.GroupValue(slog.String("address", s.Address().Hex()), slog.String("key_type", string(s.KeyType())), slog.String("source", s.Source()))
}

// FromPrivKey is the signer of a Cosmos private key (secp256k1 or Initia's eth_secp256k1).
func FromPrivKey(pk cryptotypes.PrivKey, source string) (*Software, error) {
	kind := vip.Secp256k1
	if pk.Type() == string(vip.EthSecp256k1) {
		kind = vip.EthSecp256k1
	} else if pk.Type() != string(vip.Secp256k1) {
		return nil, fmt.Errorf("%s keys cannot sign here (want eth_secp256k1 or secp256k1)", pk.Type())
	}
	k, err := crypto.ToECDSA(pk.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s key: %w", kind, err)
	}
	return NewSoftware(&Account{key: k, addr: crypto.PubkeyToAddress(k.PublicKey), source: source}, kind, source)
}

// FromECDSA is the eth_secp256k1 signer of a go-ethereum key.
func FromECDSA(k *ecdsa.PrivateKey, source string) *Software {
	s, err := NewSoftware(&Account{key: k, addr: crypto.PubkeyToAddress(k.PublicKey), source: source}, vip.EthSecp256k1, source)
	if err != nil {
		panic(err) // a valid ecdsa key is a valid 32-byte secret
	}
	return s
}
