package process

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/vipharness/vipharness/deployer/vip"
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
	// Node picks the Wasm and EVM nodes: the upstream ones (default: wasmd, geth) or
	// DevNode, the project's own (the minitia app: x/wasm, and x/evm as a minievm is built).
	// Move always runs on the dev node.
	Node string
	// BlockTime is the interval between blocks of the project's own node (0: its default).
	BlockTime time.Duration
}

// Node choices.
const (
	Wasmd   = "wasmd"
	DevNode = "devnode"
)

var _ localnet.Engine = Engine{}

// Name is "process", or "process-devnode" when the dev node stands in for wasmd and geth.
func (e Engine) Name() string {
	if e.Node == DevNode {
		return "process-devnode"
	}
	return "process"
}

// nodesDirs are the folders searched for node binaries, in order.
func (e Engine) nodesDirs() []string { return NodesDirs(e.NodesDir) }

// NodesDirs are the folders the engines search for node binaries, in order: dir when set,
// else $VIPHARNESS_NODES, else the cache folders (.cache/nodes in a checkout, the user's).
func NodesDirs(dir string) []string {
	if dir != "" {
		return []string{dir}
	}
	if d := os.Getenv("VIPHARNESS_NODES"); d != "" {
		return []string{d}
	}
	return localnet.CacheDirs("nodes")
}

// Binary locates a node binary in NodesDir, else $PATH.
func (e Engine) Binary(name string) (string, error) { return findBinary(e.nodesDirs(), name) }

// Available reports whether the engine can run vm here, and why not.
func (e Engine) Available(_ context.Context, vm vip.VM) error {
	n, ok := e.nodes()[vm]
	if !ok {
		return fmt.Errorf("process engine: no %s node yet", vm)
	}
	if _, err := findBinary(e.nodesDirs(), n.binary); err != nil {
		return err
	}
	if n.moveVM {
		_, err := movevm.OpenVM(movevm.Dir())
		return err
	}
	return nil
}

// StartRollup starts a node for vm.
func (e Engine) StartRollup(ctx context.Context, vm vip.VM) (localnet.Rollup, error) {
	logger := e.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	n, ok := e.nodes()[vm]
	if !ok {
		return nil, fmt.Errorf("process engine: no %s node yet", vm)
	}
	bin, err := findBinary(e.nodesDirs(), n.binary)
	if err != nil {
		return nil, fmt.Errorf("process engine: %w", err)
	}
	return n.start(ctx, bin, logger)
}

// NodeBinary is the name of the binary that runs vm's node (the container engine builds
// its images from the same table).
func (e Engine) NodeBinary(vm vip.VM) (string, error) {
	n, ok := e.nodes()[vm]
	if !ok {
		return "", fmt.Errorf("process engine: no %s node yet", vm)
	}
	return n.binary, nil
}

// vmNode is the node binary that runs one VM's rollup, whether it needs Initia's MoveVM
// library, and how it starts.
type vmNode struct {
	binary string
	moveVM bool
	start  func(ctx context.Context, bin string, logger *slog.Logger) (localnet.Rollup, error)
}

// nodes is the engine's node table: geth (or the dev node) for EVM, wasmd (or the dev node)
// for Wasm, and the dev node with the MoveVM for Move (there is no minimove binary here).
func (e Engine) nodes() map[vip.VM]vmNode {
	devNode := func(vm vip.VM) func(context.Context, string, *slog.Logger) (localnet.Rollup, error) {
		return func(ctx context.Context, bin string, logger *slog.Logger) (localnet.Rollup, error) {
			return StartDevNode(ctx, bin, vm, e.BlockTime, logger)
		}
	}
	wasm := vmNode{binary: e.wasmBinary(), start: func(ctx context.Context, bin string, logger *slog.Logger) (localnet.Rollup, error) {
		return StartWasmd(ctx, bin, logger)
	}}
	if e.Node == DevNode {
		wasm.start = devNode(vip.Wasm)
	}
	evm := vmNode{binary: gethdev.Binary, start: func(ctx context.Context, bin string, logger *slog.Logger) (localnet.Rollup, error) {
		return StartGeth(ctx, bin, logger)
	}}
	if e.Node == DevNode {
		evm = vmNode{binary: DevNodeBinary, start: devNode(vip.EVM)}
	}
	return map[vip.VM]vmNode{
		vip.EVM:  evm,
		vip.Wasm: wasm,
		vip.Move: {binary: DevNodeBinary, moveVM: true, start: devNode(vip.Move)},
	}
}

func (e Engine) wasmBinary() string {
	if e.Node == DevNode {
		return DevNodeBinary
	}
	return wasmddev.Binary
}
