package cosmostx

import (
	"context"
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"
)

// FindTx returns the hash of the first successful tx matching the CometBFT event query
// whose events satisfy match, or "" when there is none. Queries are the node's tx_search
// language, e.g. "wasm-finalize-stage.stage='5'".
func (c *Client) FindTx(ctx context.Context, query string, match func([]abci.Event) bool) (string, error) {
	page, perPage := 1, 100
	for {
		res, err := c.RPC.TxSearch(ctx, query, false, &page, &perPage, "asc")
		if err != nil {
			return "", fmt.Errorf("tx_search %q: %w", query, err)
		}
		for _, tx := range res.Txs {
			if tx.TxResult.Code == 0 && match(tx.TxResult.Events) {
				return fmt.Sprintf("%X", tx.Hash), nil
			}
		}
		if len(res.Txs) < perPage || page*perPage >= res.TotalCount {
			return "", nil
		}
		page++
	}
}

// EventAttr is the value of key in the first event of eventType that has it and satisfies
// also (nil: any), or "".
func EventAttr(events []abci.Event, eventType, key string, also func(abci.Event) bool) string {
	for _, ev := range events {
		if ev.Type != eventType || (also != nil && !also(ev)) {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key == key {
				return a.Value
			}
		}
	}
	return ""
}
