package sidebyside_test

import (
	"context"
	"encoding/json"

	"net/http"
	"strings"

	"github.com/vipharness/vipharness/localnet"
)

// cometProbes ask CometBFT's RPC what a client's mistakes and everyday reads ask; every
// rollup answers it (the embedded EVM through its stand-in face). An error is compared by
// its HTTP status, JSON-RPC code, message and data (masked), a result by the shape at field.
var cometProbes = []probe{
	cometCall("RPC a tx that is not there", "/tx?hash=0x"+strings.Repeat("AB", 32), ""),
	cometCall("RPC a block past the head", "/block?height=999999", ""),
	cometCall("RPC block results past the head", "/block_results?height=999999", ""),
	cometCall("RPC a commit past the head", "/commit?height=999999", ""),
	cometCall("RPC the consensus params", "/consensus_params", "consensus_params"),
	cometCall("RPC abci_query of an unknown path", "/abci_query?path=%22/no/such/path%22", "response"),
	cometCall("RPC broadcast_tx_sync of garbage", "/broadcast_tx_sync?tx=0x1234", ""),
	cometCall("RPC tx_search with a malformed query", "/tx_search?query=%22tx.height%3D%3D%22", ""),
	cometCall("RPC tx_search of no tx", "/tx_search?query=%22tx.height%3D999999%22", ""),
	cometCall("RPC the blockchain's first blocks", "/blockchain?minHeight=1&maxHeight=2", "block_metas"),
	cometCall("RPC validators past the head", "/validators?height=999999", ""),
	cometCall("RPC unconfirmed txs", "/unconfirmed_txs", ""),
}

func cometCall(name, path, field string) probe {
	return probe{name: name, ask: func(ctx context.Context, r localnet.Rollup) (answer, error) {
		status, b, err := roundTrip(ctx, http.MethodGet, r.Endpoints().CometRPC+path, nil)
		if err != nil {
			return answer{}, err
		}
		var v struct {
			Result any `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Data    string `json:"data"`
			} `json:"error"`
		}
		a := answer{Status: status}
		if json.Unmarshal(b, &v) != nil {
			a.Shape = "text " + masked(firstLine(string(b)))
			return a, nil
		}
		if v.Error != nil {
			a.Code, a.Message = v.Error.Code, masked(v.Error.Message)
			a.Value = masked(v.Error.Data)
			return a, nil
		}
		if field == "" {
			a.Shape = shape(v.Result)
		} else {
			a.Shape = shape(dig(v.Result, field))
		}
		return a, nil
	}}
}
