package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scores compute refuses bad input (exit 2) before it dials anything: missing flags, a
// malformed --param, a param the policy does not declare, and a policy that does not pass
// its checks, named by line.
func TestScoresComputeInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "..", "fixtures", "policies", "demo-token.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("policy: 1\nname: x\nvm: evm\nactions: []\nsources: []\nrules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"scores", "compute", "--rpc", "http://127.0.0.1:1", "--l1-rest", "http://127.0.0.1:1", "--vip-address", "0x1"}
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"no policy", []string{"--stage", "1", "--bridge-id", "1"}, "--policy is required"},
		{"no stage", []string{"--policy", good, "--bridge-id", "1"}, "--stage is required"},
		{"no bridge id", []string{"--policy", good, "--stage", "1"}, "--bridge-id is required"},
		{"a param without a value", []string{"--policy", good, "--stage", "1", "--bridge-id", "1", "--param", "token"}, `--param "token": want name=value`},
		{"an undeclared param", []string{"--policy", good, "--stage", "1", "--bridge-id", "1", "--param", "pool=0x1"}, "param pool: the policy declares no such param"},
		{"a policy failing its schema", []string{"--policy", bad, "--stage", "1", "--bridge-id", "1"}, "line 4: /actions: minItems"},
		{"a VM without policy sources", []string{"--policy", good, "--stage", "1", "--bridge-id", "1", "--vm", "wasm"}, "the policy demo-token's vm is evm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantRefused(t, append(base, tc.args...), tc.says)
		})
	}
}

// --check reads no chain: it prints the policy's digest, sources (with the event's topic 0
// and the function's selector), rules and actions.
func TestScoresComputeCheck(t *testing.T) {
	root := newRoot()
	var out strings.Builder
	root.SetArgs([]string{"--state-dir", t.TempDir(), "scores", "compute", "--check", "--policy", filepath.Join("..", "..", "fixtures", "policies", "demo-token.yaml")})
	root.SetOut(&out)
	root.SetErr(io.Discard)
	if err := execute(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"policy demo-token: sha256:",
		"(topic0 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef)",
		"play(uint256) on 0x0000000000000000000000000000000000000000 (selector 0x6898f82b)",
		"rule holding: time_weighted_balance of balances, weight 1",
		`action "Play": Every round you enter earns five points.`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
