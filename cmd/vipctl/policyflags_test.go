package main

import (
	"path/filepath"
	"testing"
)

// audit --policy, operate --policy, registry --policy and whitelist --policy refuse bad
// input (exit 2) before they dial anything.
func TestPolicyFlagsRefuseBadInput(t *testing.T) {
	good := filepath.Join("..", "..", "fixtures", "policies", "demo-token.yaml")
	chain := []string{"--rpc", "http://127.0.0.1:1", "--l1-rest", "http://127.0.0.1:1", "--vip-address", "0x1"}
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"audit: a policy that is not there", append([]string{"audit", "--policy", "nope.yaml", "--stage", "1", "--bridge-id", "1"}, chain...), "--policy: read policy"},
		{"audit: --policy with --l1-proofs", append([]string{"audit", "--policy", good, "--stage", "1", "--bridge-id", "1", "--l1-proofs", "p.jsonl"}, chain...), "--l1-proofs and --allow-open are for an audit of the contract alone"},
		{"audit: an undeclared param", append([]string{"audit", "--policy", good, "--stage", "1", "--bridge-id", "1", "--param", "pool=0x1"}, chain...), "param pool: the policy declares no such param"},
		{"operate: --policy without --bridge-id", append([]string{"operate", "--policy", good, "--once"}, chain...), "--policy needs --bridge-id"},
		{"operate: --policy and --file", append([]string{"operate", "--policy", good, "--bridge-id", "1", "--file", "s.csv", "--once"}, chain...), "pass one score source"},
		{"registry: --policy and --vip-action", []string{"registry", "--policy", good, "--vip-action", "Play: rounds", "--name", "x"}, "--policy and --vip-action both name"},
		{"registry: a policy that is not there", []string{"registry", "--policy", "nope.yaml", "--name", "x"}, "--policy: read policy"},
		{"whitelist: a malformed param", []string{"whitelist", "--network", "mainnet", "--policy", good, "--param", "token"}, `--param "token": want name=value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantRefused(t, tc.args, tc.says)
		})
	}
}
