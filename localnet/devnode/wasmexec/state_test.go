package wasmexec_test

import (
	"encoding/hex"
	"strings"
	"testing"
)

// A contract's raw state and the contracts an account created, as wasmd's gateway answers
// them (Initia.js wasm.allContractState and wasm.contractsByCreator).
func TestAllContractStateAndContractsByCreator(t *testing.T) {
	tn := start(t)
	contract := tn.deploy(t, 1)
	base := tn.node.RESTURL()

	status, body := getJSON(t, base, "/cosmwasm/wasm/v1/contract/"+contract+"/state")
	models, _ := body["models"].([]any)
	if status != 200 || len(models) == 0 {
		t.Fatalf("state: HTTP %d %v", status, body)
	}
	for _, m := range models {
		key, _ := m.(map[string]any)["key"].(string)
		// wasmd's Model.key is HexBytes: upper-case hex in the gateway's JSON.
		if _, err := hex.DecodeString(key); err != nil || key != strings.ToUpper(key) {
			t.Errorf("model key %q is not wasmd's hex", key)
		}
	}
	if status, body = getJSON(t, base, "/cosmwasm/wasm/v1/contract/"+tn.keys[1].Address+"/state"); status != 500 || body["code"] != 2.0 || !strings.Contains(body["message"].(string), "no such contract") {
		// wasmd's ErrNoSuchContract is registered with no gRPC code: the gateway's 500, code 2.
		t.Errorf("state of an account: HTTP %d %v, want wasmd's no such contract", status, body)
	}

	status, body = getJSON(t, base, "/cosmwasm/wasm/v1/contracts/creator/"+tn.keys[0].Address)
	if got, _ := body["contract_addresses"].([]any); status != 200 || len(got) != 1 || got[0] != contract {
		t.Fatalf("by creator: HTTP %d %v, want [%s]", status, body, contract)
	}
	status, body = getJSON(t, base, "/cosmwasm/wasm/v1/contracts/creator/"+tn.keys[1].Address)
	if got, ok := body["contract_addresses"].([]any); status != 200 || !ok || len(got) != 0 {
		t.Errorf("by a creator of none: HTTP %d %v, want an empty list", status, body)
	}
	if status, body = getJSON(t, base, "/cosmwasm/wasm/v1/contracts/creator/init1nope"); status != 400 || body["code"] != 3.0 {
		t.Errorf("malformed creator: HTTP %d %v, want 400 code 3", status, body)
	}
}
