// Package ethnode is the EVM side of the node-client layer: Client, the one EVM JSON-RPC
// client here (go-ethereum's, with lean receipts, batches and the index lag typed); the
// answers of Ethereum JSON-RPC nodes that every caller must read the same way (geth's index
// lag, minievm's bare revert and its fee-payer rule), matched in one place; and plain
// JSON-RPC reads for probes.
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
	return errors.Is(err, ErrIndexLag) || err != nil && strings.Contains(err.Error(), indexLag)
}

// ReceiptPending reports a lookup that found nothing yet: an unknown hash, or a node whose
// tx index is still catching up.
func ReceiptPending(err error) bool {
	return errors.Is(err, ethereum.NotFound) || IndexLagging(err)
}

// RevertedWithoutData reports a node's answer that a call reverted with no revert data:
// Initia's minievm answers eth_call {"code":-32000,"message":"Reverted"} and eth_estimateGas
// "failed to execute message; message index: 0: Reverted"; a geth-like node that drops the
// data says "execution reverted".
func RevertedWithoutData(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return msg == "Reverted" || strings.HasSuffix(msg, ": Reverted") || msg == "execution reverted"
}

// NoFeePayer reports minievm's refusal to estimate or simulate from an address that has no
// account ("fee payer address: ... does not exist").
func NoFeePayer(err error) bool {
	return err != nil && strings.Contains(err.Error(), "fee payer address") && strings.Contains(err.Error(), "does not exist")
}
