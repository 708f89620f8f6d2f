// Package container runs rollups as Docker containers through testcontainers-go: images
// built locally from the same node binaries the process engine runs (FROM scratch, no
// registry needed), on a Docker network of the run's own with each node's ports published
// to the Docker host (on 127.0.0.1 where the engine is local) and reached through
// testcontainers' Host and MappedPort, so a remote DOCKER_HOST, Docker Desktop and
// Docker-in-Docker work alike; node state and files travel through the Docker API (no bind
// mounts); readiness on the node's real signal; labels on everything and a sweep of
// leftovers.
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

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/vipharness/vipharness/deployer/vip"
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
	Images map[vip.VM]Image
	Logger *slog.Logger
	// Node picks the Wasm and EVM nodes: the upstream ones (default: wasmd, geth) or
	// process.DevNode, the project's own.
	Node string
}

var _ localnet.Engine = Engine{}

// Name is "container", or "container-devnode" when the dev node stands in for wasmd and geth.
func (e Engine) Name() string {
	if e.Node == process.DevNode {
		return "container-devnode"
	}
	return "container"
}

func (e Engine) processEngine() process.Engine {
	return process.Engine{NodesDir: e.NodesDir, Node: e.Node}
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
func (e Engine) Available(ctx context.Context, vm vip.VM) error {
	quiet()
	if err := dockerAvailable(ctx); err != nil {
		return err
	}
	if vm != vip.EVM && vm != vip.Wasm && vm != vip.Move {
		return fmt.Errorf("container engine: no %s node yet", vm)
	}
	// The host's build prepares the node's home (genesis, keys) even for an image given.
	if err := e.processEngine().Available(ctx, vm); err != nil {
		return err
	}
	if e.Images[vm].Name != "" {
		return nil
	}
	bin, err := e.processEngine().NodeBinary(vm)
	if err != nil {
		return err
	}
	_, _, err = e.imageBinary(ctx, vm, bin)
	return err
}

var (
	dockerOnce sync.Once
	dockerErr  error
)

// DockerAvailable reports whether the Docker engine testcontainers would use answers (once
// per process), and why not.
func DockerAvailable(ctx context.Context) error {
	quiet()
	return dockerAvailable(ctx)
}

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
			return
		}
		dockerErr = sameEngine(os.Getenv("DOCKER_HOST"), c.DaemonHost())
	})
	return dockerErr
}

// sameEngine fails when DOCKER_HOST names an engine other than the one testcontainers
// settled on: it tries the next place it knows (the local socket) when DOCKER_HOST does
// not answer, and a run meant for a remote engine would quietly run on this machine.
func sameEngine(dockerHost, used string) error {
	if dockerHost == "" || dockerHost == used {
		return nil
	}
	return fmt.Errorf("DOCKER_HOST=%s does not answer (testcontainers would use %s instead)", dockerHost, used)
}

// StartRollup starts vm's node in a container.
func (e Engine) StartRollup(ctx context.Context, vm vip.VM) (localnet.Rollup, error) {
	quiet()
	switch vm {
	case vip.EVM:
		if e.Node == process.DevNode {
			return e.startDevNode(ctx, vm)
		}
		return e.startGeth(ctx)
	case vip.Wasm:
		if e.Node == process.DevNode {
			return e.startDevNode(ctx, vm)
		}
		return e.startWasmd(ctx)
	case vip.Move:
		// The dev node binary with the MoveVM is the Move node here (no minimove image).
		return e.startDevNode(ctx, vm)
	}
	return nil, fmt.Errorf("container engine: no %s node yet", vm)
}

// ownerLabel names the process that started a container, network or volume:
// "<hostname>/<pid>:<start time in ticks>", so a sweep can tell a dead run's leftovers from
// what runs still going own (go test runs packages in parallel, ginkgo -p runs a suite in
// several processes, and a remote engine may serve several machines).
const ownerLabel = "org.vipharness.owner"

// owner identifies this process.
var owner = ownerOf(os.Getpid())

func ownerOf(pid int) string {
	id := processID(pid)
	if id == "" {
		return ""
	}
	return hostname() + "/" + id
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return h
}

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

// alive reports whether the process named by an owner label may still run: it runs on this
// machine, or the label names another machine (whose processes this one cannot see, so
// their containers are never swept from here). Labels of earlier versions ("<pid>:<start>")
// name this machine.
func alive(label string) bool {
	id := label
	if host, rest, ok := strings.Cut(label, "/"); ok {
		if host != hostname() {
			return true
		}
		id = rest
	}
	pid, _, ok := strings.Cut(id, ":")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(pid)
	return err == nil && processID(n) == id
}

// Sweep removes the containers, networks and volumes that runs which are no longer alive
// left behind (a crashed suite cannot run its cleanups, and there is no reaper); only what
// carries this engine's label, and never what a live run owns. It returns how many
// containers it removed.
func Sweep(ctx context.Context) (int, error) {
	quiet()
	c, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return 0, fmt.Errorf("sweep containers: %w", err)
	}
	defer c.Close()
	mine := make(client.Filters).Add("label", Label)
	list, err := c.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: mine})
	if err != nil {
		return 0, fmt.Errorf("sweep containers: list: %w", err)
	}
	n := 0
	for _, ct := range list.Items {
		if alive(ct.Labels[ownerLabel]) {
			continue
		}
		if _, err := c.ContainerRemove(ctx, ct.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !gone(err) {
			return n, fmt.Errorf("sweep containers: remove %s: %w", ct.ID, err)
		}
		n++
	}
	nets, err := c.NetworkList(ctx, client.NetworkListOptions{Filters: mine})
	if err != nil {
		return n, fmt.Errorf("sweep networks: list: %w", err)
	}
	for _, nw := range nets.Items {
		if !alive(nw.Labels[ownerLabel]) {
			if _, err := c.NetworkRemove(ctx, nw.ID, client.NetworkRemoveOptions{}); err != nil && !gone(err) {
				return n, fmt.Errorf("sweep networks: remove %s: %w", nw.Name, err)
			}
		}
	}
	vols, err := c.VolumeList(ctx, client.VolumeListOptions{Filters: mine})
	if err != nil {
		return n, fmt.Errorf("sweep volumes: list: %w", err)
	}
	for _, v := range vols.Items {
		if !alive(v.Labels[ownerLabel]) {
			if _, err := c.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true}); err != nil && !gone(err) {
				return n, fmt.Errorf("sweep volumes: remove %s: %w", v.Name, err)
			}
		}
	}
	return n, nil
}

// gone reports an error removing something another sweep (a parallel Ginkgo process, a
// concurrent package) removed first, or still removes.
func gone(err error) bool { return cerrdefs.IsNotFound(err) || cerrdefs.IsConflict(err) }

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
