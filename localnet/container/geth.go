package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/gethdev"
)

// GethRollup is `geth --dev` in a container.
type GethRollup struct {
	*gethdev.Face
	node *node
}

var _ localnet.Rollup = (*GethRollup)(nil)

const gethDockerfile = "FROM scratch\nCOPY geth /geth\nENTRYPOINT [\"/geth\"]\n"

// Container ports of geth: JSON-RPC (published) and the engine API (container loopback).
const gethHTTPPort, gethAuthPort = 8545, 8551

func (e Engine) startGeth(ctx context.Context) (_ *GethRollup, err error) {
	bin, imageBin, err := e.imageBinary(ctx, vip.EVM, gethdev.Binary)
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "vipharness-geth-ctr-")
	if err != nil {
		return nil, fmt.Errorf("geth home: %w", err)
	}
	// The datadir is initialized on the host with the host's build of the image's geth, then
	// copied into the node's volume: a scratch image has no shell to run `geth init` first.
	// Once copied, the host copy is not needed.
	defer os.RemoveAll(home)
	if err := gethdev.Init(ctx, bin, home); err != nil {
		return nil, err
	}
	spec := e.Images[vip.EVM]
	args := gethdev.ArgsOn("/data", "0.0.0.0", gethHTTPPort, gethAuthPort)
	if len(spec.Cmd) > 0 {
		args = expand(spec.Cmd, map[string]string{"http_port": strconv.Itoa(gethHTTPPort), "authrpc_port": strconv.Itoa(gethAuthPort), "datadir": "/data"})
	}
	ns := nodeSpec{
		kind: "geth", image: spec.Name, cmd: args, ports: []int{gethHTTPPort},
		state:  "/data",
		seeds:  []seed{{hostDir: filepath.Join(home, "data"), at: "/data"}},
		labels: map[string]string{"org.vipharness.vm": string(vip.EVM)},
		wait:   wait.ForLog("HTTP server started").WithStartupTimeout(60 * time.Second),
	}
	if spec.Name == "" {
		buildCtx, err := gethBuildContext(imageBin)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(buildCtx)
		ns.build = &testcontainers.FromDockerfile{
			Context: buildCtx, Repo: "vipharness/geth", Tag: "v1.17.8", KeepImage: true,
			BuildOptionsModifier: func(o *client.ImageBuildOptions) { o.Labels = map[string]string{Label: "image"} },
		}
	}
	n, err := startNode(ctx, ns)
	if err != nil {
		return nil, err
	}
	face, err := attachGeth(ctx, n)
	if err != nil {
		_ = n.stop(context.Background())
		return nil, err
	}
	e.logger().Debug("geth container ready", "id", n.container().GetContainerID(), "rpc", face.RPC, "network", n.net, "alias", n.alias)
	return &GethRollup{Face: face, node: n}, nil
}

// attachGeth waits for geth's JSON-RPC at its published port and serves the CometBFT face.
func attachGeth(ctx context.Context, n *node) (*gethdev.Face, error) {
	ready, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	ctr := n.container()
	return gethdev.Attach(ready, n.url(gethHTTPPort), func() error {
		st, err := ctr.State(ready)
		if err == nil && !st.Running {
			return fmt.Errorf("geth container exited (%d) before it was ready; log:\n%s", st.ExitCode, readAll(ctr.Logs(ready)))
		}
		return nil
	})
}

// gethBuildContext is a directory holding the Dockerfile and the static geth binary.
func gethBuildContext(bin string) (string, error) {
	dir, err := os.MkdirTemp("", "vipharness-geth-image-")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(gethDockerfile), 0o644); err != nil {
		return "", err
	}
	// place follows a symlinked binary and hard-links it where it can (80 MB).
	if err := place(bin, filepath.Join(dir, "geth")); err != nil {
		return "", err
	}
	return dir, nil
}

// Logs returns the container's log, for failed specs.
func (r *GethRollup) Logs() string { return r.node.logs() }

// Network is the Docker network the container runs on, and InNetwork its JSON-RPC URL
// there (by network alias), for containers a test starts beside it.
func (r *GethRollup) Network() string { return r.node.net }

// InNetwork is the JSON-RPC URL on the run's network.
func (r *GethRollup) InNetwork() string { return r.node.inNetwork(gethHTTPPort) }

// Stop terminates the container and removes its volume.
func (r *GethRollup) Stop(ctx context.Context) error {
	return errors.Join(r.Face.Close(), r.node.stop(ctx))
}

// Restart stops the node and starts it again on the same data and host port, for specs
// that prove a deployer rides out a node restart; down is how long it stays away.
func (r *GethRollup) Restart(ctx context.Context, down time.Duration) error {
	before := r.Face.RPC
	if err := r.node.restart(ctx, down, 10*time.Second); err != nil {
		return fmt.Errorf("restart geth container: %w", err)
	}
	if r.node.url(gethHTTPPort) != before {
		// Fresh ports: attach anew, so Endpoints reports them.
		face, err := attachGeth(ctx, r.node)
		if err != nil {
			return fmt.Errorf("restart geth container: %w", err)
		}
		_ = r.Face.Close()
		r.Face = face
		return nil
	}
	if err := r.Face.WaitReady(ctx); err != nil {
		return fmt.Errorf("restart geth container: %w", err)
	}
	return nil
}
