package main

import (
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
)

// The env file names both accounts a Wasm dev node funds for the mnemonic, and only the one
// where a single one is funded; its comment lines hold no '=' (readers split K=V lines).
func TestFundedLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		dev  localnet.Account
		want []string
		not  []string
	}{
		{"wasm dev node: 118 and 60", localnet.Account{Address: "init1a", CoinType60Address: "init1b"},
			[]string{"export FUNDED_ADDRESS=init1a\n", "export FUNDED_ADDRESS_COIN_TYPE_60=init1b\n", "coin type 118 secp256k1", "coin type 60 eth_secp256k1"}, nil},
		{"one funded account", localnet.Account{Address: "init1a"},
			[]string{"export FUNDED_ADDRESS=init1a\n"}, []string{"COIN_TYPE_60", "#"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fundedLines(tc.dev)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("%q holds %q", got, n)
				}
			}
			for _, line := range strings.Split(got, "\n") {
				if strings.HasPrefix(line, "#") && strings.Contains(line, "=") {
					t.Errorf("comment line %q holds '='", line)
				}
			}
		})
	}
}

// The env file of an EVM localnet carries what the official forge recipe reads: PRIVATE_KEY
// as 0x hex beside MNEMONIC, INIT_STAGE, and the WebSocket endpoint; other VMs keep their
// one key line and get INIT_STAGE.
func TestEnvFileCarriesTheRecipesInputs(t *testing.T) {
	ep := localnet.Endpoints{JSONRPC: "http://127.0.0.1:1", JSONRPCWS: "ws://127.0.0.1:1"}
	withPhrase := localnet.Account{Address: "0xabc", Mnemonic: "word word", PrivateKey: "00ff"}
	for _, tc := range []struct {
		name string
		got  string
		want []string
		not  []string
	}{
		{"evm, mnemonic", devKeyLines(vip.EVM, withPhrase) + recipeLines(vip.EVM, ep, 7),
			[]string{"export MNEMONIC=\"word word\"\n", "export PRIVATE_KEY=0x00ff\n", "export INIT_STAGE=7\n", "export JSON_RPC_WS_URL=ws://127.0.0.1:1\n"}, nil},
		{"evm, key only (geth --dev)", devKeyLines(vip.EVM, localnet.Account{PrivateKey: "00ff"}),
			[]string{"export PRIVATE_KEY=0x00ff\n"}, []string{"MNEMONIC"}},
		{"wasm", devKeyLines(vip.Wasm, withPhrase) + recipeLines(vip.Wasm, localnet.Endpoints{}, 3),
			[]string{"export MNEMONIC=", "export INIT_STAGE=3\n"}, []string{"PRIVATE_KEY", "JSON_RPC_WS_URL"}},
		{"move, key only", devKeyLines(vip.Move, localnet.Account{PrivateKey: "00ff"}),
			[]string{"export PRIVATE_KEY=00ff\n"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				if !strings.Contains(tc.got, w) {
					t.Errorf("%q lacks %q", tc.got, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(tc.got, n) {
					t.Errorf("%q holds %q", tc.got, n)
				}
			}
		})
	}
}
