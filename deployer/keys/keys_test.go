package keys

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/cosmos/cosmos-sdk/crypto/hd"
	"github.com/ethereum/go-ethereum/crypto"
)

// The well-known development mnemonic and the accounts every Ethereum tool derives from it.
const devMnemonic = "test test test test test test test test test test test junk"

func TestFromMnemonicMatchesKnownVectors(t *testing.T) {
	tests := []struct {
		index uint32
		want  string
	}{
		{0, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"},
		{1, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
		{2, "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"},
	}
	for _, tt := range tests {
		a, err := FromMnemonic(devMnemonic, EVMPath(tt.index))
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Address().Hex(); got != tt.want {
			t.Errorf("index %d: address %s, want %s", tt.index, got, tt.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	const hexKey = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" // dev index 0
	tests := []struct {
		name    string
		env     map[string]string
		role    Role
		want    string
		problem string
	}{
		{"private key", map[string]string{"PRIVATE_KEY": "0x" + hexKey}, Deployer, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", ""},
		{"mnemonic with index", map[string]string{"MNEMONIC": devMnemonic, "MNEMONIC_INDEX": "1"}, Deployer, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", ""},
		{"operator falls back to deployer", map[string]string{"PRIVATE_KEY": hexKey}, Operator, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", ""},
		{"operator's own mnemonic", map[string]string{"PRIVATE_KEY": hexKey, "OPERATOR_MNEMONIC": devMnemonic, "OPERATOR_MNEMONIC_INDEX": "2"}, Operator, "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", ""},
		{"nothing", nil, Deployer, "", "no key"},
		{"both, one account", map[string]string{"PRIVATE_KEY": "0x" + hexKey, "MNEMONIC": devMnemonic}, Deployer, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", ""},
		{"both, two accounts", map[string]string{"PRIVATE_KEY": hexKey, "MNEMONIC": devMnemonic, "MNEMONIC_INDEX": "1"}, Deployer, "",
			"PRIVATE_KEY (0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266) and MNEMONIC index 1 (0x70997970C51812dc3A010C7d01b50e0d17dc79C8) are different accounts"},
		{"both, operator's differ", map[string]string{"OPERATOR_PRIVATE_KEY": hexKey, "OPERATOR_MNEMONIC": devMnemonic, "OPERATOR_MNEMONIC_INDEX": "2"}, Operator, "",
			"OPERATOR_PRIVATE_KEY (0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266) and OPERATOR_MNEMONIC index 2 (0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC)"},
		{"both, the key is bad", map[string]string{"PRIVATE_KEY": "zz" + hexKey[2:], "MNEMONIC": devMnemonic}, Deployer, "", "PRIVATE_KEY: not a 32-byte hex"},
		{"bad hex", map[string]string{"PRIVATE_KEY": "zz" + hexKey[2:]}, Deployer, "", "PRIVATE_KEY: not a 32-byte hex"},
		{"bad mnemonic", map[string]string{"MNEMONIC": "test test test test test test test test test test test test"}, Deployer, "", "not a valid BIP39 mnemonic (12 words)"},
		{"bad index", map[string]string{"MNEMONIC": devMnemonic, "MNEMONIC_INDEX": "-1"}, Deployer, "", "MNEMONIC_INDEX"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []string{"PRIVATE_KEY", "MNEMONIC", "MNEMONIC_INDEX", "OPERATOR_PRIVATE_KEY", "OPERATOR_MNEMONIC", "OPERATOR_MNEMONIC_INDEX"} {
				t.Setenv(v, tt.env[v])
			}
			a, err := FromEnv(tt.role)
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("error = %v, want it to mention %q", err, tt.problem)
				}
				for _, secret := range tt.env {
					if len(secret) > 8 && strings.Contains(err.Error(), secret) {
						t.Fatalf("error leaks a secret: %v", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Address().Hex(); got != tt.want {
				t.Fatalf("address %s, want %s", got, tt.want)
			}
		})
	}
}

// WithPath derives on the Cosmos path; the SDK's own derivation must agree with ours.
func TestFromEnvWithCosmosPath(t *testing.T) {
	t.Setenv("PRIVATE_KEY", "")
	t.Setenv("MNEMONIC", devMnemonic)
	t.Setenv("MNEMONIC_INDEX", "3")
	a, err := FromEnv(Deployer, WithPath(CosmosPath))
	if err != nil {
		t.Fatal(err)
	}
	want, err := hd.Secp256k1.Derive()(devMnemonic, "", "m/44'/118'/0'/0/3")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Secret(), want) {
		t.Fatal("coin type 118 key differs from the Cosmos SDK's derivation")
	}
	evm, err := FromEnv(Deployer)
	if err != nil || bytes.Equal(evm.Secret(), want) {
		t.Fatalf("default path must stay coin type 60: %v", err)
	}
}

func TestAccountNeverShowsItsSecret(t *testing.T) {
	a, phrase, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if len(strings.Fields(phrase)) != 24 {
		t.Fatalf("new mnemonic has %d words", len(strings.Fields(phrase)))
	}
	again, err := FromMnemonic(phrase, EVMPath(0))
	if err != nil || again.Address() != a.Address() {
		t.Fatalf("recovering a new mnemonic gave %v, %v", again, err)
	}
	secret := fmt.Sprintf("%x", crypto.FromECDSA(a.PrivateKey()))
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("account", "acct", a)
	for _, shown := range []string{fmt.Sprint(a), fmt.Sprintf("%v %+v %#v %s", a, a, a, a), logs.String()} {
		if strings.Contains(shown, secret) || strings.Contains(shown, phrase) {
			t.Fatalf("secret shown in %q", shown)
		}
		if !strings.Contains(shown, a.Address().Hex()) {
			t.Fatalf("address missing from %q", shown)
		}
	}
}

func TestParsePath(t *testing.T) {
	p, err := ParsePath("m/44'/60'/0'/0/7")
	if err != nil || p.String() != EVMPath(7).String() {
		t.Fatalf("ParsePath = %v, %v", p, err)
	}
	for _, bad := range []string{"44'/60'", "m/x", "m/4294967295"} {
		if _, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) accepted", bad)
		}
	}
	if CosmosPath(0).String() != "m/44'/118'/0'/0/0" {
		t.Fatal(CosmosPath(0).String())
	}
}
