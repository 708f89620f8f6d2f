package main

import (
	"testing"

	"github.com/vipharness/vipharness/deployer/conformance"
	"github.com/vipharness/vipharness/deployer/registration/preflight"
)

// A preflight finding reaches the operator with the flags and commands that act on it.
func TestPreflightFixNamesTheFlags(t *testing.T) {
	tests := []struct {
		name string
		f    preflight.Finding
		want string
	}{
		{"the VM to pass", preflight.Finding{Fix: "target the rollup's VM", Inputs: []preflight.Input{preflight.InVM}, Value: "move"},
			"target the rollup's VM: pass --vm move"},
		{"two endpoints", preflight.Finding{Fix: "point them at one rollup", Inputs: []preflight.Input{preflight.InCometRPC, preflight.InREST}},
			"point them at one rollup: pass --comet-rpc (COMET_RPC_URL), --rest (REST_URL)"},
		{"the L1", preflight.Finding{Fix: "give the L1", Inputs: []preflight.Input{preflight.InL1}},
			"give the L1: pass --network mainnet|testnet (or --l1-rest and --vip-address)"},
		{"a deploy", preflight.Finding{Fix: "deploy first, or fix the contract address", Inputs: []preflight.Input{preflight.InContract}, Then: preflight.ActDeploy},
			"deploy first, or fix the contract address: pass --contract (vipctl deploy)"},
		{"finalize", preflight.Finding{Fix: "finalize stages 3..4", Then: preflight.ActFinalize},
			"finalize stages 3..4 (vipctl stage finalize, or vipctl operate)"},
		{"words only", preflight.Finding{Fix: `set indexer = "kv"`}, `set indexer = "kv"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := preflightFix(tc.f); got != tc.want {
				t.Fatalf("preflightFix = %q, want %q", got, tc.want)
			}
		})
	}
}

// A check's remedy reaches the operator as the flags or the command that apply it.
func TestCheckAdviceNamesTheRemedy(t *testing.T) {
	rep := conformance.Report{Checks: []conformance.Result{
		{Name: "behind", Detail: "finalizing stages 5..6 brings it level", Then: conformance.SyncStages},
		{Name: "no l1", Detail: "no L1 given", Then: conformance.GiveL1},
		{Name: "plain", Detail: "both at stage 5"},
	}}
	checkAdvice(&rep)
	want := []string{"finalizing stages 5..6 brings it level (`vipctl stage sync`)", "no L1 given (--l1-rest and --vip-address, or --network)", "both at stage 5"}
	for i, c := range rep.Checks {
		if c.Detail != want[i] {
			t.Errorf("%s: %q, want %q", c.Name, c.Detail, want[i])
		}
	}
}
