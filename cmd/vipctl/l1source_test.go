package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	mainnetVIP  = "0x3a886b32a802582f2e446e74d4a24d1d7ed01adf46d2a8f65c5723887e708789"
	mainnetREST = "https://rest.initia.xyz"
	localVIP    = "0xf1"
	localREST   = "http://127.0.0.1:26617"
)

// A flag and the environment that disagree on the L1 are refused with both values named;
// agreeing sources, one source alone, and two flags (an explicit override) resolve.
func TestResolveL1(t *testing.T) {
	for _, tc := range []struct {
		name      string
		flag, env l1Values
		needREST  bool
		wantVIP   string
		wantREST  string
		wantFrom  string
		wantErr   []string // substrings of the refusal; nil: resolves
	}{
		{name: "--network preset vs the environment's VIP_MODULE_ADDRESS (a sourced localnet.env)",
			flag: l1Values{Network: "mainnet"}, env: l1Values{VIP: localVIP},
			wantErr: []string{"--network mainnet", mainnetVIP, "VIP_MODULE_ADDRESS", localVIP}},
		{name: "--vip-address vs VIP_MODULE_ADDRESS",
			flag: l1Values{VIP: "0xabc"}, env: l1Values{VIP: localVIP},
			wantErr: []string{"--vip-address 0xabc", "VIP_MODULE_ADDRESS=" + localVIP}},
		{name: "--l1-rest vs L1_REST_URL", needREST: true,
			flag: l1Values{REST: mainnetREST}, env: l1Values{REST: localREST},
			wantErr: []string{"--l1-rest " + mainnetREST, "L1_REST_URL=" + localREST}},
		{name: "--network preset vs the environment's L1_REST_URL", needREST: true,
			flag: l1Values{Network: "mainnet", VIP: mainnetVIP}, env: l1Values{REST: localREST},
			wantErr: []string{"--network mainnet", mainnetREST, "L1_REST_URL", localREST}},
		{name: "--network vs NETWORK",
			flag: l1Values{Network: "mainnet"}, env: l1Values{Network: "testnet"},
			wantErr: []string{"--network mainnet", "NETWORK=testnet"}},
		{name: "the environment's NETWORK vs --vip-address",
			flag: l1Values{VIP: localVIP}, env: l1Values{Network: "testnet"},
			wantErr: []string{"NETWORK=testnet", "--vip-address", localVIP}},
		{name: "the L1 REST URL is not checked when the command does not read the L1",
			flag: l1Values{Network: "mainnet"}, env: l1Values{REST: localREST},
			wantVIP: mainnetVIP, wantFrom: "--network mainnet"},
		{name: "the preset alone", needREST: true, flag: l1Values{Network: "Mainnet"},
			wantVIP: mainnetVIP, wantREST: mainnetREST, wantFrom: "--network mainnet"},
		{name: "the environment alone (the localnet)", needREST: true, env: l1Values{REST: localREST, VIP: localVIP},
			wantVIP: localVIP, wantREST: localREST, wantFrom: "VIP_MODULE_ADDRESS"},
		{name: "flag and environment agree, spelled differently",
			flag: l1Values{Network: "mainnet", VIP: "0x03A886B32A802582F2E446E74D4A24D1D7ED01ADF46D2A8F65C5723887E708789"}, env: l1Values{VIP: mainnetVIP},
			wantVIP: "0x03A886B32A802582F2E446E74D4A24D1D7ED01ADF46D2A8F65C5723887E708789", wantFrom: "--vip-address"},
		{name: "two flags: an explicit override of the preset", needREST: true,
			flag:    l1Values{Network: "testnet", VIP: localVIP, REST: localREST},
			wantVIP: localVIP, wantREST: localREST, wantFrom: "--vip-address"},
		{name: "an unknown preset", flag: l1Values{Network: "devnet"},
			wantErr: []string{"--network", `unknown network "devnet"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := resolveL1(tc.flag, tc.env, tc.needREST)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("resolved %+v, want a refusal", src)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("refusal %q does not name %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if src.VIP.Value != tc.wantVIP || src.REST.Value != tc.wantREST || src.VIP.From != tc.wantFrom {
				t.Fatalf("got VIP %q from %q, REST %q; want VIP %q from %q, REST %q", src.VIP.Value, src.VIP.From, src.REST.Value, tc.wantVIP, tc.wantFrom, tc.wantREST)
			}
		})
	}
}

// The reported case: after `source .vipharness/localnet.env`, `vipctl whitelist --network
// mainnet` is refused (exit 2) naming both addresses and writes nothing; without the stale
// variable it writes the proposal for the mainnet VIP module and says so.
func TestWhitelistRefusesTheLocalnetVIPAddressOnMainnet(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.md")
	if err := os.WriteFile(policy, []byte("score = trades"), 0o644); err != nil {
		t.Fatal(err)
	}
	kit := filepath.Join(dir, "kit")
	args := []string{"--network", "mainnet", "--vm", "move", "whitelist", "--out", kit, "--name", "Rollup", "--chain-id", "rollup-1",
		"--operator", "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7", "--bridge-id", "7", "--bridge-address", "0xb7", "--contract", "0xcafe",
		"--max-rate", "0.2", "--max-change-rate", "0.01", "--rate", "0.05", "--proposer", "team", "--tldr", "t", "--scoring-policy", policy,
		"--deposit", "100000000uinit"}
	env := map[string]string{"NETWORK": "", "VM": "", "REST_URL": "", "L1_REST_URL": localREST, "VIP_MODULE_ADDRESS": localVIP}

	out, err := runVipctl(t, env, args...)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitInvalid {
		t.Fatalf("want exit %d, got %v\n%s", exitInvalid, err, out)
	}
	for _, w := range []string{mainnetVIP, "VIP_MODULE_ADDRESS", localVIP} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal %q does not name %q", err, w)
		}
	}
	if _, statErr := os.Stat(kit); !os.IsNotExist(statErr) {
		t.Fatalf("a refused whitelist wrote %s (%v)", kit, statErr)
	}

	env["VIP_MODULE_ADDRESS"] = ""
	out, err = runVipctl(t, env, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "for mainnet, VIP module "+mainnetVIP+" (from --network mainnet)") {
		t.Fatalf("the output does not say which network and VIP module it wrote for:\n%s", out)
	}
	proposal, err := os.ReadFile(filepath.Join(kit, "proposal.json"))
	if err != nil || !strings.Contains(string(proposal), mainnetVIP) {
		t.Fatalf("proposal.json does not call the mainnet VIP module: %v\n%s", err, proposal)
	}
}
