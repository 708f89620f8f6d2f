package main

import (
	"context"
	"errors"
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scorers"
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
	dial           keys.LedgerDialer
}

func (s *signerFlags) register(f *pflag.FlagSet) {
	f.StringVar(&s.keyringBackend, "keyring-backend", envOr("KEYRING_BACKEND", "os"), "keyring backend for --from: os, file or test, as minitiad (env KEYRING_BACKEND; file asks for KEYRING_PASSPHRASE or prompts)")
	f.StringVar(&s.keyringDir, "keyring-dir", os.Getenv("KEYRING_DIR"), "keyring directory for --from (default minitiad's home, ~/.minitia) (env KEYRING_DIR)")
	f.StringVar(&s.from, "from", os.Getenv("FROM"), "sign with this keyring key (env FROM)")
	f.StringVar(&s.keystore, "keystore", os.Getenv("KEYSTORE"), "sign with this go-ethereum keystore JSON file; password from KEYSTORE_PASSWORD or a prompt (env KEYSTORE)")
	f.BoolVar(&s.ledger, "ledger", envBool("LEDGER"), "sign on a Ledger's Ethereum app: EVM txs, and Move/Wasm txs in SIGN_MODE_EIP_191 (env LEDGER)")
	f.StringVar(&s.speculos, "ledger-speculos", os.Getenv("LEDGER_SPECULOS"), "reach the Ledger through a Speculos APDU port such as 127.0.0.1:9999 instead of USB (env LEDGER_SPECULOS)")
	f.StringVar(&s.hdPath, "hd-path", os.Getenv("HD_PATH"), "Ledger derivation path such as m/44'/60'/0'/0/0 (env HD_PATH; default from --account)")
	f.Uint32Var(&s.account, "account", 0, "Ledger account index: m/44'/60'/0'/0/N")
	f.StringVar(&s.sender, "sender", os.Getenv("SENDER_ADDRESS"), "refuse to sign unless the signer is this address (0x or bech32) (env SENDER_ADDRESS)")
}

func envBool(key string) bool {
	b, _ := strconv.ParseBool(os.Getenv(key))
	return b
}

// spec is the keys.Spec of the flags for Cosmos keys of kind.
func (s *signerFlags) spec(kind keys.KeyType) keys.Spec {
	if s.dial == nil {
		s.dial = keys.OnceDialer(s.speculos)
	}
	return keys.Spec{KeyType: kind, KeyringBackend: s.keyringBackend, KeyringDir: s.keyringDir, From: s.from,
		Keystore: s.keystore, Ledger: s.ledger, LedgerSpeculos: s.speculos, HDPath: s.hdPath, Account: s.account,
		Dial: s.dial, Expect: s.sender}
}

// explicit reports whether a flag names a signer (else the environment's keys are used).
func (s *signerFlags) explicit() bool { return s.from != "" || s.keystore != "" || s.ledger }

// keyKind is the Cosmos key kind of environment and keystore keys on vm: eth_secp256k1 on
// EVM, --key-type or the VM's kind on Move and Wasm.
func (g *globals) keyKind(vm deployer.VM) (keys.KeyType, error) {
	if !scorers.MustDescribe(vm).Cosmos {
		return keys.EthSecp256k1, nil // an Ethereum key: --key-type does not apply
	}
	return g.cosmosKeyType(vm)
}

// signers opens the deployer's and the operator's signers for vm. A signer flag names one
// account for both roles (the command uses the one it needs); otherwise each role reads the
// environment (the operator falls back to the deployer). Either may be nil when nothing is set.
func (g *globals) signers(ctx context.Context, vm deployer.VM) (dep, op keys.Signer, err error) {
	kind, err := g.keyKind(vm)
	if err != nil {
		return nil, nil, err
	}
	spec := g.signer.spec(kind)
	if g.signer.explicit() {
		s, err := keys.Open(ctx, keys.Deployer, spec)
		if err != nil {
			return nil, nil, signerError(err)
		}
		g.logger.Info("signer", "signer", s)
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
