package deployer

import "context"

// FinalizeFinder finds, in the chain's events, the transaction that finalized a stage; a
// retried finalize reports it instead of sending. Every Scorer is one.
type FinalizeFinder interface {
	// FinalizeTx returns the hash of the tx that finalized stage, or "" when none is found.
	FinalizeTx(ctx context.Context, stage uint64) (string, error)
}

var _ FinalizeFinder = (*Scorer)(nil)
