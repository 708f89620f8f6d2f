package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeMinitia answers what registry and whitelist read from a rollup's REST, its OPinit
// bridge_info included.
func fakeMinitia(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cosmos/base/tendermint/v1beta1/node_info":
			fmt.Fprint(w, `{"default_node_info":{"network":"rollup-1"},"application_version":{"name":"miniwasm","app_name":"minitiad","version":"v1.1.0"}}`)
		case "/cosmos/auth/v1beta1/bech32":
			fmt.Fprint(w, `{"bech32_prefix":"init"}`)
		case "/cosmos/base/node/v1beta1/config":
			fmt.Fprint(w, `{"minimum_gas_price":"0.015000000000000000umin"}`)
		case "/opinit/opchild/v1/bridge_info":
			fmt.Fprint(w, `{"bridge_info":{"bridge_id":"41","bridge_addr":"init15zs69gay5kn2029f4246etdw47ctrv4nkj6mddachxath09ah6lstd0jep","l1_chain_id":"interwoven-1"}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func runVipctl(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// Without --op-bridge-id / --bridge-id and --bridge-address, the rollup's bridge_info fills
// them in.
func TestBridgeFromTheRollup(t *testing.T) {
	rest := fakeMinitia(t)
	dir := t.TempDir()
	env := map[string]string{"REST_URL": rest, "VM": "", "NETWORK": "", "JSON_RPC_URL": ""}
	if out, err := runVipctl(t, env, "--network", "mainnet", "registry", "--name", "rollup", "--pretty-name", "Rollup", "--public-rpc", "https://rpc.rollup.example",
		"--public-rest", "https://rest.rollup.example", "--category", "Gaming", "--description", "A rollup for tests.", "--logo", "https://rollup.example/logo.png",
		"--out", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	chain, err := os.ReadFile(filepath.Join(dir, "mainnets", "rollup", "chain.json"))
	if err != nil || !strings.Contains(string(chain), `"op_bridge_id": "41"`) || !strings.Contains(string(chain), `"fixed_min_gas_price": 0.015`) {
		t.Fatalf("%s %v", chain, err)
	}

	policy := filepath.Join(dir, "policy.md")
	if err := os.WriteFile(policy, []byte("score = trades"), 0o644); err != nil {
		t.Fatal(err)
	}
	kit := filepath.Join(dir, "kit")
	if out, err := runVipctl(t, env, "--network", "testnet", "--vm", "wasm", "whitelist", "--out", kit, "--name", "Rollup", "--chain-id", "rollup-1",
		"--operator", "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7", "--contract", "init15zs69gay5kn2029f4246etdw47ctrv4nkj6mddachxath09ah6lstd0jep",
		"--max-rate", "0.1", "--max-change-rate", "0.01", "--rate", "0.1"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	note, err := os.ReadFile(filepath.Join(kit, "testnet-note.md"))
	if err != nil || !strings.Contains(string(note), "| Bridge ID | `41` |") || !strings.Contains(string(note), "init15zs69gay5kn2029f4246etdw47ctrv4nkj6mddachxath09ah6lstd0jep") {
		t.Fatalf("%s %v", note, err)
	}
}
