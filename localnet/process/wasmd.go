package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/wasmddev"
)

// WasmdRollup is a single-validator wasmd chain run as a child process.
type WasmdRollup struct {
	node     *node
	bin      string
	logger   *slog.Logger
	rpc      string
	rest     string
	accounts []localnet.Account
}

var _ localnet.Rollup = (*WasmdRollup)(nil)

// StartWasmd initializes a fresh wasmd home and runs the chain until it makes blocks and
// serves REST.
func StartWasmd(ctx context.Context, bin string, logger *slog.Logger) (_ *WasmdRollup, err error) {
	home, err := os.MkdirTemp("", "vipharness-wasmd-")
	if err != nil {
		return nil, fmt.Errorf("wasmd home: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(home)
		}
	}()
	accounts, p, err := wasmddev.Prepare(ctx, bin, home)
	if err != nil {
		return nil, err
	}
	rpc, rest := p.URLs()
	r := &WasmdRollup{bin: bin, logger: logger, accounts: accounts, rpc: rpc, rest: rest}
	if r.node, err = start("wasmd", bin, home, logger, wasmddev.Args(home)...); err != nil {
		return nil, err
	}
	if err := r.waitReady(ctx); err != nil {
		_ = r.node.stop(10 * time.Second)
		return nil, err
	}
	return r, nil
}

// waitReady waits for the first block and a REST answer.
func (r *WasmdRollup) waitReady(ctx context.Context) error {
	ready, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	var last error
	for {
		if exited, werr := r.node.exited(); exited {
			return fmt.Errorf("wasmd exited before it was ready (%v); last log lines:\n%s", werr, lastLines(r.node.Logs(), 20))
		}
		if last = r.probe(ready); last == nil {
			return nil
		}
		select {
		case <-ready.Done():
			return fmt.Errorf("wasmd not ready: %w (last check: %v); last log lines:\n%s", ready.Err(), last, lastLines(r.node.Logs(), 20))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (r *WasmdRollup) probe(ctx context.Context) error {
	body, err := get(ctx, r.rpc+"/status")
	if err != nil {
		return err
	}
	if h, ok := wasmddev.Height(body); !ok || h == "0" {
		return errors.New("no block yet")
	}
	_, err = get(ctx, r.rest+"/cosmos/base/tendermint/v1beta1/node_info")
	return err
}

// Get reads url's body (at most 1 MiB), an error unless the status is 200: how the engines
// probe a node they started.
func Get(ctx context.Context, url string) ([]byte, error) { return get(ctx, url) }

func get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	return b, nil
}

// VM is Wasm.
func (r *WasmdRollup) VM() vip.VM { return vip.Wasm }

// ChainID is wasmddev.ChainID.
func (r *WasmdRollup) ChainID() string { return wasmddev.ChainID }

// Endpoints are CometBFT RPC and the Cosmos REST gateway.
func (r *WasmdRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{CometRPC: r.rpc, REST: r.rest}
}

// Funded are test accounts funded at genesis (secp256k1, coin type 118, prefix "wasm").
func (r *WasmdRollup) Funded() []localnet.Account { return r.accounts }

// Logs is the tail of wasmd's log, for failed specs.
func (r *WasmdRollup) Logs() string { return r.node.Logs() }

// Restart stops wasmd (its chain persists in its home) and starts it again.
func (r *WasmdRollup) Restart(ctx context.Context, down time.Duration) error {
	if err := r.node.stop(10 * time.Second); err != nil {
		return fmt.Errorf("restart wasmd: %w", err)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(down):
	}
	n, err := start("wasmd", r.bin, r.node.home, r.logger, wasmddev.Args(r.node.home)...)
	if err != nil {
		return fmt.Errorf("restart wasmd: %w", err)
	}
	r.node = n
	return r.waitReady(ctx)
}

// Stop stops wasmd by PID and removes its home.
func (r *WasmdRollup) Stop(ctx context.Context) error {
	return errors.Join(r.node.stop(15*time.Second), os.RemoveAll(r.node.home))
}
