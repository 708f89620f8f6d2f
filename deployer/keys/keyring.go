package keys

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/99designs/keyring"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	cryptocodec "github.com/cosmos/cosmos-sdk/crypto/codec"
	"github.com/cosmos/cosmos-sdk/crypto/hd"
	cosmoskeyring "github.com/cosmos/cosmos-sdk/crypto/keyring"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/go-bip39"
	"golang.org/x/crypto/bcrypt"

	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
	"github.com/vipharness/vipharness/deployer/keys/ledger"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Keyring defaults as minitiad (every Initia rollup's CLI) has them.
const (
	// KeyringService is the name minitiad's keyring uses (the os backend's service name).
	KeyringService = "minitia"
	// KeyringPassphraseEnv is where the file backend's passphrase is read from when set.
	KeyringPassphraseEnv = "KEYRING_PASSPHRASE"
)

// ErrOnLedger is a keyring key whose secret lives on a Ledger, opened without a device.
var ErrOnLedger = errors.New("the key lives on a Ledger: open it with a Ledger device")

// DefaultKeyringDir is minitiad's home, ~/.minitia: its keyrings live in keyring-file and
// keyring-test below it.
func DefaultKeyringDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ".minitia"
	}
	return filepath.Join(home, ".minitia")
}

// Keyring is a cosmos-sdk keyring as minitiad keeps it: backends os, file and test, keys of
// Initia's eth_secp256k1 (coin type 60) and Cosmos secp256k1 (coin type 118) kinds, and Ledger
// records that name a device path.
type Keyring struct {
	db      keyring.Keyring
	kr      cosmoskeyring.Keyring
	backend string
	dir     string
}

// keyringCodec decodes keyring records: the SDK's key types and Initia's eth_secp256k1,
// under the type URLs minitiad writes (/initia.crypto.v1beta1.ethsecp256k1.PrivKey ...).
func keyringCodec() codec.Codec {
	reg := codectypes.NewInterfaceRegistry()
	cryptocodec.RegisterInterfaces(reg)
	ethsecp256k1.RegisterInterfaces(reg)
	return codec.NewProtoCodec(reg)
}

// ethAlgo derives Initia's eth_secp256k1 keys, as minitiad's keyring option registers them.
type ethAlgo struct{}

func (ethAlgo) Name() hd.PubKeyType { return hd.PubKeyType(vip.EthSecp256k1) }

func (ethAlgo) Derive() hd.DeriveFn {
	return func(mnemonic, passphrase, path string) ([]byte, error) {
		seed, err := bip39.NewSeedWithErrorChecking(mnemonic, passphrase)
		if err != nil {
			return nil, err
		}
		p, err := ParsePath(path)
		if err != nil {
			return nil, err
		}
		return derive(seed, p)
	}
}

func (ethAlgo) Generate() hd.GenerateFn {
	return func(bz []byte) cryptotypes.PrivKey {
		k, _ := ethsecp256k1.NewPrivKey(bz)
		return k
	}
}

func keyringOptions(o *cosmoskeyring.Options) {
	o.SupportedAlgos = cosmoskeyring.SigningAlgoList{ethAlgo{}, hd.Secp256k1}
	o.SupportedAlgosLedger = o.SupportedAlgos
}

// OpenKeyring opens the keyring of backend (os, file or test) under dir ("" is
// DefaultKeyringDir). The file backend asks password for its passphrase (see
// EnvOrTerminal(KeyringPassphraseEnv)) and checks it against the keyring's keyhash, as the SDK
// does; a new file keyring records the passphrase's hash the same way.
func OpenKeyring(backend, dir string, password PasswordFunc) (*Keyring, error) {
	if dir == "" {
		dir = DefaultKeyringDir()
	}
	var cfg keyring.Config
	switch backend {
	case cosmoskeyring.BackendTest:
		cfg = keyring.Config{AllowedBackends: []keyring.BackendType{keyring.FileBackend}, ServiceName: KeyringService,
			FileDir: filepath.Join(dir, "keyring-test"), FilePasswordFunc: func(string) (string, error) { return "test", nil }}
	case cosmoskeyring.BackendFile:
		fileDir := filepath.Join(dir, "keyring-file")
		cfg = keyring.Config{AllowedBackends: []keyring.BackendType{keyring.FileBackend}, ServiceName: KeyringService,
			FileDir: fileDir, FilePasswordFunc: filePassword(fileDir, password)}
	case cosmoskeyring.BackendOS:
		cfg = keyring.Config{ServiceName: KeyringService, FileDir: dir, KeychainTrustApplication: true,
			FilePasswordFunc: filePassword(dir, password)}
	default:
		return nil, fmt.Errorf("keyring backend %q: want os, file or test", backend)
	}
	db, err := keyring.Open(cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s keyring in %s: %w", backend, dir, err)
	}
	return &Keyring{db: db, kr: cosmoskeyring.NewInMemoryWithKeyring(db, keyringCodec(), keyringOptions), backend: backend, dir: dir}, nil
}

// filePassword asks for the passphrase of the encrypted keyring in dir and checks it against
// the bcrypt hash the SDK keeps in dir/keyhash (writing it for a new keyring).
func filePassword(dir string, password PasswordFunc) func(string) (string, error) {
	return func(string) (string, error) {
		if password == nil {
			return "", fmt.Errorf("keyring %s needs a passphrase: set %s", dir, KeyringPassphraseEnv)
		}
		pass, err := password("passphrase of keyring " + dir)
		if err != nil {
			return "", err
		}
		hashFile := filepath.Join(dir, "keyhash")
		stored, err := os.ReadFile(hashFile)
		switch {
		case err == nil:
			if bcrypt.CompareHashAndPassword(stored, []byte(pass)) != nil {
				return "", fmt.Errorf("keyring %s: wrong passphrase", dir)
			}
			return pass, nil
		case errors.Is(err, os.ErrNotExist):
			if len(pass) < 8 {
				return "", fmt.Errorf("keyring %s: a new keyring's passphrase needs at least 8 characters", dir)
			}
			hash, err := bcrypt.GenerateFromPassword([]byte(pass), bcrypt.DefaultCost)
			if err != nil {
				return "", err
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return "", err
			}
			return pass, os.WriteFile(hashFile, hash, 0o600)
		}
		return "", fmt.Errorf("keyring %s: %w", dir, err)
	}
}

func (k *Keyring) where(name string) string {
	return fmt.Sprintf("keyring %s %q in %s", k.backend, name, k.dir)
}

// Names lists the keys.
func (k *Keyring) Names() ([]string, error) {
	recs, err := k.kr.List()
	if err != nil {
		return nil, fmt.Errorf("list keyring %s: %w", k.dir, err)
	}
	names := make([]string, len(recs))
	for i, r := range recs {
		names[i] = r.Name
	}
	return names, nil
}

// LedgerDialer reaches the device a Ledger record of the keyring lives on.
type LedgerDialer func(ctx context.Context) (*ledger.App, string, error)

// Signer is the signer of key name: a local key signs in memory; a Ledger record (minitiad
// keys add --ledger) signs on the device dial reaches, which must hold the recorded key.
func (k *Keyring) Signer(ctx context.Context, name string, dial LedgerDialer) (Signer, error) {
	rec, err := k.kr.Key(name)
	if err != nil {
		if errors.Is(err, sdkerrors.ErrKeyNotFound) || errors.Is(err, keyring.ErrKeyNotFound) {
			names, _ := k.Names()
			return nil, fmt.Errorf("%s: no such key (keys here: %v)", k.where(name), names)
		}
		return nil, fmt.Errorf("%s: %w", k.where(name), err)
	}
	switch {
	case rec.GetLocal() != nil:
		priv, ok := rec.GetLocal().PrivKey.GetCachedValue().(cryptotypes.PrivKey)
		if !ok {
			return nil, fmt.Errorf("%s: the record's private key is of a type this tool does not know (%s)", k.where(name), rec.GetLocal().PrivKey.TypeUrl)
		}
		var kind vip.KeyType
		switch priv.(type) {
		case *ethsecp256k1.PrivKey:
			kind = vip.EthSecp256k1
		case *secp256k1.PrivKey:
			kind = vip.Secp256k1
		default:
			return nil, fmt.Errorf("%s: %s keys cannot sign here (want eth_secp256k1 or secp256k1)", k.where(name), priv.Type())
		}
		acct, err := FromHex(fmt.Sprintf("%x", priv.Bytes()))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.where(name), err)
		}
		return NewSoftware(acct, kind, k.where(name))
	case rec.GetLedger() != nil:
		return k.ledgerSigner(ctx, name, rec, dial)
	}
	return nil, fmt.Errorf("%s is a %s key: it holds no private key to sign with", k.where(name), rec.GetType())
}

func (k *Keyring) ledgerSigner(ctx context.Context, name string, rec *cosmoskeyring.Record, dial LedgerDialer) (Signer, error) {
	pub, err := rec.GetPubKey()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.where(name), err)
	}
	if _, eth := pub.(*ethsecp256k1.PubKey); !eth {
		return nil, fmt.Errorf("%s is a Ledger key of the Cosmos app (%s): this tool signs through the Ethereum app (eth_secp256k1, coin type 60) only", k.where(name), pub.Type())
	}
	bip := rec.GetLedger().Path
	change := uint32(0)
	if bip.Change {
		change = 1
	}
	path := Path{bip.Purpose | hardened, bip.CoinType | hardened, bip.Account | hardened, change, bip.AddressIndex}
	if dial == nil {
		return nil, fmt.Errorf("%s: %w", k.where(name), ErrOnLedger)
	}
	app, where, err := dial(ctx)
	if err != nil {
		return nil, err
	}
	l, err := NewLedger(ctx, app, path, where)
	if err != nil {
		return nil, err
	}
	if !l.PubKey().Equals(pub) {
		return nil, fmt.Errorf("%s records key %X at %s, but the device holds %s there: is it the right device or passphrase?", k.where(name), pub.Bytes(), path, l.Address().Hex())
	}
	return l, nil
}

// New creates key name of kind at account index from a new 24-word mnemonic, which it
// returns for the caller to hand to the user once (it is not kept anywhere else).
func (k *Keyring) New(name string, kind vip.KeyType, index uint32) (Signer, string, error) {
	if _, err := k.kr.Key(name); err == nil {
		return nil, "", fmt.Errorf("%s exists: refusing to replace a key", k.where(name))
	}
	mnemonic, err := NewMnemonic()
	if err != nil {
		return nil, "", err
	}
	var algo cosmoskeyring.SignatureAlgo = hd.Secp256k1
	if kind == vip.EthSecp256k1 {
		algo = ethAlgo{}
	}
	if _, err := k.kr.NewAccount(name, mnemonic, "", PathFor(kind, index).String(), algo); err != nil {
		return nil, "", fmt.Errorf("%s: add key: %w", k.where(name), err)
	}
	s, err := k.Signer(context.Background(), name, nil)
	return s, mnemonic, err
}

// Import stores an account's key as key name of kind.
func (k *Keyring) Import(name string, a *Account, kind vip.KeyType) error {
	if _, err := k.kr.Key(name); err == nil {
		return fmt.Errorf("%s exists: refusing to replace a key", k.where(name))
	}
	algo := "secp256k1"
	if kind == vip.EthSecp256k1 {
		algo = string(vip.EthSecp256k1)
	}
	if err := k.kr.ImportPrivKeyHex(name, fmt.Sprintf("%x", a.Secret()), algo); err != nil {
		return fmt.Errorf("%s: import: %w", k.where(name), err)
	}
	return nil
}

// AddLedger records the device account of l as key name, as minitiad keys add --ledger does:
// the public key and the BIP44 path, no secret.
func (k *Keyring) AddLedger(name string, l *Ledger) error {
	if _, err := k.kr.Key(name); err == nil {
		return fmt.Errorf("%s exists: refusing to replace a key", k.where(name))
	}
	p := l.Path()
	if len(p) != 5 || p[0] != 44|hardened || p[1]&hardened == 0 || p[2]&hardened == 0 || p[3] > 1 || p[4]&hardened != 0 {
		return fmt.Errorf("a keyring records Ledger keys on m/44'/coin'/account'/change/index paths, not %s", p)
	}
	params := hd.NewParams(44, p[1]&^hardened, p[2]&^hardened, p[3] == 1, p[4])
	rec, err := cosmoskeyring.NewLedgerRecord(name, l.PubKey(), params)
	if err != nil {
		return err
	}
	bz, err := keyringCodec().Marshal(rec)
	if err != nil {
		return err
	}
	// The SDK's layout: the record under NAME.info, and HEXADDR.address naming it.
	if err := k.db.Set(keyring.Item{Key: name + ".info", Data: bz}); err != nil {
		return fmt.Errorf("%s: %w", k.where(name), err)
	}
	if err := k.db.Set(keyring.Item{Key: hex.EncodeToString(l.PubKey().Address()) + ".address", Data: []byte(name + ".info")}); err != nil {
		return fmt.Errorf("%s: %w", k.where(name), err)
	}
	return nil
}
