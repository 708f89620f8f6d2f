package minitiad

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cosmos/cosmos-sdk/types/bech32"
)

// The bridge's L1 account is a 32-byte module-derived address, one per bridge id, and the
// genesis edit leaves opchild knowing the bridge with the executor as its operator.
func TestGenesisBridge(t *testing.T) {
	a, b := Bridge{ID: 1}.Address(), Bridge{ID: 2}.Address()
	if hrp, bz, err := bech32.DecodeAndConvert(a); err != nil || hrp != "init" || len(bz) != 32 || a == b {
		t.Fatalf("bridge 1 at %s (%v), bridge 2 at %s", a, err, b)
	}
	genesis := `{"app_state":{"opchild":{"params":{"bridge_executors":[""],"admin":"","min_gas_prices":[]},"bridge_info":null}}}`
	out, err := setGenesisBridge([]byte(genesis), Bridge{ID: 9, L1ChainID: "vip-l1-1"}, "init1executor")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AppState struct {
			Opchild struct {
				Params struct {
					BridgeExecutors []string `json:"bridge_executors"`
					Admin           string   `json:"admin"`
				} `json:"params"`
				BridgeInfo struct {
					BridgeID     string `json:"bridge_id"`
					BridgeAddr   string `json:"bridge_addr"`
					L1ChainID    string `json:"l1_chain_id"`
					BridgeConfig struct {
						Proposer  string `json:"proposer"`
						BatchInfo struct {
							ChainType string `json:"chain_type"`
						} `json:"batch_info"`
					} `json:"bridge_config"`
				} `json:"bridge_info"`
			} `json:"opchild"`
		} `json:"app_state"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	op := doc.AppState.Opchild
	if op.BridgeInfo.BridgeID != "9" || op.BridgeInfo.BridgeAddr != (Bridge{ID: 9}).Address() || op.BridgeInfo.L1ChainID != "vip-l1-1" ||
		op.BridgeInfo.BridgeConfig.Proposer != "init1executor" || op.BridgeInfo.BridgeConfig.BatchInfo.ChainType != "INITIA" {
		t.Errorf("bridge_info %+v", op.BridgeInfo)
	}
	if strings.Join(op.Params.BridgeExecutors, ",") != "init1executor" || op.Params.Admin != "init1executor" {
		t.Errorf("params %+v", op.Params)
	}
	if _, err := setGenesisBridge([]byte(`{"app_state":{}}`), Bridge{ID: 1}, "x"); err == nil || !strings.Contains(err.Error(), "is this a minitia") {
		t.Errorf("a genesis without opchild: %v", err)
	}
}
