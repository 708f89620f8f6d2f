package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
)

// keyView is what keys show and keys new print: addresses and where the key is, never a secret.
type keyView struct {
	Role    string `json:"role,omitempty"`
	Address string `json:"address"`
	Bech32  string `json:"bech32"`
	KeyType string `json:"key_type"`
	Source  string `json:"source"`
	File    string `json:"mnemonic_file,omitempty"`
}

func viewOf(role string, s keys.Signer) keyView {
	b32, _ := bech32.ConvertAndEncode("init", s.Address().Bytes())
	return keyView{Role: role, Address: s.Address().Hex(), Bech32: b32, KeyType: string(s.KeyType()), Source: s.Source()}
}

func (v keyView) human() string {
	role := ""
	if v.Role != "" {
		role = fmt.Sprintf("%-9s ", v.Role)
	}
	return fmt.Sprintf("%s%s  %s  %s  (%s)", role, v.Address, v.Bech32, v.KeyType, v.Source)
}

func newKeysCmd(ro *rootOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Create or inspect the deployer and operator accounts (environment, keyring, keystore, Ledger)"}
	cmd.AddCommand(newKeysNewCmd(ro), newKeysShowCmd(ro))
	return cmd
}

// keysNewOptions are keys new's flags.
type keysNewOptions struct {
	*chainOptions
	out, prefix string
}

func newKeysNewCmd(ro *rootOptions) *cobra.Command {
	o := &keysNewOptions{chainOptions: newChainOptions()}
	create := &cobra.Command{
		Use:   "new",
		Short: "Create an account: a new mnemonic (--out FILE), a keyring key (--from NAME), a keystore file (--keystore FILE), or record a Ledger account (--ledger [--from NAME])",
		Long: `Create an account. Secrets are never printed:
  vipctl keys new --out FILE                     new 24-word mnemonic written to FILE (mode 0600) as MNEMONIC for the environment
  vipctl keys new --from NAME --out FILE         new key NAME in the keyring (--keyring-backend, --keyring-dir; minitiad reads it), mnemonic backup to FILE
  vipctl keys new --keystore FILE [--out M]      new key encrypted into a go-ethereum keystore FILE (password from KEYSTORE_PASSWORD or a prompt)
  vipctl keys new --ledger [--from NAME]         show the device account (confirm it on the device); with --from, record it in the keyring as minitiad keys add --ledger does
--key-type picks eth_secp256k1 (default; coin type 60, Initia's keys) or secp256k1 (coin type 118) for keyring keys.`,
		Args: cobra.NoArgs,
		RunE: ro.runs(o.newKey),
	}
	create.Flags().StringVar(&o.out, "out", "", "file to write the mnemonic to (created with mode 0600; must not exist)")
	create.Flags().StringVar(&o.prefix, "prefix", "", "variable prefix: empty for the deployer, OPERATOR_ for the operator")
	return o.addFlags(create, "vm", "key-type", signerGroup)
}

// newKey creates the account the flags ask for and prints its address, never a secret.
func (o *keysNewOptions) newKey(ctx context.Context, sess session) error {
	out, prefix := o.out, o.prefix
	kind := vip.EthSecp256k1
	if o.keyType != "" {
		k, err := vip.ParseKeyType(o.keyType)
		if err != nil {
			return invalid(err)
		}
		kind = k
	}
	sf := &o.signer
	switch {
	case sf.ledger:
		return sf.newLedgerKey(ctx, sess, kind)
	case sf.keystore != "" && sf.from != "":
		return invalid(errors.New("keys new: choose --from (a keyring key) or --keystore (a file)"))
	case sf.from != "":
		if out == "" {
			return invalid(errors.New("keys new --from: --out FILE is required: the mnemonic backup is written there, never printed"))
		}
		kr, err := keys.OpenKeyring(sf.keyringBackend, sf.keyringDir, keys.EnvOrTerminal(keys.KeyringPassphraseEnv))
		if err != nil {
			return invalid(err)
		}
		s, mnemonic, err := kr.New(sf.from, kind, 0)
		if err != nil {
			return invalid(err)
		}
		if err := writeSecretFile(out, fmt.Sprintf("%s\n", mnemonic)); err != nil {
			return err
		}
		v := viewOf("", s)
		v.File = out
		return sess.printResult(v, fmt.Sprintf("new key %s; mnemonic backup written to %s (keep it offline)", v.human(), out))
	case sf.keystore != "":
		acct, mnemonic, err := keys.New()
		if err != nil {
			return err
		}
		if err := keys.WriteKeystore(acct, sf.keystore, keys.EnvOrTerminal(keys.KeystorePasswordEnv), keystore.StandardScryptN, keystore.StandardScryptP); err != nil {
			return invalid(err)
		}
		if out != "" {
			if err := writeSecretFile(out, mnemonic+"\n"); err != nil {
				return err
			}
		}
		s, err := acct.Signer(vip.EthSecp256k1)
		if err != nil {
			return err
		}
		v := viewOf("", s)
		v.Source, v.File = "keystore "+sf.keystore, out
		return sess.printResult(v, fmt.Sprintf("new keystore %s: %s", sf.keystore, v.human()))
	}
	if out == "" {
		return invalid(errors.New("keys new: --out FILE is required: the mnemonic is written there, never printed"))
	}
	if prefix != "" && prefix != "OPERATOR_" {
		return invalid(fmt.Errorf("keys new: --prefix %q: want empty (deployer) or OPERATOR_", prefix))
	}
	acct, mnemonic, err := keys.New()
	if err != nil {
		return err
	}
	if err := writeSecretFile(out, fmt.Sprintf("export %sMNEMONIC=%q\nexport %sMNEMONIC_INDEX=0\n", prefix, mnemonic, prefix)); err != nil {
		return err
	}
	return sess.printResult(map[string]string{"address": acct.Address().Hex(), "file": out},
		fmt.Sprintf("new account %s; mnemonic written to %s (source it to use it; back it up)", acct.Address().Hex(), out))
}

// keysShowOptions are keys show's flags.
type keysShowOptions struct {
	*chainOptions
	confirm bool
}

func newKeysShowCmd(ro *rootOptions) *cobra.Command {
	o := &keysShowOptions{chainOptions: newChainOptions()}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the account the signer flags (--from, --keystore, --ledger) or the environment's keys give (never a key)",
		Args:  cobra.NoArgs,
		RunE:  ro.runs(o.showKeys),
	}
	show.Flags().BoolVar(&o.confirm, "confirm", false, "with --ledger: show the address on the device and wait for the user to confirm it")
	return o.addFlags(show, "vm", "key-type", signerGroup)
}

// showKeys prints the signer flags' account, or the environment's deployer and operator.
func (o *keysShowOptions) showKeys(ctx context.Context, sess session) error {
	confirm := o.confirm
	vm, _ := vip.ParseVM(o.vm)
	if o.signer.explicit() {
		kind, err := o.keyKind(vm)
		if err != nil {
			return err
		}
		s, err := keys.Open(ctx, keys.Deployer, o.signer.spec(kind))
		if err != nil {
			return signerError(err)
		}
		if l, ok := s.(*keys.Ledger); ok && confirm {
			fmt.Fprintf(sess.errOut, "confirm %s on the device\n", l.Address().Hex())
			if err := l.Confirm(ctx); err != nil {
				return err
			}
		}
		v := viewOf("", s)
		return sess.printResult(v, v.human())
	}
	dep, op, err := o.signers(ctx, sess, vm)
	if err != nil {
		return err
	}
	if dep == nil && op == nil {
		return invalid(errors.New("keys show: no key: set PRIVATE_KEY or MNEMONIC, or pass --from, --keystore or --ledger"))
	}
	var views []keyView
	var lines []string
	for _, r := range []struct {
		role string
		s    keys.Signer
	}{{"deployer", dep}, {"operator", op}} {
		if r.s == nil {
			continue
		}
		v := viewOf(r.role, r.s)
		views = append(views, v)
		lines = append(lines, v.human())
	}
	return sess.printResult(views, strings.Join(lines, "\n"))
}

// newLedgerKey shows the device account for the user to confirm and, with --from, records it
// in the keyring as a Ledger key.
func (sf *signerFlags) newLedgerKey(ctx context.Context, sess session, kind vip.KeyType) error {
	if kind != vip.EthSecp256k1 {
		return invalid(errors.New("keys new --ledger: the Ledger signs through its Ethereum app: eth_secp256k1 keys only"))
	}
	s, err := keys.Open(ctx, keys.Deployer, keys.Spec{Ledger: true, LedgerSpeculos: sf.speculos, HDPath: sf.hdPath,
		Account: sf.account, Dial: sf.ledgerConn.dialer(sf.speculos), Expect: sf.sender})
	if err != nil {
		return signerError(err)
	}
	l := s.(*keys.Ledger)
	fmt.Fprintf(sess.errOut, "confirm %s on the device\n", l.Address().Hex())
	if err := l.Confirm(ctx); err != nil {
		return err
	}
	v := viewOf("", l)
	if sf.from != "" {
		kr, err := keys.OpenKeyring(sf.keyringBackend, sf.keyringDir, keys.EnvOrTerminal(keys.KeyringPassphraseEnv))
		if err != nil {
			return invalid(err)
		}
		if err := kr.AddLedger(sf.from, l); err != nil {
			return invalid(err)
		}
		v.Source = fmt.Sprintf("%s, recorded as keyring %s %q", v.Source, sf.keyringBackend, sf.from)
	}
	return sess.printResult(v, v.human())
}

// writeSecretFile creates path with mode 0600, refusing to overwrite.
func writeSecretFile(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return invalid(fmt.Errorf("keys new: %w (refusing to overwrite a key file)", err))
	}
	_, werr := f.WriteString(content)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("keys new: write %s: %w", path, err)
	}
	return nil
}
