package process

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/gethdev"
	"github.com/vipharness/vipharness/localnet/movevm"
	"github.com/vipharness/vipharness/localnet/wasmddev"
)

// Engine starts rollups as child processes from the binaries `make nodes` builds.
type Engine struct {
	// NodesDir holds the node binaries; default $VIPHARNESS_NODES, else .cache/nodes in the
	// checkout, then <user cache dir>/vipharness/nodes (localnet.CacheDirs).
	NodesDir string
	Logger   *slog.Logger
	// WasmNode picks the Wasm node: Wasmd (default) or DevNode, the project's own.
	WasmNode string
}

// Wasm nodes the engine can run.
const (
	Wasmd   = "wasmd"
	DevNode = "devnode"
)

var _ localnet.Engine = Engine{}

// Name is "process", or "process-devnode" when the dev node stands in for wasmd.
func (e Engine) Name() string {
	if e.WasmNode == DevNode {
		return "process-devnode"
	}
	return "process"
}

// nodesDirs are the folders searched for node binaries, in order.
func (e Engine) nodesDirs() []string {
	if e.NodesDir != "" {
		return []string{e.NodesDir}
	}
	if d := os.Getenv("VIPHARNESS_NODES"); d != "" {
		return []string{d}
	}
	return localnet.CacheDirs("nodes")
}

// Binary locates a node binary in NodesDir, else $PATH.
func (e Engine) Binary(name string) (string, error) { return findBinary(e.nodesDirs(), name) }

// Available reports whether the engine can run vm here, and why not.
func (e Engine) Available(_ context.Context, vm deployer.VM) error {
	switch vm {
	case deployer.EVM:
		_, err := findBinary(e.nodesDirs(), gethdev.Binary)
		return err
	case deployer.Wasm:
		_, err := findBinary(e.nodesDirs(), e.wasmBinary())
		return err
	case deployer.Move:
		if _, err := findBinary(e.nodesDirs(), DevNodeBinary); err != nil {
			return err
		}
		_, err := movevm.OpenVM(movevm.Dir())
		return err
	}
	return fmt.Errorf("process engine: no %s node yet", vm)
}

// StartRollup starts a node for vm.
func (e Engine) StartRollup(ctx context.Context, vm deployer.VM) (localnet.Rollup, error) {
	logger := e.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	switch vm {
	case deployer.EVM:
		bin, err := findBinary(e.nodesDirs(), gethdev.Binary)
		if err != nil {
			return nil, fmt.Errorf("process engine: %w", err)
		}
		return StartGeth(ctx, bin, logger)
	case deployer.Wasm:
		bin, err := findBinary(e.nodesDirs(), e.wasmBinary())
		if err != nil {
			return nil, fmt.Errorf("process engine: %w", err)
		}
		if e.WasmNode == DevNode {
			return StartDevNode(ctx, bin, vm, logger)
		}
		return StartWasmd(ctx, bin, logger)
	case deployer.Move:
		// The dev node binary with the MoveVM is the Move node here (no minimove binary).
		bin, err := findBinary(e.nodesDirs(), DevNodeBinary)
		if err != nil {
			return nil, fmt.Errorf("process engine: %w", err)
		}
		return StartDevNode(ctx, bin, vm, logger)
	}
	return nil, fmt.Errorf("process engine: no %s node yet", vm)
}

func (e Engine) wasmBinary() string {
	if e.WasmNode == DevNode {
		return DevNodeBinary
	}
	return wasmddev.Binary
}
