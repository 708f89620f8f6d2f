package conformance

import (
	"context"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
)

// Probes a VM's Contract may offer beyond deployer.Contract.
type (
	mismatchProber interface {
		SimulateMismatch(ctx context.Context, stage uint64) error
	}
	eventReader interface {
		TxEventNames(ctx context.Context, txHash string) ([]string, error)
	}
)

// SubjectFor is the Subject of a VM's Scorer: its address generator (0x addresses, or bech32
// of the chain's prefix) and the probes the Scorer offers. stranger may be nil.
func SubjectFor(s *deployer.Scorer, stranger func(ctx context.Context, contract string) (Target, error)) Subject {
	sub := Subject{Scorer: s, Stranger: stranger, Generate: scores.Generate}
	if prefix := s.Bech32Prefix(); prefix != "" {
		sub.Generate = func(n int, seed int64) []scores.Entry { return scores.GenerateBech32(n, seed, prefix) }
	}
	if m, ok := deployer.As[mismatchProber](s); ok {
		sub.Mismatch = m.SimulateMismatch
	}
	if e, ok := deployer.As[eventReader](s); ok {
		sub.Events = e.TxEventNames
	}
	return sub
}
