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

// FindEventTx is FindTx for the first successful tx matching query that holds an event of
// evType whose attributes satisfy match (attr is an attribute's value by key, "" when the
// event has none): how a retried finalize finds the tx that finalized its stage.
func (c *Client) FindEventTx(ctx context.Context, query, evType string, match func(attr func(key string) string) bool) (string, error) {
	return c.FindTx(ctx, query, func(events []abci.Event) bool {
		for _, ev := range events {
			if ev.Type == evType && match(func(key string) string { return attrOf(ev, key) }) {
				return true
			}
		}
		return false
	})
}

// attrOf is the value of ev's first attribute key, or "".
func attrOf(ev abci.Event, key string) string {
	for _, a := range ev.Attributes {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}
