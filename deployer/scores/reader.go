package scores

import (
	"context"

	"github.com/vipharness/vipharness/deployer/vip"
)

// StagePager reads a stage page by page: rows whose addresses are the bytes Codec decodes
// the VM's text form to.
type StagePager interface {
	Codec() Codec
	ScorePages(ctx context.Context, stage uint64, each func(page []Row) error) error
}

// StageReader reads a stage as the contract holds it: its row, and its scores page by page
// (every VM's Scorer is one; verify, audit and the policy comparison read through it).
type StageReader interface {
	StagePager
	StageInfo(ctx context.Context, stage uint64) (vip.StageInfo, error)
}
