package cosmostx

import (
	"context"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
)

// FindEventTx returns the hash of the first successful tx matching query (the node's
// tx_search language, e.g. "wasm-finalize-stage.stage='5'") that holds an event of evType
// whose attributes satisfy match (attr is an attribute's value by key, "" when the event has
// none), or "" when there is none: how a retried finalize finds the tx that finalized its
// stage.
func (c *Client) FindEventTx(ctx context.Context, query, evType string, match func(attr func(key string) string) bool) (string, error) {
	return c.Node.FindTx(ctx, query, func(events []cosmosnode.Event) bool {
		for i := range events {
			if ev := &events[i]; ev.Type == evType && match(ev.Attr) {
				return true
			}
		}
		return false
	})
}
