// Package agent is a local VIP agent beside the L1 stand-in: it snapshots each stage that a
// rollup's scoring contract has finalized and the L1 has moved past, as the VIP agent does
// (the contract's scores read back page by page, the tree built by deployer/operation/audit, the root
// and total sent in submit_snapshot signed by the agent's key). It keeps no state of its
// own: what the L1 already holds is skipped, so a restarted agent carries on.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/l1"
)

// Agent snapshots one bridge's stages.
type Agent struct {
	l1       *l1.Server
	reader   *l1node.Reader
	bridgeID uint64
	open     func(ctx context.Context) (scores.StageReader, error)
	poll     time.Duration
	logger   *slog.Logger
}

// Option configures an Agent.
type Option func(*Agent)

// WithPoll sets how often Run looks for stages to snapshot (default 500 ms).
func WithPoll(d time.Duration) Option { return func(a *Agent) { a.poll = d } }

// WithLogger sets the agent's logger.
func WithLogger(l *slog.Logger) Option { return func(a *Agent) { a.logger = l } }

// ErrNoContract is what open returns while the rollup has no scoring contract yet: the
// agent waits.
var ErrNoContract = errors.New("no scoring contract yet")

// New snapshots bridgeID's stages on srv; open gives the rollup's scoring contract (each
// pass calls it; ErrNoContract means not deployed yet).
func New(srv *l1.Server, bridgeID uint64, open func(ctx context.Context) (scores.StageReader, error), opts ...Option) *Agent {
	a := &Agent{l1: srv, reader: l1node.NewReader(srv.URL(), srv.VIPAddress(), nil), bridgeID: bridgeID, open: open,
		poll: 500 * time.Millisecond, logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Step snapshots every stage that is due now, in order: from the bridge's first stage, each
// stage behind the L1's current one that the contract has finalized and the L1 has no
// snapshot of. It stops at the first stage the contract has not finalized.
func (a *Agent) Step(ctx context.Context) ([]uint64, error) {
	r, err := a.open(ctx)
	if errors.Is(err, ErrNoContract) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("agent: open the scoring contract: %w", err)
	}
	bridge, err := a.reader.Bridge(ctx, a.bridgeID)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	current, err := a.l1.Stage(ctx)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	var done []uint64
	for st := bridge.InitStage; st < current; st++ {
		_, err := a.reader.Snapshot(ctx, a.bridgeID, bridge.Version, st)
		if err == nil {
			continue
		}
		if !errors.Is(err, l1node.ErrNoSnapshot) {
			return done, fmt.Errorf("agent: %w", err)
		}
		tree, _, err := audit.BuildFromStage(ctx, r, a.bridgeID, st, false)
		if errors.Is(err, audit.ErrNotFinalized) || errors.Is(err, vip.ErrStageMissing) {
			return done, nil // the operator has not finalized it yet
		}
		if err != nil {
			return done, fmt.Errorf("agent: %w", err)
		}
		root := tree.Root()
		if err := a.l1.SubmitSnapshot(ctx, a.bridgeID, bridge.Version, st, root[:], tree.Total); err != nil {
			return done, fmt.Errorf("agent: stage %d: %w", st, err)
		}
		a.logger.Info("snapshot submitted", "bridge", a.bridgeID, "version", bridge.Version, "stage", st, "root", root.String(), "total", tree.Total, "leaves", tree.Len())
		done = append(done, st)
	}
	return done, nil
}

// Run steps every poll until ctx ends; a failed step is logged and retried.
func (a *Agent) Run(ctx context.Context) {
	t := time.NewTicker(a.poll)
	defer t.Stop()
	for {
		if _, err := a.Step(ctx); err != nil && ctx.Err() == nil {
			a.logger.Warn("agent step failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
