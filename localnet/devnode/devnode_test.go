package devnode

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/cosmos/cosmos-sdk/types/bech32"

	"github.com/vipharness/vipharness/deployer/keys"
)

// The well-known development mnemonic; its first coin-type-60 account is the address every
// Ethereum toolchain funds (0xf39F...2266), which the committed Move module is built for.
const devMnemonic = "test test test test test test test test test test test junk"

func TestDeriveAccountFollowsEachKeyTypesPath(t *testing.T) {
	eth, err := DeriveAccount(devMnemonic, keys.EthSecp256k1, "init")
	if err != nil {
		t.Fatal(err)
	}
	_, bz, err := bech32.DecodeAndConvert(eth.Address)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(bz); got != "f39fd6e51aad88f6f4ce6ab8827279cfffb92266" {
		t.Fatalf("eth_secp256k1 account %s (%s), want the well-known 0xf39f...2266", eth.Address, got)
	}
	cosmos, err := DeriveAccount(devMnemonic, keys.Secp256k1, "wasm")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cosmos.Address, "wasm1") || cosmos.PrivateKey == eth.PrivateKey {
		t.Fatalf("secp256k1 account %s must use its own path (coin type 118) and prefix", cosmos.Address)
	}
	secret, _ := hex.DecodeString(eth.PrivateKey)
	if !bytes.Equal(eth.Key.Bytes(), secret) || eth.Key.Type() != "eth_secp256k1" || eth.Mnemonic != devMnemonic {
		t.Fatalf("account %+v does not carry its key", eth.Address)
	}
	if _, err := DeriveAccount("not a mnemonic", keys.Secp256k1, "init"); err == nil {
		t.Fatal("a malformed mnemonic derives an account")
	}
}

func TestReadyLineRoundTrips(t *testing.T) {
	r := Ready{VM: "move", ChainID: "devnode-1", Prefix: "init", CometRPC: "http://127.0.0.1:1", REST: "http://127.0.0.1:2", Funded: []string{"init1x"}, KeyType: keys.EthSecp256k1}
	got, ok, err := FindReady("starting\n" + r.Line() + "\nserving\n")
	if err != nil || !ok || got.ChainID != r.ChainID || got.KeyType != r.KeyType || len(got.Funded) != 1 {
		t.Fatalf("ready %+v %v %v", got, ok, err)
	}
	if _, ok, err := FindReady("no ready line here\n"); ok || err != nil {
		t.Fatalf("found a ready line in none: %v %v", ok, err)
	}
	if _, _, err := FindReady(ReadyPrefix + "{broken\n"); err == nil {
		t.Fatal("a broken ready line is accepted")
	}
}
