package keys_test

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmos/cosmos-sdk/crypto/hd"
	cosmoskeyring "github.com/cosmos/cosmos-sdk/crypto/keyring"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/bindings/router"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
	"github.com/vipharness/vipharness/deployer/keys/ledger"
	"github.com/vipharness/vipharness/deployer/vip"
	standin "github.com/vipharness/vipharness/localnet/ledger"
)

const (
	testMnemonic = "test test test test test test test test test test test junk"
	dev0         = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	dev1         = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	passphrase   = "correct horse battery staple"
)

func fixed(s string) keys.PasswordFunc { return func(string) (string, error) { return s, nil } }

func clearEnv(t *testing.T) {
	for _, v := range []string{"PRIVATE_KEY", "MNEMONIC", "MNEMONIC_INDEX", "OPERATOR_PRIVATE_KEY", "OPERATOR_MNEMONIC", "OPERATOR_MNEMONIC_INDEX"} {
		t.Setenv(v, "")
	}
}

func TestEIP191(t *testing.T) {
	doc := []byte(`{"chain_id":"move-1"}`)
	sb := keys.FormatEIP191(doc)
	if string(sb) != "\x19Ethereum Signed Message:\n21"+string(doc) {
		t.Fatalf("%q", sb)
	}
	got, err := keys.StripEIP191(sb)
	if err != nil || !bytes.Equal(got, doc) {
		t.Fatalf("strip: %q %v", got, err)
	}
	for _, bad := range [][]byte{doc, []byte("\x19Ethereum Signed Message:\n22" + string(doc))} {
		if _, err := keys.StripEIP191(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSoftwareSigner(t *testing.T) {
	a, _ := keys.FromMnemonic(testMnemonic, keys.EVMPath(0))
	s, err := a.Signer(vip.EthSecp256k1)
	if err != nil {
		t.Fatal(err)
	}
	if s.Address().Hex() != dev0 || s.CosmosSignMode() != signing.SignMode_SIGN_MODE_DIRECT {
		t.Fatalf("address %s mode %v", s.Address().Hex(), s.CosmosSignMode())
	}
	msg := []byte("direct sign bytes")
	sig, _ := s.SignCosmos(context.Background(), msg)
	if !s.PubKey().VerifySignature(msg, sig) {
		t.Fatal("direct signature does not verify")
	}
	to := common.HexToAddress(dev1)
	tx, err := s.SignEVMTx(context.Background(), types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1337), To: &to, Gas: 21000, GasFeeCap: big.NewInt(1), GasTipCap: big.NewInt(1)}), big.NewInt(1337))
	if err != nil {
		t.Fatal(err)
	}
	if from, _ := types.Sender(types.LatestSignerForChainID(big.NewInt(1337)), tx); from.Hex() != dev0 {
		t.Fatalf("sender %s", from.Hex())
	}
	cosmos, _ := keys.FromMnemonic(testMnemonic, keys.CosmosPath(0))
	c, _ := cosmos.Signer(vip.Secp256k1)
	if _, err := c.SignEVMTx(context.Background(), tx, big.NewInt(1337)); err == nil {
		t.Fatal("a secp256k1 key signed an EVM tx")
	}
	hexKey := strings.TrimPrefix(common.Bytes2Hex(a.Secret()), "0x")
	for _, shown := range []string{s.String(), s.GoString()} {
		if strings.Contains(shown, hexKey) || !strings.Contains(shown, dev0) {
			t.Fatalf("shown as %q", shown)
		}
	}
}

func TestCheckSender(t *testing.T) {
	a, _ := keys.FromMnemonic(testMnemonic, keys.EVMPath(0))
	s, _ := a.Signer(vip.EthSecp256k1)
	if err := keys.CheckSender(s, strings.ToLower(dev0)); err != nil {
		t.Fatal(err)
	}
	// The same 20 bytes in bech32, as Initia shows eth_secp256k1 accounts.
	b32, _ := bech32.ConvertAndEncode("init", common.HexToAddress(dev0).Bytes())
	if err := keys.CheckSender(s, b32); err != nil {
		t.Fatal(err)
	}
	err := keys.CheckSender(s, dev1)
	if err == nil || !strings.Contains(err.Error(), dev0) || !strings.Contains(err.Error(), dev1) {
		t.Fatalf("error %v: want both addresses named", err)
	}
}

func TestKeystore(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "op.json")
	a, _ := keys.FromMnemonic(testMnemonic, keys.EVMPath(1))
	if err := keys.WriteKeystore(a, file, fixed(passphrase), keystore.LightScryptN, keystore.LightScryptP); err != nil {
		t.Fatal(err)
	}
	if err := keys.WriteKeystore(a, file, fixed(passphrase), keystore.LightScryptN, keystore.LightScryptP); err == nil {
		t.Fatal("overwrote a keystore")
	}
	s, err := keys.Open(context.Background(), keys.Operator, keys.Spec{Keystore: file, KeystorePassword: fixed(passphrase), Expect: dev1})
	if err != nil || s.Address().Hex() != dev1 {
		t.Fatalf("%v %v", s, err)
	}
	_, err = keys.Open(context.Background(), keys.Operator, keys.Spec{Keystore: file, KeystorePassword: fixed("wrong password!")})
	if err == nil || !strings.Contains(err.Error(), "wrong password") || strings.Contains(err.Error(), "wrong password!") {
		t.Fatalf("error %v", err)
	}
	_, err = keys.Open(context.Background(), keys.Operator, keys.Spec{Keystore: file, KeystorePassword: fixed(passphrase), Expect: dev0})
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("error %v", err)
	}
}

// sdkKeyring opens a keyring with the cosmos-sdk's own constructor and Initia's key option
// set as minitiad registers it (eth_secp256k1 and secp256k1; the eth key's proto type).
func sdkKeyring(t *testing.T, backend, dir, input string) cosmoskeyring.Keyring {
	t.Helper()
	kr, err := cosmoskeyring.New(keys.KeyringService, backend, dir, strings.NewReader(input), recordCodec(), func(o *cosmoskeyring.Options) {
		o.SupportedAlgos = cosmoskeyring.SigningAlgoList{minitiaEthAlgo{}, hd.Secp256k1}
	})
	if err != nil {
		t.Fatal(err)
	}
	return kr
}

// Keys written by the SDK's keyring (as minitiad writes them) read back here, and the other
// way round, for the test and file backends.
func TestKeyringInterop(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{"test", "file"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			input := passphrase + "\n" + passphrase + "\n"
			sdk := sdkKeyring(t, backend, dir, input)
			if _, err := sdk.NewAccount("deployer", testMnemonic, "", "m/44'/60'/0'/0/0", minitiaEthAlgo{}); err != nil {
				t.Fatal(err)
			}
			if _, err := sdk.NewAccount("cosmos", testMnemonic, "", "m/44'/118'/0'/0/0", hd.Secp256k1); err != nil {
				t.Fatal(err)
			}
			rec, _ := sdk.Key("deployer")
			if rec.GetLocal().PrivKey.TypeUrl != "/initia.crypto.v1beta1.ethsecp256k1.PrivKey" || rec.PubKey.TypeUrl != "/initia.crypto.v1beta1.ethsecp256k1.PubKey" {
				t.Fatalf("record types %s %s", rec.GetLocal().PrivKey.TypeUrl, rec.PubKey.TypeUrl)
			}

			kr, err := keys.OpenKeyring(backend, dir, fixed(passphrase))
			if err != nil {
				t.Fatal(err)
			}
			s, err := kr.Signer(ctx, "deployer", nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Address().Hex() != dev0 || s.KeyType() != vip.EthSecp256k1 {
				t.Fatalf("deployer %v", s)
			}
			c, err := kr.Signer(ctx, "cosmos", nil)
			if err != nil || c.KeyType() != vip.Secp256k1 {
				t.Fatalf("cosmos %v %v", c, err)
			}
			recC, _ := sdk.Key("cosmos")
			if addr, _ := recC.GetAddress(); !bytes.Equal(addr, c.Address().Bytes()) {
				t.Fatalf("secp256k1 address %X, sdk %X", c.Address().Bytes(), addr)
			}
			// A key made here is one the SDK reads, with the same public key.
			made, mnemonic, err := kr.New("operator", vip.EthSecp256k1, 0)
			if err != nil || len(strings.Fields(mnemonic)) != 24 {
				t.Fatalf("new: %v", err)
			}
			back, err := sdkKeyring(t, backend, dir, input).Key("operator")
			if err != nil {
				t.Fatal(err)
			}
			pk, _ := back.GetPubKey()
			if !pk.Equals(made.PubKey()) {
				t.Fatal("the SDK reads another key")
			}
			if _, err := kr.Signer(ctx, "nobody", nil); err == nil || !strings.Contains(err.Error(), "no such key") {
				t.Fatalf("missing key: %v", err)
			}
			if backend == "file" {
				bad, err := keys.OpenKeyring(backend, dir, fixed("not the passphrase"))
				if err == nil {
					_, err = bad.Signer(ctx, "deployer", nil)
				}
				if err == nil || !strings.Contains(err.Error(), "wrong passphrase") || strings.Contains(err.Error(), "not the passphrase") {
					t.Fatalf("wrong passphrase: %v", err)
				}
				if _, err := os.Stat(filepath.Join(dir, "keyring-file", "keyhash")); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// A Ledger record (minitiad keys add --ledger) signs on the device that holds its key.
func TestKeyringLedgerRecord(t *testing.T) {
	srv, err := standin.Start(testMnemonic)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	sdk := sdkKeyring(t, "test", dir, "")
	acct, _ := keys.FromMnemonic(testMnemonic, keys.EVMPath(2))
	pub := &ethsecp256k1.PubKey{Key: crypto.CompressPubkey(&acct.PrivateKey().PublicKey)}
	rec, err := cosmoskeyring.NewLedgerRecord("hw", pub, hd.NewFundraiserParams(0, 60, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := writeRecord(sdk, rec); err != nil {
		t.Fatal(err)
	}
	kr, _ := keys.OpenKeyring("test", dir, nil)
	s, err := kr.Signer(context.Background(), "hw", keys.OnceDialer(srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	if s.Address() != acct.Address() || s.CosmosSignMode() != signing.SignMode_SIGN_MODE_EIP_191 {
		t.Fatalf("%v", s)
	}
	// Another device (another seed) at the same path is refused.
	other, _ := standin.Start("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about")
	defer other.Close()
	if _, err := kr.Signer(context.Background(), "hw", keys.OnceDialer(other.Addr())); err == nil || !strings.Contains(err.Error(), "right device") {
		t.Fatalf("error %v", err)
	}
}

func TestLedgerSigner(t *testing.T) {
	srv, err := standin.Start(testMnemonic)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	spec := keys.Spec{Ledger: true, LedgerSpeculos: srv.Addr(), Account: 1, Expect: dev1}
	s, err := keys.Open(ctx, keys.Operator, spec)
	if err != nil {
		t.Fatal(err)
	}
	signBytes := keys.FormatEIP191([]byte(`{"account_number":"1","chain_id":"wasm-1","fee":{"amount":[{"amount":"10","denom":"umin"}],"gas":"100000"},"memo":"","msgs":[],"sequence":"4"}`))
	sig, err := s.SignCosmos(ctx, signBytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(sig) != 64 || !s.PubKey().VerifySignature(signBytes, sig) {
		t.Fatalf("signature %x does not verify over the EIP-191 sign bytes", sig)
	}
	if _, err := s.SignCosmos(ctx, []byte("direct sign bytes")); err == nil {
		t.Fatal("the Ledger signed direct-mode bytes")
	}
	srv.RejectNext()
	if _, err := s.SignCosmos(ctx, signBytes); !ledger.Rejected(err) {
		t.Fatalf("error %v, want a rejection", err)
	}
	spec.Expect = dev0
	if _, err := keys.Open(ctx, keys.Operator, spec); err == nil || !strings.Contains(err.Error(), dev1) {
		t.Fatalf("error %v", err)
	}
	spec.Expect, spec.HDPath = "", "m/44'/60'/0'/0/0"
	if s, err := keys.Open(ctx, keys.Operator, spec); err != nil || s.Address().Hex() != dev0 {
		t.Fatalf("--hd-path: %v %v", s, err)
	}
}

func TestOpen(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	_, err := keys.Open(ctx, keys.Deployer, keys.Spec{From: "a", Ledger: true})
	var se *keys.SourcesError
	if !errors.As(err, &se) || se.Role != keys.Deployer || strings.Join(se.Sources, ", ") != "keyring key a, a Ledger" {
		t.Fatalf("error %v, want a SourcesError naming the keyring key and the Ledger", err)
	}
	if _, err := keys.Open(ctx, keys.Deployer, keys.Spec{}); !errors.Is(err, keys.ErrNoKey) {
		t.Fatalf("error %v, want ErrNoKey", err)
	}
	t.Setenv("MNEMONIC", testMnemonic)
	s, err := keys.Open(ctx, keys.Operator, keys.Spec{KeyType: vip.Secp256k1})
	if err != nil || s.KeyType() != vip.Secp256k1 {
		t.Fatalf("%v %v", s, err)
	}
	_, err = keys.Open(ctx, keys.Deployer, keys.Spec{Ledger: true, LedgerSpeculos: "127.0.0.1:1"})
	if err == nil || !strings.Contains(err.Error(), "Speculos") {
		t.Fatalf("error %v", err)
	}
}

// Both kinds of signer satisfy what the router's EVM signer needs.
var _ interface {
	SignPersonal(ctx context.Context, msg []byte) ([]byte, error)
} = keys.Signer(nil)

func TestSignPersonalAgrees(t *testing.T) {
	srv, err := standin.Start(testMnemonic)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	l, err := keys.Open(ctx, keys.Deployer, keys.Spec{Ledger: true, LedgerSpeculos: srv.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := keys.FromMnemonic(testMnemonic, keys.EVMPath(0))
	s, _ := a.Signer(vip.EthSecp256k1)
	msg := []byte("op hook sign doc")
	x, err1 := l.SignPersonal(ctx, msg)
	y, err2 := s.SignPersonal(ctx, msg)
	if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
		t.Fatalf("ledger %x (%v), software %x (%v)", x, err1, y, err2)
	}
}

// The router's EVM signer takes any of these signers.
var _ router.KeySigner = keys.Signer(nil)
