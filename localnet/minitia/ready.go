package minitia

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vipharness/vipharness/deployer/vip"
)

// ReadyPrefix starts the one line a dev node binary (cmd/devnode) prints on stdout once it
// serves; the rest of the line is Ready as JSON. The process and container engines wait for
// it and learn the node's endpoints from it.
const ReadyPrefix = "devnode ready "

// Ready is what a started dev node binary reports.
type Ready struct {
	VM       string   `json:"vm"`
	ChainID  string   `json:"chain_id"`
	Prefix   string   `json:"bech32_prefix"`
	CometRPC string   `json:"comet_rpc"`
	REST     string   `json:"rest"`
	Funded   []string `json:"funded"` // addresses only; keys stay with whoever chose the mnemonics
	// KeyType is the funded accounts' key kind (empty: secp256k1).
	KeyType vip.KeyType `json:"key_type,omitempty"`
	// AlsoFunded are the mnemonics' accounts of AlsoKeyType, funded too, in Funded's order.
	AlsoFunded  []string    `json:"also_funded,omitempty"`
	AlsoKeyType vip.KeyType `json:"also_key_type,omitempty"`
	// JSONRPC and JSONRPCWS are an EVM rollup's Ethereum JSON-RPC URLs (HTTP, WebSocket).
	JSONRPC   string `json:"json_rpc,omitempty"`
	JSONRPCWS string `json:"json_rpc_ws,omitempty"`
}

// Line is the ready line, without a newline.
func (r Ready) Line() string {
	b, _ := json.Marshal(r)
	return ReadyPrefix + string(b)
}

// FindReady looks for the ready line in a node's output.
func FindReady(output string) (Ready, bool, error) {
	for _, line := range strings.Split(output, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), ReadyPrefix)
		if !ok {
			continue
		}
		var r Ready
		if err := json.Unmarshal([]byte(rest), &r); err != nil {
			return Ready{}, false, fmt.Errorf("dev node ready line %q: %w", line, err)
		}
		return r, true, nil
	}
	return Ready{}, false, nil
}
