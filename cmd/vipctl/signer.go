package main

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync"

	"github.com/spf13/pflag"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

// signerFlags say where the signing key is: the environment (default), a keyring key, a
// keystore file or a Ledger.
type signerFlags struct {
	keyringBackend string
	keyringDir     string
	from           string
	keystore       string
	ledger         bool
	speculos       string
	hdPath         string
	account        uint32
	sender         string
	// ledgerConn is the command's one connection to the device, opened on first use.
	ledgerConn *ledgerConn
}

// newSignerFlags holds the signer flags' defaults, from the environment.
func newSignerFlags() signerFlags {
	return signerFlags{keyringBackend: envOr("KEYRING_BACKEND", "os"), keyringDir: os.Getenv("KEYRING_DIR"), from: os.Getenv("FROM"),
		keystore: os.Getenv("KEYSTORE"), ledger: envBool("LEDGER"), speculos: os.Getenv("LEDGER_SPECULOS"), hdPath: os.Getenv("HD_PATH"),
		sender: os.Getenv("SENDER_ADDRESS"), ledgerConn: &ledgerConn{}}
}

func (s *signerFlags) register(f *pflag.FlagSet) {
	f.StringVar(&s.keyringBackend, "keyring-backend", s.keyringBackend, "keyring backend for --from: os, file or test, as minitiad (env KEYRING_BACKEND; file asks for KEYRING_PASSPHRASE or prompts)")
	f.StringVar(&s.keyringDir, "keyring-dir", s.keyringDir, "keyring directory for --from (default minitiad's home, ~/.minitia) (env KEYRING_DIR)")
	f.StringVar(&s.from, "from", s.from, "sign with this keyring key (env FROM)")
	f.StringVar(&s.keystore, "keystore", s.keystore, "sign with this go-ethereum keystore JSON file; password from KEYSTORE_PASSWORD or a prompt (env KEYSTORE)")
	f.BoolVar(&s.ledger, "ledger", s.ledger, "sign on a Ledger's Ethereum app: EVM txs, and Move/Wasm txs in SIGN_MODE_EIP_191 (env LEDGER)")
	f.StringVar(&s.speculos, "ledger-speculos", s.speculos, "reach the Ledger through a Speculos APDU port such as 127.0.0.1:9999 instead of USB (env LEDGER_SPECULOS)")
	f.StringVar(&s.hdPath, "hd-path", s.hdPath, "Ledger derivation path such as m/44'/60'/0'/0/0 (env HD_PATH; default from --account)")
	f.Uint32Var(&s.account, "account", s.account, "Ledger account index: m/44'/60'/0'/0/N")
	f.StringVar(&s.sender, "sender", s.sender, "refuse to sign unless the signer is this address (0x or bech32) (env SENDER_ADDRESS)")
}

// ledgerConn dials the Ledger once for a command, however many signers it opens.
type ledgerConn struct {
	once sync.Once
	dial keys.LedgerDialer
}

// dialer is the command's dialer of the device at speculos (USB when "").
func (c *ledgerConn) dialer(speculos string) keys.LedgerDialer {
	if c == nil { // flags built without newSignerFlags: a dialer of their own
		return keys.OnceDialer(speculos)
	}
	c.once.Do(func() { c.dial = keys.OnceDialer(speculos) })
	return c.dial
}

func envBool(key string) bool {
	b, _ := strconv.ParseBool(os.Getenv(key))
	return b
}

// spec is the keys.Spec of the flags for Cosmos keys of kind.
func (s *signerFlags) spec(kind vip.KeyType) keys.Spec {
	return keys.Spec{KeyType: kind, KeyringBackend: s.keyringBackend, KeyringDir: s.keyringDir, From: s.from,
		Keystore: s.keystore, Ledger: s.ledger, LedgerSpeculos: s.speculos, HDPath: s.hdPath, Account: s.account,
		Dial: s.ledgerConn.dialer(s.speculos), Expect: s.sender}
}

// explicit reports whether a flag names a signer (else the environment's keys are used).
func (s *signerFlags) explicit() bool { return s.from != "" || s.keystore != "" || s.ledger }

// keyKind is the Cosmos key kind of environment and keystore keys on vm: eth_secp256k1 on
// EVM, --key-type or the VM's kind on Move and Wasm.
func (o *rollupOptions) keyKind(vm vip.VM) (vip.KeyType, error) {
	if !vip.MustDescribe(vm).Cosmos {
		return vip.EthSecp256k1, nil // an Ethereum key: --key-type does not apply
	}
	return o.cosmosKeyType(vm)
}

// signers opens the deployer's and the operator's signers for vm. A signer flag names one
// account for both roles (the command uses the one it needs); otherwise each role reads the
// environment (the operator falls back to the deployer). Either may be nil when nothing is set.
func (o *chainOptions) signers(ctx context.Context, sess session, vm vip.VM) (dep, op keys.Signer, err error) {
	kind, err := o.keyKind(vm)
	if err != nil {
		return nil, nil, err
	}
	spec := o.signer.spec(kind)
	if o.signer.explicit() {
		s, err := keys.Open(ctx, keys.Deployer, spec)
		if err != nil {
			return nil, nil, signerError(err)
		}
		sess.logger.Info("signer", "signer", s)
		return s, s, nil
	}
	if op, err = keys.Open(ctx, keys.Operator, spec); err != nil && !errors.Is(err, keys.ErrNoKey) {
		return nil, nil, signerError(err)
	}
	if dep, err = keys.Open(ctx, keys.Deployer, spec); err != nil && !errors.Is(err, keys.ErrNoKey) {
		return nil, nil, signerError(err)
	}
	return dep, op, nil
}

// signerError marks a signer that could not be opened (a wrong flag, a missing key or
// passphrase, an unexpected sender, no device) as bad input: exit 2, nothing was sent.
func signerError(err error) error {
	return invalid(err)
}
