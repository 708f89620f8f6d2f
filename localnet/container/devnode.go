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
	"strings"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/movevm"
	"github.com/vipharness/vipharness/localnet/process"
)

// DevNodeRollup is the project's dev node (cmd/devnode) in a container.
type DevNodeRollup struct {
	node     *node
	ready    minitia.Ready
	accounts []localnet.Account
}

var _ localnet.Rollup = (*DevNodeRollup)(nil)

// Container ports of the dev node: CometBFT RPC and REST, as a CometBFT node's, and an EVM
// rollup's JSON-RPC, HTTP and WebSocket, as a minievm's.
const (
	devNodeRPCPort, devNodeRESTPort          = 26657, 1317
	devNodeJSONRPCPort, devNodeJSONRPCWSPort = 8545, 8546
)

// devNodeSpec prepares a dev node of vm: its home (mnemonics) and image context in host
// temp dirs, which done removes once the node has started.
func (e Engine) devNodeSpec(ctx context.Context, vm vip.VM) (_ nodeSpec, mnemonics []string, done func(), err error) {
	bin, _, err := e.imageBinary(ctx, vm, process.DevNodeBinary)
	if err != nil {
		return nodeSpec{}, nil, nil, err
	}
	var dirs []string
	done = func() {
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	}
	defer func() {
		if err != nil {
			done()
		}
	}()
	home, err := os.MkdirTemp("", "vipharness-devnode-ctr-")
	if err != nil {
		return nodeSpec{}, nil, nil, fmt.Errorf("dev node home: %w", err)
	}
	// The mnemonics file is copied into the container (0600 there too); the host copy goes.
	dirs = append(dirs, home)
	_, mnemonics, err = process.NewDevNodeHome(home, minitia.DefaultFundedCount)
	if err != nil {
		return nodeSpec{}, nil, nil, err
	}
	// A rebuilt binary gets an image of its own: the tag is the binary's content hash.
	tag, err := fileTag(bin)
	if err != nil {
		return nodeSpec{}, nil, nil, err
	}
	cmd := []string{"--vm", string(vm), "--mnemonics-file", "/home/mnemonics",
		"--rpc-addr", fmt.Sprintf("0.0.0.0:%d", devNodeRPCPort), "--rest-addr", fmt.Sprintf("0.0.0.0:%d", devNodeRESTPort)}
	ports := []int{devNodeRPCPort, devNodeRESTPort}
	if vm == vip.EVM {
		cmd = append(cmd, "--json-rpc-addr", fmt.Sprintf("0.0.0.0:%d", devNodeJSONRPCPort), "--json-rpc-ws-addr", fmt.Sprintf("0.0.0.0:%d", devNodeJSONRPCWSPort))
		ports = append(ports, devNodeJSONRPCPort, devNodeJSONRPCWSPort)
	}
	seeds := []seed{{hostDir: home, at: "/home"}}
	var libDeps []string
	if vm == vip.Move {
		// Initia's library is copied into the container, never baked into an image; the
		// image carries what libmovevm links against.
		lib := filepath.Join(movevm.Dir(), movevm.VMLib)
		if _, err := movevm.OpenVM(movevm.Dir()); err != nil {
			return nodeSpec{}, nil, nil, fmt.Errorf("container engine: %w", err)
		}
		libDeps = append(libDeps, lib)
		seeds = append(seeds, seed{hostDir: movevm.Dir(), at: "/movevm", only: []string{movevm.VMLib}})
		cmd = append(cmd, "--movevm-dir", "/movevm")
		tag += "-move"
	}
	buildCtx, err := cgoImageContext(ctx, bin, "devnode", libDeps...)
	if err != nil {
		return nodeSpec{}, nil, nil, err
	}
	dirs = append(dirs, buildCtx)
	return nodeSpec{
		kind: "devnode", cmd: cmd, ports: ports,
		build: &testcontainers.FromDockerfile{
			Context: buildCtx, Repo: "vipharness/devnode", Tag: tag, KeepImage: true,
			BuildOptionsModifier: func(o *client.ImageBuildOptions) { o.Labels = map[string]string{Label: "image"} },
		},
		seeds:  seeds,
		labels: map[string]string{"org.vipharness.vm": string(vm)},
		// wasmvm keeps its code cache in a temp dir, which a scratch image lacks.
		tmpfs: map[string]string{"/tmp": "rw,mode=1777"},
		wait:  wait.ForLog(minitia.ReadyPrefix).WithStartupTimeout(60 * time.Second),
		check: func(ctx context.Context, n *node) error {
			ready, ok, err := minitia.FindReady(n.logs())
			if err != nil || !ok {
				return fmt.Errorf("container engine: dev node printed no ready line (%v); log:\n%s", err, n.logs())
			}
			if err := oneCosmosNode(ctx, n.url(devNodeRPCPort), n.url(devNodeRESTPort), ready.ChainID, 30*time.Second); err != nil {
				return fmt.Errorf("container engine: dev node: %w; log:\n%s", err, n.logs())
			}
			return nil
		},
	}, mnemonics, done, nil
}

func (e Engine) startDevNode(ctx context.Context, vm vip.VM) (*DevNodeRollup, error) {
	spec, mnemonics, done, err := e.devNodeSpec(ctx, vm)
	if err != nil {
		return nil, err
	}
	// The seeds are copied at each start inside startNode; their host copies go after it.
	n, err := startNode(ctx, spec)
	done()
	if err != nil {
		return nil, err
	}
	r := &DevNodeRollup{node: n}
	ready, ok, err := minitia.FindReady(r.Logs())
	if err == nil && !ok {
		err = errors.New("dev node container printed no ready line")
	}
	if err == nil {
		// The ready line names the addresses the node listens on inside its container;
		// clients reach it at the published ports.
		ready.CometRPC, ready.REST = n.url(devNodeRPCPort), n.url(devNodeRESTPort)
		if ready.JSONRPC != "" {
			ready.JSONRPC, ready.JSONRPCWS = n.url(devNodeJSONRPCPort), "ws"+strings.TrimPrefix(n.url(devNodeJSONRPCWSPort), "http")
		}
		r.ready = ready
		r.accounts, err = process.DevNodeAccounts(ready, mnemonics)
	}
	if err != nil {
		_ = n.stop(context.Background())
		return nil, fmt.Errorf("container engine: %w", err)
	}
	e.logger().Debug("dev node container ready", "id", n.container().GetContainerID(), "rpc", ready.CometRPC, "network", n.net, "alias", n.alias)
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
func (r *DevNodeRollup) VM() vip.VM { return vip.VM(r.ready.VM) }

// ChainID is the chain id the node reported.
func (r *DevNodeRollup) ChainID() string { return r.ready.ChainID }

// Endpoints are the node's CometBFT RPC and REST URLs, and an EVM node's JSON-RPC.
func (r *DevNodeRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{CometRPC: r.ready.CometRPC, REST: r.ready.REST, JSONRPC: r.ready.JSONRPC, JSONRPCWS: r.ready.JSONRPCWS}
}

// Funded are the accounts funded at genesis, with the mnemonics this process chose.
func (r *DevNodeRollup) Funded() []localnet.Account { return r.accounts }

// Network is the Docker network the container runs on.
func (r *DevNodeRollup) Network() string { return r.node.net }

// InNetwork are the endpoints on the run's network (by network alias).
func (r *DevNodeRollup) InNetwork() localnet.Endpoints {
	return localnet.Endpoints{CometRPC: r.node.inNetwork(devNodeRPCPort), REST: r.node.inNetwork(devNodeRESTPort)}
}

// Logs returns the container's log, for failed specs.
func (r *DevNodeRollup) Logs() string { return r.node.logs() }

// Stop terminates the container.
func (r *DevNodeRollup) Stop(ctx context.Context) error { return r.node.stop(ctx) }

var _ localnet.Dumper = (*DevNodeRollup)(nil)

// Dump ends the node with SIGQUIT (the dev node is the container's first process, and Go
// handles the signal there too), so that Go prints every goroutine's stack, and returns the
// container's log: a node that stopped answering names where it waits.
func (r *DevNodeRollup) Dump() string {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if ctr := r.node.container(); ctr != nil {
		if c, err := dockerClient(ctx); err == nil {
			if _, err := c.ContainerKill(ctx, ctr.GetContainerID(), client.ContainerKillOptions{Signal: "SIGQUIT"}); err == nil {
				for ctx.Err() == nil {
					if st, err := ctr.State(ctx); err != nil || !st.Running {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
			}
			c.Close()
		}
	}
	return r.node.logs()
}
