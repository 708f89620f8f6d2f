package keys

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/vipharness/vipharness/deployer/keys/ledger"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Spec says where a role's signer is. At most one of From (a keyring key), Keystore (a
// go-ethereum keystore file) and Ledger is set; with none, the environment's key is used
// (PRIVATE_KEY or MNEMONIC, see FromEnv).
type Spec struct {
	// KeyType is the Cosmos key kind of environment and keystore keys ("" is eth_secp256k1);
	// keyring keys and the Ledger have their own.
	KeyType vip.KeyType

	KeyringBackend string // os, file or test (default os, as minitiad)
	KeyringDir     string // default DefaultKeyringDir
	From           string // keyring key name

	Keystore string // keystore JSON file

	Ledger bool
	// LedgerSpeculos is the APDU port of a Speculos emulator (or the stand-in); empty is USB.
	LedgerSpeculos string
	// HDPath is the device path; empty is m/44'/60'/0'/0/Account.
	HDPath  string
	Account uint32
	// Dial reaches the device; nil dials LedgerSpeculos or USB anew (see OnceDialer to share
	// one device between roles).
	Dial LedgerDialer

	// KeystorePassword and KeyringPassword default to EnvOrTerminal of KeystorePasswordEnv
	// and KeyringPassphraseEnv.
	KeystorePassword PasswordFunc
	KeyringPassword  PasswordFunc

	// Expect is the address the command expects to sign as (0x or bech32); empty accepts any.
	Expect string
}

// Sources names the signer sources set, for messages.
func (s Spec) Sources() []string {
	var set []string
	if s.From != "" {
		set = append(set, "keyring key "+s.From)
	}
	if s.Keystore != "" {
		set = append(set, "keystore "+s.Keystore)
	}
	if s.Ledger {
		set = append(set, "a Ledger")
	}
	return set
}

// SourcesError is a signer asked of more than one source at once.
type SourcesError struct {
	Role    Role
	Sources []string // Spec.Sources
}

func (e *SourcesError) Error() string {
	return fmt.Sprintf("%s signer: choose one of %s", e.Role, strings.Join(e.Sources, ", "))
}

// ErrHDPath is a Ledger derivation path that does not parse.
var ErrHDPath = errors.New("HD path")

// OnceDialer dials the device once (Speculos at speculos, else USB) and hands every caller the
// same connection: a device serves one client.
func OnceDialer(speculos string) LedgerDialer {
	var (
		once  sync.Once
		app   *ledger.App
		where string
		err   error
	)
	return func(ctx context.Context) (*ledger.App, string, error) {
		once.Do(func() { app, where, err = DialLedger(ctx, speculos) })
		return app, where, err
	}
}

// Open returns role's signer as spec describes, refusing one whose address is not
// spec.Expect. Without any source and without a key in the environment it returns an error
// wrapping ErrNoKey.
func Open(ctx context.Context, role Role, spec Spec) (Signer, error) {
	if set := spec.Sources(); len(set) > 1 {
		return nil, &SourcesError{Role: role, Sources: set}
	}
	kind := spec.KeyType
	if kind == "" {
		kind = vip.EthSecp256k1
	}
	dial := spec.Dial
	if dial == nil {
		dial = func(ctx context.Context) (*ledger.App, string, error) { return DialLedger(ctx, spec.LedgerSpeculos) }
	}
	var (
		s   Signer
		err error
	)
	switch {
	case spec.From != "":
		backend := spec.KeyringBackend
		if backend == "" {
			backend = "os"
		}
		pw := spec.KeyringPassword
		if pw == nil {
			pw = EnvOrTerminal(KeyringPassphraseEnv)
		}
		var kr *Keyring
		if kr, err = OpenKeyring(backend, spec.KeyringDir, pw); err == nil {
			s, err = kr.Signer(ctx, spec.From, dial)
		}
	case spec.Keystore != "":
		pw := spec.KeystorePassword
		if pw == nil {
			pw = EnvOrTerminal(KeystorePasswordEnv)
		}
		var a *Account
		if a, err = FromKeystore(spec.Keystore, pw); err == nil {
			s, err = NewSoftware(a, kind, a.Source())
		}
	case spec.Ledger:
		path := EVMPath(spec.Account)
		if spec.HDPath != "" {
			if path, err = ParsePath(spec.HDPath); err != nil {
				return nil, fmt.Errorf("%w %q: %w", ErrHDPath, spec.HDPath, err)
			}
		}
		app, where, derr := dial(ctx)
		if derr != nil {
			return nil, fmt.Errorf("%s signer: %w", role, derr)
		}
		s, err = NewLedger(ctx, app, path, where)
	default:
		var a *Account
		a, err := FromEnv(role, WithPath(func(i uint32) Path { return PathFor(kind, i) }))
		if err != nil {
			return nil, err // it names the role
		}
		if s, err = NewSoftware(a, kind, a.Source()); err != nil {
			return nil, fmt.Errorf("%s signer: %w", role, err)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s signer: %w", role, err)
	}
	if err := CheckSender(s, spec.Expect); err != nil {
		return nil, fmt.Errorf("%s signer: %w", role, err)
	}
	return s, nil
}
