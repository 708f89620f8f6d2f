package minitiad

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/process"
)

// runner runs minitiad's commands on one node's home: a binary on this machine
// (binaryRunner) or an image in containers (imageRunner). The rollup's setup sequence and
// readiness are written once, over either.
type runner interface {
	// home is the home's path as minitiad sees it (--home).
	home() string
	// listeners are where the node is to listen.
	listeners() listeners
	// run runs minitiad with args to its end, writing stdin to it when not empty, and
	// returns what it wrote. Once the node serves, it runs beside it: the node's
	// 127.0.0.1 addresses reach it.
	run(ctx context.Context, stdin string, args ...string) ([]byte, error)
	// edit rewrites a file of the home (a path relative to it) with fn.
	edit(ctx context.Context, file string, fn func([]byte) ([]byte, error)) error
	// serve starts the node (minitiad with args) and returns once it runs.
	serve(ctx context.Context, args ...string) error
	// url is where this machine reaches one of the node's served ports.
	url(port int) string
	// exited reports whether the node stopped, and how.
	exited(ctx context.Context) (bool, error)
	// logs is the tail of the node's log.
	logs() string
	// where names the node for the log ("pid 42", "container 3f1a...").
	where() string
	// stop stops the node and removes its home.
	stop(ctx context.Context) error
}

// binaryRunner runs a minitiad on this machine: a home in a temp folder, free loopback
// ports, the node a child process stopped by PID.
type binaryRunner struct {
	bin, dir string
	// tmp is minitiad's temp dir: each of its commands builds a throwaway app, whose Wasm
	// folder miniwasm leaves behind in a folder of its own there.
	tmp    string
	l      listeners
	logger *slog.Logger
	node   *process.Node
}

var _ runner = (*binaryRunner)(nil)

// freePorts finds a node's ports (a variable so that a test can hand out a taken one).
var freePorts = localnet.FreePorts

func newBinaryRunner(bin, dist string, logger *slog.Logger) (_ *binaryRunner, err error) {
	dir, err := os.MkdirTemp("", "vipharness-"+dist+"-")
	if err != nil {
		return nil, fmt.Errorf("minitiad home: %w", err)
	}
	tmp, err := os.MkdirTemp("", "vipharness-"+dist+"-tmp-")
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("minitiad temp dir: %w", err)
	}
	free, err := freePorts(9)
	if err != nil {
		os.RemoveAll(dir)
		os.RemoveAll(tmp)
		return nil, err
	}
	l := listeners{served: "127.0.0.1", ports: ports{rpc: free[0], p2p: free[1], proxy: free[2], pprof: free[3], prometheus: free[4], api: free[5], grpc: free[6], jsonrpc: free[7], jsonrpcWS: free[8]}}
	return &binaryRunner{bin: bin, dir: dir, tmp: tmp, l: l, logger: logger}, nil
}

func (b *binaryRunner) home() string                         { return b.dir }
func (b *binaryRunner) listeners() listeners                 { return b.l }
func (b *binaryRunner) url(port int) string                  { return fmt.Sprintf("http://127.0.0.1:%d", port) }
func (b *binaryRunner) where() string                        { return fmt.Sprintf("pid %d", b.node.PID()) }
func (b *binaryRunner) logs() string                         { return b.node.Logs() }
func (b *binaryRunner) exited(context.Context) (bool, error) { return b.node.Exited() }

func (b *binaryRunner) run(ctx context.Context, stdin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, b.bin, args...)
	cmd.Env = append(os.Environ(), b.env()...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	return cmd.CombinedOutput()
}

func (b *binaryRunner) edit(_ context.Context, file string, fn func([]byte) ([]byte, error)) error {
	p := filepath.Join(b.dir, filepath.FromSlash(file))
	in, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	out, err := fn(in)
	if err != nil {
		return err
	}
	return os.WriteFile(p, out, 0o644)
}

func (b *binaryRunner) serve(_ context.Context, args ...string) (err error) {
	b.node, err = process.Launch("minitiad", b.bin, b.dir, b.env(), b.logger, args...)
	return err
}

func (b *binaryRunner) stop(context.Context) error {
	var err error
	if b.node != nil {
		err = b.node.Stop(15 * time.Second)
	}
	return errors.Join(err, os.RemoveAll(b.dir), os.RemoveAll(b.tmp))
}

// env is what minitiad runs with beside this process's environment.
func (b *binaryRunner) env() []string {
	return []string{libraryPath(b.bin), "TMPDIR=" + b.tmp}
}

// libraryPath lets a minitiad find the shared libraries its release archive carries beside
// it (libmovevm, libcompiler, libwasmvm).
func libraryPath(bin string) string {
	dir := filepath.Dir(bin)
	if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
		return "LD_LIBRARY_PATH=" + dir + ":" + old
	}
	return "LD_LIBRARY_PATH=" + dir
}
