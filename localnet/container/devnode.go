package container

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/devnode"
	"github.com/vipharness/vipharness/localnet/movevm"
	"github.com/vipharness/vipharness/localnet/process"
)

// DevNodeRollup is the project's dev node (cmd/devnode) in a container.
type DevNodeRollup struct {
	ctr      testcontainers.Container
	home     string
	ready    devnode.Ready
	accounts []localnet.Account
}

var _ localnet.Rollup = (*DevNodeRollup)(nil)

func (e Engine) startDevNode(ctx context.Context, vm deployer.VM) (_ *DevNodeRollup, err error) {
	bin, err := e.processEngine().Binary(process.DevNodeBinary)
	if err != nil {
		return nil, fmt.Errorf("container engine: %w", err)
	}
	home, err := os.MkdirTemp("", "vipharness-devnode-ctr-")
	if err != nil {
		return nil, fmt.Errorf("dev node home: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(home)
		}
	}()
	_, mnemonics, err := process.NewDevNodeHome(home, devnode.DefaultFundedCount)
	if err != nil {
		return nil, err
	}
	// A rebuilt binary gets an image of its own: the tag is the binary's content hash.
	tag, err := fileTag(bin)
	if err != nil {
		return nil, err
	}
	cmd := []string{"--vm", string(vm), "--mnemonics-file", "/home/mnemonics"}
	binds := []string{home + ":/home:ro"}
	var libDeps []string
	if vm == deployer.Move {
		// Initia's libraries are mounted, never baked into an image; the image carries what
		// libmovevm links against.
		lib := filepath.Join(movevm.Dir(), movevm.VMLib)
		if _, err := movevm.OpenVM(movevm.Dir()); err != nil {
			return nil, fmt.Errorf("container engine: %w", err)
		}
		libDeps = append(libDeps, lib)
		binds = append(binds, movevm.Dir()+":/movevm:ro")
		cmd = append(cmd, "--movevm-dir", "/movevm")
		tag += "-move"
	}
	buildCtx, err := cgoImageContext(ctx, bin, "devnode", libDeps...)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(buildCtx)
	req := testcontainers.ContainerRequest{
		FromDockerfile: testcontainers.FromDockerfile{
			Context: buildCtx, Repo: "vipharness/devnode", Tag: tag, KeepImage: true,
			BuildOptionsModifier: func(o *client.ImageBuildOptions) { o.Labels = map[string]string{Label: "image"} },
		},
		Cmd:    cmd,
		Labels: map[string]string{Label: "container", ownerLabel: owner, "org.vipharness.vm": string(vm)},
		// wasmvm keeps its code cache in a temp dir, which a scratch image lacks.
		Tmpfs: map[string]string{"/tmp": "rw,mode=1777"},
		HostConfigModifier: func(hc *container.HostConfig) {
			hc.NetworkMode = "host"
			hc.Binds = binds
		},
		WaitingFor: wait.ForLog(devnode.ReadyPrefix).WithStartupTimeout(60 * time.Second),
	}
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{ContainerRequest: req, Started: true})
	if err != nil {
		if ctr != nil {
			_ = ctr.Terminate(context.Background())
		}
		return nil, fmt.Errorf("container engine: start dev node: %w", err)
	}
	r := &DevNodeRollup{ctr: ctr, home: home}
	ready, ok, err := devnode.FindReady(r.Logs())
	if err == nil && !ok {
		err = errors.New("dev node container printed no ready line")
	}
	if err == nil {
		r.ready = ready
		r.accounts, err = process.DevNodeAccounts(ready, mnemonics)
	}
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, fmt.Errorf("container engine: %w", err)
	}
	e.logger().Debug("dev node container ready", "id", ctr.GetContainerID(), "rpc", ready.CometRPC)
	return r, nil
}

func fileTag(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// VM is the VM the node runs.
func (r *DevNodeRollup) VM() deployer.VM { return deployer.VM(r.ready.VM) }

// ChainID is the chain id the node reported.
func (r *DevNodeRollup) ChainID() string { return r.ready.ChainID }

// Endpoints are the node's CometBFT RPC and REST URLs.
func (r *DevNodeRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{CometRPC: r.ready.CometRPC, REST: r.ready.REST}
}

// Funded are the accounts funded at genesis, with the mnemonics this process chose.
func (r *DevNodeRollup) Funded() []localnet.Account { return r.accounts }

// Logs returns the container's log, for failed specs.
func (r *DevNodeRollup) Logs() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return readAll(r.ctr.Logs(ctx))
}

// Stop terminates the container and removes the node's home.
func (r *DevNodeRollup) Stop(ctx context.Context) error {
	return errors.Join(r.ctr.Terminate(ctx), os.RemoveAll(r.home))
}
