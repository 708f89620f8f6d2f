// Package ethnode names the answers of Ethereum JSON-RPC nodes that every client here must
// read the same way: one place, so a node's wording is matched once.
package ethnode

import (
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum"
)

// indexLag is geth's answer to a receipt or tx lookup while its tx indexer catches up with
// its newest blocks.
const indexLag = "transaction indexing is in progress"

// IndexLagging reports a lookup the node could not answer yet because its tx index is still
// catching up: not found for now, not for good.
func IndexLagging(err error) bool {
	return err != nil && strings.Contains(err.Error(), indexLag)
}

// ReceiptPending reports a lookup that found nothing yet: an unknown hash, or a node whose
// tx index is still catching up.
func ReceiptPending(err error) bool {
	return errors.Is(err, ethereum.NotFound) || IndexLagging(err)
}
