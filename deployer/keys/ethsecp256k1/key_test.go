package ethsecp256k1_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
)

func TestKeyMatchesEthereum(t *testing.T) {
	eth, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	key, err := ethsecp256k1.NewPrivKey(crypto.FromECDSA(eth))
	if err != nil {
		t.Fatal(err)
	}
	pub := key.PubKey()
	if !bytes.Equal(pub.Address(), crypto.PubkeyToAddress(eth.PublicKey).Bytes()) {
		t.Fatalf("address %X, want %s", pub.Address(), crypto.PubkeyToAddress(eth.PublicKey))
	}
	if !bytes.Equal(pub.Bytes(), crypto.CompressPubkey(&eth.PublicKey)) || len(pub.Bytes()) != ethsecp256k1.PubKeySize {
		t.Fatalf("compressed key %X", pub.Bytes())
	}

	msg := []byte("sign bytes of a tx")
	sig, err := key.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	// The signature is go-ethereum's over Keccak-256(msg) (R || S || V with V in {0,1}).
	want, err := crypto.Sign(crypto.Keccak256(msg), eth)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sig, want) {
		t.Fatalf("signature %X, want %X", sig, want)
	}
	if !pub.VerifySignature(msg, sig) || !pub.VerifySignature(msg, sig[:64]) {
		t.Fatal("own signature does not verify")
	}
	if pub.VerifySignature([]byte("other bytes"), sig) {
		t.Fatal("signature verifies another message")
	}
	// Direct-mode verification hashes the bytes as they are: an EIP-191 signature is another one.
	eip191, _ := crypto.Sign(crypto.Keccak256([]byte(fmt.Sprintf("\x19Ethereum Signed Message:\n%d%s", len(msg), msg))), eth)
	if pub.VerifySignature(msg, eip191) {
		t.Fatal("EIP-191 signature verifies in direct mode")
	}
	if pub.Type() != "eth_secp256k1" || !pub.Equals(pub) {
		t.Fatal("type/equals")
	}
}
