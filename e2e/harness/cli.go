package harness

import (
	"encoding/hex"
)

// VipctlEnv is the environment vipctl needs to operate this Env's contract as the operator:
// the VM, its endpoints, the operator key and the L1 stand-in. It overrides whatever the
// test process's own environment holds.
func (e *Env) VipctlEnv() []string {
	ep := e.Rollup.Endpoints()
	env := []string{"VM=" + string(e.Target.VM), "PRIVATE_KEY=" + hex.EncodeToString(e.operator), "MNEMONIC=", "KEY_TYPE=",
		"JSON_RPC_URL=" + ep.JSONRPC, "COMET_RPC_URL=" + ep.CometRPC, "REST_URL=" + ep.REST, "CONTRACT_ADDRESS=",
		"L1_REST_URL=" + e.L1.URL(), "VIP_MODULE_ADDRESS=" + e.L1.VIPAddress(), "NETWORK=", "INIT_STAGE=", "OPERATOR_PRIVATE_KEY=", "OPERATOR_MNEMONIC="}
	if e.chain == nil { // an EVM rollup: vipctl must not take its Cosmos faces for the VM's
		env = append(env, "COMET_RPC_URL=", "REST_URL=")
	}
	return env
}

// OperatorSecret is the operator key as hex, for tests that must prove it is never printed.
func (e *Env) OperatorSecret() string { return hex.EncodeToString(e.operator) }
