package main

import (
	"strings"
	"testing"

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
