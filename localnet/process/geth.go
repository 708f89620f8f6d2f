package process

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/gethdev"
)

// GethRollup is `geth --dev` run as a child process.
type GethRollup struct {
	*gethdev.Face
	node   *node
	bin    string
	args   []string
	logger *slog.Logger
}

var _ localnet.Rollup = (*GethRollup)(nil)

// StartGeth runs geth from bin in a fresh temporary home and waits until it answers.
func StartGeth(ctx context.Context, bin string, logger *slog.Logger) (_ *GethRollup, err error) {
	home, err := os.MkdirTemp("", "vipharness-geth-")
	if err != nil {
		return nil, fmt.Errorf("geth home: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(home)
		}
	}()
	httpPort, authPort, err := gethdev.Prepare(ctx, bin, home)
	if err != nil {
		return nil, err
	}
	args := gethdev.Args(filepath.Join(home, "data"), httpPort, authPort)
	n, err := start("geth", bin, home, logger, args...)
	if err != nil {
		return nil, err
	}
	ready, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	face, err := gethdev.Attach(ready, fmt.Sprintf("http://127.0.0.1:%d", httpPort), func() error {
		if exited, werr := n.exited(); exited {
			return fmt.Errorf("geth exited before it was ready (%v); last log lines:\n%s", werr, lastLines(n.Logs(), 20))
		}
		return nil
	})
	if err != nil {
		_ = n.stop(10 * time.Second)
		return nil, err
	}
	return &GethRollup{Face: face, node: n, bin: bin, args: args, logger: logger}, nil
}

// Restart stops geth (its chain persists in its home) and starts it again on the same
// ports, for specs that prove a deployer rides out a node restart. down is how long the
// node stays away.
func (r *GethRollup) Restart(ctx context.Context, down time.Duration) error {
	if err := r.node.stop(10 * time.Second); err != nil {
		return fmt.Errorf("restart geth: %w", err)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(down):
	}
	n, err := start("geth", r.bin, r.node.home, r.logger, r.args...)
	if err != nil {
		return fmt.Errorf("restart geth: %w", err)
	}
	r.node = n
	if err := r.Face.WaitReady(ctx); err != nil {
		if exited, werr := n.exited(); exited {
			return fmt.Errorf("restart geth: exited (%v); last log lines:\n%s", werr, lastLines(n.Logs(), 20))
		}
		return fmt.Errorf("restart geth: %w", err)
	}
	return nil
}

// Logs is the tail of geth's log, for failed specs.
func (r *GethRollup) Logs() string { return r.node.Logs() }

// Stop stops geth by PID and removes its home.
func (r *GethRollup) Stop(ctx context.Context) error {
	return errors.Join(r.Face.Close(), r.node.stop(10*time.Second), os.RemoveAll(r.node.home))
}
