package deployer

import "context"

// FinalizeFinder is implemented by Scorers that can find, in the chain's events, the
// transaction that finalized a stage; a retried finalize reports it instead of sending.
type FinalizeFinder interface {
	// FinalizeTx returns the hash of the tx that finalized stage, or "" when none is found.
	FinalizeTx(ctx context.Context, stage uint64) (string, error)
}
