// Package container runs rollups as Docker containers through testcontainers-go: images
// built locally from the same node binaries the process engine runs (FROM scratch, no
// registry needed), host networking on 127.0.0.1, readiness on the node's real signal,
// labels on everything and a sweep of leftovers.
package container

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/process"
)

// Label marks every container and image this engine makes; SweepLabel values tell runs apart.
const Label = "org.vipharness.engine"

// Image is how a VM's node runs in a container. Empty fields take the engine's defaults
// (an image built locally from the node binary).
type Image struct {
	// Name is an image to run instead of building one, e.g. an official rollup image.
	Name string
	// Cmd replaces the node's arguments. {{http_port}}, {{authrpc_port}} and {{datadir}}
	// are replaced with the values chosen for the run.
	Cmd []string
}

// Engine starts rollups in containers.
type Engine struct {
	// NodesDir holds the node binaries the images are built from (see process.Engine).
	NodesDir string
	// Images overrides the image or command per VM.
	Images map[deployer.VM]Image
	Logger *slog.Logger
	// WasmNode picks the Wasm node: process.Wasmd (default) or process.DevNode.
	WasmNode string
}

var _ localnet.Engine = Engine{}

// Name is "container", or "container-devnode" when the dev node stands in for wasmd.
func (e Engine) Name() string {
	if e.WasmNode == process.DevNode {
		return "container-devnode"
	}
	return "container"
}

func (e Engine) processEngine() process.Engine {
	return process.Engine{NodesDir: e.NodesDir, WasmNode: e.WasmNode}
}

func (e Engine) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// quietOnce configures testcontainers the first time the engine is used, not when the
// package is imported: a binary that links the engine but never runs a container (vipctl)
// keeps its environment and testcontainers' logger untouched.
var quietOnce sync.Once

func quiet() {
	quietOnce.Do(func() {
		// The reaper image cannot be pulled without a registry; the engine removes its own
		// containers (Stop, and Sweep at suite start).
		if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
			_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
		}
		// testcontainers narrates every step on stderr; the engine logs through slog instead.
		tclog.SetDefault(tclog.NewNoopLogger())
	})
}

// Available reports whether a Docker engine answers and the VM's node binary exists.
func (e Engine) Available(ctx context.Context, vm deployer.VM) error {
	quiet()
	if err := dockerAvailable(ctx); err != nil {
		return err
	}
	if vm != deployer.EVM && vm != deployer.Wasm && vm != deployer.Move {
		return fmt.Errorf("container engine: no %s node yet", vm)
	}
	if e.Images[vm].Name != "" {
		return nil
	}
	return e.processEngine().Available(ctx, vm)
}

var (
	dockerOnce sync.Once
	dockerErr  error
)

func dockerAvailable(ctx context.Context) error {
	dockerOnce.Do(func() {
		c, err := testcontainers.NewDockerClientWithOpts(ctx)
		if err != nil {
			dockerErr = fmt.Errorf("no Docker engine: %w", err)
			return
		}
		defer c.Close()
		if _, err := c.Ping(ctx, client.PingOptions{}); err != nil {
			dockerErr = fmt.Errorf("no Docker engine answers: %w", err)
		}
	})
	return dockerErr
}

// StartRollup starts vm's node in a container.
func (e Engine) StartRollup(ctx context.Context, vm deployer.VM) (localnet.Rollup, error) {
	quiet()
	switch vm {
	case deployer.EVM:
		return e.startGeth(ctx)
	case deployer.Wasm:
		if e.WasmNode == process.DevNode {
			return e.startDevNode(ctx, vm)
		}
		return e.startWasmd(ctx)
	case deployer.Move:
		// The dev node binary with the MoveVM is the Move node here (no minimove image).
		return e.startDevNode(ctx, vm)
	}
	return nil, fmt.Errorf("container engine: no %s node yet", vm)
}

// ownerLabel names the process that started a container: "<pid>:<start time in ticks>", so
// a sweep can tell a dead run's leftovers from the containers of runs still going (go test
// runs packages in parallel).
const ownerLabel = "org.vipharness.owner"

// owner identifies this process.
var owner = processID(os.Getpid())

// processID is "<pid>:<start time>" from /proc, or "" when the process does not exist.
func processID(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// Field 22 (starttime) counts from after the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 20 {
		return ""
	}
	return fmt.Sprintf("%d:%s", pid, f[19])
}

// alive reports whether the process named by an owner label still runs.
func alive(label string) bool {
	pid, _, ok := strings.Cut(label, ":")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(pid)
	return err == nil && processID(n) == label
}

// Sweep removes containers that runs which are no longer alive left behind (a crashed
// suite cannot run its cleanups, and there is no reaper); containers of live runs stay.
func Sweep(ctx context.Context) (int, error) {
	quiet()
	c, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return 0, fmt.Errorf("sweep containers: %w", err)
	}
	defer c.Close()
	list, err := c.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", Label)})
	if err != nil {
		return 0, fmt.Errorf("sweep containers: list: %w", err)
	}
	n := 0
	for _, ct := range list.Items {
		if alive(ct.Labels[ownerLabel]) {
			continue
		}
		if _, err := c.ContainerRemove(ctx, ct.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			return n, fmt.Errorf("sweep containers: remove %s: %w", ct.ID, err)
		}
		n++
	}
	return n, nil
}

func expand(args []string, vars map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		for k, v := range vars {
			a = strings.ReplaceAll(a, "{{"+k+"}}", v)
		}
		out[i] = a
	}
	return out
}

func readAll(rc io.ReadCloser, err error) string {
	if err != nil {
		return fmt.Sprintf("(logs unavailable: %v)", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, 1<<20))
	if err != nil {
		return fmt.Sprintf("(logs unavailable: %v)", err)
	}
	return string(b)
}
