// Package keys holds the operator and deployer accounts: created fresh or recovered from a
// BIP39 mnemonic or a raw private key, read from the environment only. An Account never
// prints, logs or marshals its secret.
package keys

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/cosmos/go-bip39"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Role is what an account does for the scoring contract.
type Role int

const (
	// Deployer creates the contract and is on its allow list.
	Deployer Role = iota
	// Operator writes scores and finalizes stages; it defaults to the deployer.
	Operator
)

func (r Role) String() string {
	if r == Operator {
		return "operator"
	}
	return "deployer"
}

// envPrefix is where a role's variables live: PRIVATE_KEY / MNEMONIC / MNEMONIC_INDEX for
// the deployer, the same with OPERATOR_ for the operator.
func (r Role) envPrefix() string {
	if r == Operator {
		return "OPERATOR_"
	}
	return ""
}

// ErrNoKey means the environment holds no key for the role.
var ErrNoKey = errors.New("no key in the environment")

// Account is a secp256k1 key and its Ethereum-style address.
type Account struct {
	key    *ecdsa.PrivateKey
	addr   common.Address
	source string // which variable it came from, for messages; never the value
}

// Secret is the 32-byte private key, for signers outside go-ethereum (Cosmos keys).
func (a *Account) Secret() []byte { return crypto.FromECDSA(a.key) }

// PrivateKey returns the key for signing.
func (a *Account) PrivateKey() *ecdsa.PrivateKey { return a.key }

// Address is the account's 20-byte address.
func (a *Account) Address() common.Address { return a.addr }

// Source names where the key came from (an environment variable name or "new").
func (a *Account) Source() string { return a.source }

// String shows the address and source only.
func (a *Account) String() string { return fmt.Sprintf("%s (from %s)", a.addr.Hex(), a.source) }

// GoString keeps %#v from dumping the key.
func (a *Account) GoString() string { return "keys.Account{" + a.String() + "}" }

// LogValue keeps slog from dumping the key.
func (a *Account) LogValue() slog.Value {
	return slog.GroupValue(slog.String("address", a.addr.Hex()), slog.String("source", a.source))
}

// MarshalText keeps encoders from dumping the key.
func (a *Account) MarshalText() ([]byte, error) { return []byte(a.addr.Hex()), nil }

// EnvOption changes how FromEnv derives a key from a mnemonic.
type EnvOption func(*envConfig)

type envConfig struct{ path func(index uint32) Path }

// WithPath derives mnemonic keys on path(MNEMONIC_INDEX) instead of EVMPath, such as
// CosmosPath for a chain with classic Cosmos (coin type 118) accounts.
func WithPath(path func(index uint32) Path) EnvOption {
	return func(c *envConfig) { c.path = path }
}

// FromEnv reads the role's key: <P>PRIVATE_KEY (hex, optional 0x) or <P>MNEMONIC with
// <P>MNEMONIC_INDEX (default 0) on m/44'/60'/0'/0/index (see WithPath), where <P> is "" for
// the deployer and "OPERATOR_" for the operator. An operator without its own key is the
// deployer. Both <P>PRIVATE_KEY and <P>MNEMONIC may be set when they are the same account
// (Foundry reads the one, vipctl's env file carries the other); when they differ it refuses,
// naming both addresses. It returns ErrNoKey when nothing is set; errors never contain the
// secret.
func FromEnv(role Role, opts ...EnvOption) (*Account, error) {
	cfg := envConfig{path: EVMPath}
	for _, o := range opts {
		o(&cfg)
	}
	acct, err := fromEnvPrefix(role.envPrefix(), cfg.path)
	if errors.Is(err, ErrNoKey) && role == Operator {
		acct, err = fromEnvPrefix("", cfg.path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s key: %w", role, err)
	}
	return acct, nil
}

func fromEnvPrefix(p string, path func(uint32) Path) (*Account, error) {
	hexKey, hasKey := os.LookupEnv(p + "PRIVATE_KEY")
	phrase, hasPhrase := os.LookupEnv(p + "MNEMONIC")
	hasKey, hasPhrase = hasKey && strings.TrimSpace(hexKey) != "", hasPhrase && strings.TrimSpace(phrase) != ""
	switch {
	case hasKey && hasPhrase:
		// Foundry's recipes read PRIVATE_KEY and vipctl's env files carry MNEMONIC: both set
		// is one account named twice, or a mistake refused before anything is signed.
		fromKey, err := keyFromEnv(p, hexKey)
		if err != nil {
			return nil, err
		}
		fromPhrase, err := phraseFromEnv(p, phrase, path)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(fromKey.Secret(), fromPhrase.Secret()) {
			return nil, fmt.Errorf("%sPRIVATE_KEY (%s) and %s (%s) are different accounts: keep the one to sign with",
				p, fromKey.Address().Hex(), fromPhrase.source, fromPhrase.Address().Hex())
		}
		fromKey.source = fmt.Sprintf("%sPRIVATE_KEY = %s", p, fromPhrase.source)
		return fromKey, nil
	case hasKey:
		return keyFromEnv(p, hexKey)
	case hasPhrase:
		return phraseFromEnv(p, phrase, path)
	}
	return nil, ErrNoKey
}

func keyFromEnv(p, hexKey string) (*Account, error) {
	a, err := FromHex(hexKey)
	if err != nil {
		return nil, fmt.Errorf("%sPRIVATE_KEY: %w", p, err)
	}
	a.source = p + "PRIVATE_KEY"
	return a, nil
}

func phraseFromEnv(p, phrase string, path func(uint32) Path) (*Account, error) {
	index := uint32(0)
	if s := os.Getenv(p + "MNEMONIC_INDEX"); s != "" {
		n, err := strconv.ParseUint(s, 10, 31)
		if err != nil {
			return nil, fmt.Errorf("%sMNEMONIC_INDEX %q: want a number below 2^31", p, s)
		}
		index = uint32(n)
	}
	a, err := FromMnemonic(phrase, path(index))
	if err != nil {
		return nil, fmt.Errorf("%sMNEMONIC: %w", p, err)
	}
	a.source = fmt.Sprintf("%sMNEMONIC index %d", p, index)
	return a, nil
}

// FromHex parses a 32-byte hex private key (optional 0x).
func FromHex(s string) (*Account, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "0x")
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return nil, errors.New("not a 32-byte hex private key")
	}
	k, err := crypto.ToECDSA(b)
	if err != nil {
		return nil, errors.New("not a valid secp256k1 private key")
	}
	return &Account{key: k, addr: crypto.PubkeyToAddress(k.PublicKey), source: "hex"}, nil
}

// FromMnemonic recovers the account at path from a BIP39 mnemonic (no passphrase).
func FromMnemonic(mnemonic string, path Path) (*Account, error) {
	words := strings.Fields(mnemonic)
	seed, err := bip39.NewSeedWithErrorChecking(strings.Join(words, " "), "")
	if err != nil {
		return nil, fmt.Errorf("not a valid BIP39 mnemonic (%d words): check the words and their order", len(words))
	}
	raw, err := derive(seed, path)
	if err != nil {
		return nil, fmt.Errorf("derive %s: %w", path, err)
	}
	k, err := crypto.ToECDSA(raw)
	if err != nil {
		return nil, fmt.Errorf("derive %s: %w", path, err)
	}
	return &Account{key: k, addr: crypto.PubkeyToAddress(k.PublicKey), source: "mnemonic"}, nil
}

// NewMnemonic returns a fresh 24-word BIP39 mnemonic.
func NewMnemonic() (string, error) {
	entropy, err := bip39.NewEntropy(256)
	if err != nil {
		return "", fmt.Errorf("new mnemonic: %w", err)
	}
	return bip39.NewMnemonic(entropy)
}

// New creates a fresh account from a new mnemonic and returns both; the caller stores the
// mnemonic somewhere safe (never in logs).
func New() (*Account, string, error) {
	m, err := NewMnemonic()
	if err != nil {
		return nil, "", err
	}
	a, err := FromMnemonic(m, EVMPath(0))
	if err != nil {
		return nil, "", err
	}
	a.source = "new"
	return a, m, nil
}
