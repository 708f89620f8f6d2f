package main

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/operate"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
)

const testMnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

// What localnet up writes, operate reads back: the one writer and the one parser agree,
// and a malformed file is refused whole with the line's number, never its text (a file
// holds keys).
func TestParseEnv(t *testing.T) {
	dev := localnet.Account{Address: "0xabc", Mnemonic: testMnemonic, PrivateKey: "00ff"}
	written := "export VM=evm\nexport JSON_RPC_URL=http://127.0.0.1:8545\n" + devKeyLines(vip.EVM, dev) +
		recipeLines(vip.EVM, localnet.Endpoints{JSONRPCWS: "ws://127.0.0.1:8546"}, 4)
	for _, tc := range []struct {
		name    string
		in      string
		want    map[string]string
		wantErr string
	}{
		{"localnet's file", written, map[string]string{"VM": "evm", "JSON_RPC_URL": "http://127.0.0.1:8545",
			"MNEMONIC": testMnemonic, "PRIVATE_KEY": "0x00ff", "INIT_STAGE": "4", "FUNDED_ADDRESS": "0xabc"}, ""},
		{"no export, comments, quotes, last wins", "# a comment\n\nA=1\nB='x y'\n  export C = \"q\\\"\"\nA=2\nE=\n",
			map[string]string{"A": "2", "B": "x y", "C": `q"`, "E": ""}, ""},
		{"empty file", "", map[string]string{}, ""},
		{"no final newline: still being written", "A=1\nMNEMONIC=\"" + testMnemonic, nil, "no newline"},
		{"no '='", "A=1\nMNEMONIC " + testMnemonic + "\n", nil, "line 2: not KEY=VALUE"},
		{"not a name", "1A=x\n", nil, "line 1: not a variable name"},
		{"open double quote", "MNEMONIC=\"" + testMnemonic + "\n", nil, "line 1: MNEMONIC: the double-quoted value"},
		{"open single quote", "MNEMONIC='" + testMnemonic + "\n", nil, "line 1: MNEMONIC: the single-quoted value"},
		{"unquoted words", "MNEMONIC=" + testMnemonic + "\n", nil, "line 1: MNEMONIC: an unquoted value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseEnv([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "abandon") {
					t.Fatalf("the error shows the file's text: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if len(tc.want) == 0 && len(got) != 0 {
				t.Errorf("got %v", got)
			}
		})
	}
}

// testOptions are operate's shared options with args parsed, as operate's flags hold them.
func testOptions(t *testing.T, args ...string) *chainOptions {
	t.Helper()
	o := newChainOptions()
	cmd := o.addFlags(&cobra.Command{Use: "t"}, rollupFlags, l1Flags)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return o
}

// A flag wins over the env file, the file over the environment, the environment over the
// default; the L1 settings resolve the same way (a flag and the file never "disagree").
func TestEnvFilePrecedence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		file    map[string]string
		wantRPC string
		wantL1  string
		wantVM  string
	}{
		{"the file fills what no flag gave", nil, nil,
			map[string]string{"JSON_RPC_URL": "http://file:1", "L1_REST_URL": "http://l1file:1", "VM": "wasm"}, "http://file:1", "http://l1file:1", "wasm"},
		{"a flag wins", []string{"--rpc", "http://flag:1", "--l1-rest", "http://l1flag:1", "--vm", "move"}, nil,
			map[string]string{"JSON_RPC_URL": "http://file:1", "L1_REST_URL": "http://l1file:1", "VM": "wasm"}, "http://flag:1", "http://l1flag:1", "move"},
		{"the file wins over the environment", nil, map[string]string{"JSON_RPC_URL": "http://env:1", "L1_REST_URL": "http://l1env:1"},
			map[string]string{"JSON_RPC_URL": "http://file:1", "L1_REST_URL": "http://l1file:1"}, "http://file:1", "http://l1file:1", "evm"},
		{"the environment fills what the file lacks", nil, map[string]string{"JSON_RPC_URL": "http://env:1", "L1_REST_URL": "http://l1env:1", "VM": "move"},
			map[string]string{}, "http://env:1", "http://l1env:1", "move"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"VM", "JSON_RPC_URL", "L1_REST_URL", "NETWORK"} {
				t.Setenv(k, tc.env[k])
			}
			t.Setenv("VIP_MODULE_ADDRESS", "0x1")
			c := testOptions(t, tc.args...).withEnvFile(tc.file)
			if c.rpc != tc.wantRPC || c.vm != tc.wantVM {
				t.Errorf("rpc %q vm %q, want %q %q", c.rpc, c.vm, tc.wantRPC, tc.wantVM)
			}
			src, err := c.l1Source(true)
			if err != nil {
				t.Fatal(err)
			}
			if src.REST.Value != tc.wantL1 {
				t.Errorf("L1 REST %q (%s), want %q", src.REST.Value, src.REST.From, tc.wantL1)
			}
		})
	}
}

// Before each pass operate reads its env file again: an unchanged file changes nothing; a
// new endpoint is wanted and logged; a malformed or unusable file is logged once and the
// endpoints wanted are kept; a changed key alone is no change; a changed fixed setting
// stops operate (exit 2). No log line holds a key.
func TestEnvFollowerRereads(t *testing.T) {
	const base = "export VM=evm\nexport L1_REST_URL=http://127.0.0.1:1317\nexport VIP_MODULE_ADDRESS=0x1\nexport MNEMONIC=\"" + testMnemonic + "\"\n"
	rpc := func(url string) string { return base + "export JSON_RPC_URL=" + url + "\n" }
	for _, tc := range []struct {
		name     string
		next     string
		wantRPC  string // the endpoint wanted after the read
		wantLog  string // "" for no log line
		wantStop bool
	}{
		{"unchanged", rpc("http://127.0.0.1:8545"), "http://127.0.0.1:8545", "", false},
		{"only the key changed", rpc("http://127.0.0.1:8545") + "export PRIVATE_KEY=0x00ff\n", "http://127.0.0.1:8545", "", false},
		{"a new endpoint", rpc("http://127.0.0.1:9545"), "http://127.0.0.1:9545", "endpoints changed", false},
		{"a URL's secrets are not logged", rpc("http://u:secretpw@127.0.0.1:9545/?apikey=secretkey"), "http://u:secretpw@127.0.0.1:9545/?apikey=secretkey", "endpoints changed", false},
		{"malformed", rpc("http://127.0.0.1:9545") + "MNEMONIC " + testMnemonic + "\n", "http://127.0.0.1:8545", "env file unusable", false},
		{"half written", strings.TrimSuffix(rpc("http://127.0.0.1:9545"), "\n"), "http://127.0.0.1:8545", "env file unusable", false},
		{"an endpoint the VM needs is gone", base, "http://127.0.0.1:8545", "cannot be used", false},
		{"another VM", strings.Replace(rpc("http://127.0.0.1:8545"), "VM=evm", "VM=wasm", 1), "http://127.0.0.1:8545", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"VM", "JSON_RPC_URL", "L1_REST_URL", "VIP_MODULE_ADDRESS", "NETWORK", "CONTRACT_ADDRESS", "KEY_TYPE"} {
				t.Setenv(k, "")
			}
			path := filepath.Join(t.TempDir(), "localnet.env")
			write := func(s string) {
				if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write(rpc("http://127.0.0.1:8545"))
			first, err := readEnvFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			o := testOptions(t)
			c := o.withEnvFile(first.vals)
			f := &envFollower{path: path, logger: slog.New(slog.NewTextHandler(&logs, nil)), base: o, cfg: deployer.Config{VM: vip.EVM},
				seen: first.version(nil), want: c, inUse: c, close: func() {}}

			write(tc.next)
			err = f.reread()
			var se *operate.StopError
			if stopped := errors.As(err, &se); stopped != tc.wantStop || (err != nil && !tc.wantStop) {
				t.Fatalf("err %v, want a stop: %v", err, tc.wantStop)
			}
			if tc.wantStop && !refusal(err) {
				t.Fatalf("a stop must exit 2: %v", err)
			}
			if err := f.reread(); err != nil { // a second read of one version does nothing more
				t.Fatal(err)
			}
			if f.want.rpc != tc.wantRPC {
				t.Errorf("wanted endpoint %q, want %q", f.want.rpc, tc.wantRPC)
			}
			if f.inUse.rpc != "http://127.0.0.1:8545" {
				t.Errorf("the endpoint in use changed without a reopen: %q", f.inUse.rpc)
			}
			got := logs.String()
			switch {
			case tc.wantLog == "" && got != "":
				t.Errorf("logged %q", got)
			case tc.wantLog != "" && strings.Count(got, tc.wantLog) != 1:
				t.Errorf("log %q, want %q once", got, tc.wantLog)
			}
			for _, secret := range []string{"abandon", "secretpw", "secretkey", "00ff"} {
				if strings.Contains(got, secret) {
					t.Errorf("the log holds %q: %s", secret, got)
				}
			}
		})
	}
}
