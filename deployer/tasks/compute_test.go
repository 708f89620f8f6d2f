package tasks

import (
	"errors"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Each unusable option is refused by its field name before anything is read.
func TestComputeOptionsValidated(t *testing.T) {
	evm := &policy.Policy{Name: "demo", VM: "evm"}
	move := &policy.Policy{Name: "arena", VM: "move"}
	good := ComputeOptions{Policy: evm, Stage: 3, BridgeID: 1, JSONRPC: "http://127.0.0.1:8545", L1REST: "http://127.0.0.1:1317", VIPModule: "0x1"}
	for _, tc := range []struct {
		name  string
		edit  func(*ComputeOptions)
		field string // "" when valid
		says  string
	}{
		{"valid", func(*ComputeOptions) {}, "", ""},
		{"no policy", func(o *ComputeOptions) { o.Policy = nil }, "Policy", "no policy"},
		{"stage 0", func(o *ComputeOptions) { o.Stage = 0 }, "Stage", "stage >= 1"},
		{"no L1", func(o *ComputeOptions) { o.VIPModule = "" }, "L1REST and VIPModule", "vip module"},
		{"policy of no VM", func(o *ComputeOptions) { o.Policy = &policy.Policy{Name: "x", VM: "solana"} }, "Policy.VM", "policy x"},
		{"another VM", func(o *ComputeOptions) { o.VM = vip.Wasm }, "VM", "the policy demo's vm is evm"},
		{"the same VM", func(o *ComputeOptions) { o.VM = vip.EVM }, "", ""},
		{"EVM without JSON-RPC", func(o *ComputeOptions) { o.JSONRPC = "" }, "JSONRPC", "JSON-RPC"},
		{"Move without CometBFT or indexer", func(o *ComputeOptions) { o.Policy = move }, "CometRPC or Indexer", "a move policy"},
		{"Move from the indexer", func(o *ComputeOptions) { o.Policy, o.Indexer = move, "http://127.0.0.1:9" }, "", ""},
		{"Move from CometBFT", func(o *ComputeOptions) { o.Policy, o.CometRPC = move, "http://127.0.0.1:26657" }, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := good
			tc.edit(&o)
			got, err := o.Validated()
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got.LogSpan != DefaultLogSpan {
					t.Fatalf("log span %d, want the default %d", got.LogSpan, DefaultLogSpan)
				}
				return
			}
			var ce *deployer.ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %v; want a ConfigError of %s saying %q", err, tc.field, tc.says)
			}
		})
	}
}
