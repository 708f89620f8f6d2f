package wasm

import (
	"context"
	"fmt"
	"strings"
)

// TxEventNames lists the contract's custom events (`wasm-<kind>`) in a tx's result, in order.
func (s *Scorer) TxEventNames(ctx context.Context, txHash string) ([]string, error) {
	res, err := s.c.GetTx(ctx, txHash)
	if err != nil {
		return nil, fmt.Errorf("tx %s: %w", txHash, err)
	}
	var names []string
	for _, ev := range res.Events {
		if !strings.HasPrefix(ev.Type, "wasm-") {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key == "_contract_address" && a.Value == s.contract {
				names = append(names, ev.Type)
				break
			}
		}
	}
	return names, nil
}
