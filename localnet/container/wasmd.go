package container

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/wasmddev"
)

// WasmdRollup is a single-validator wasmd chain in a container.
type WasmdRollup struct {
	node     *node
	accounts []localnet.Account
}

var _ localnet.Rollup = (*WasmdRollup)(nil)

func (e Engine) startWasmd(ctx context.Context) (_ *WasmdRollup, err error) {
	bin, _, err := e.imageBinary(ctx, vip.Wasm, wasmddev.Binary)
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "vipharness-wasmd-ctr-")
	if err != nil {
		return nil, fmt.Errorf("wasmd home: %w", err)
	}
	// The home is made on the host and copied into the node's volume.
	defer os.RemoveAll(home)
	accounts, err := wasmddev.Init(ctx, bin, home, 2)
	if err != nil {
		return nil, err
	}
	p := wasmddev.DefaultPorts
	if err := wasmddev.ConfigureOn(home, "0.0.0.0", p); err != nil {
		return nil, err
	}
	spec := e.Images[vip.Wasm]
	args := wasmddev.Args("/home")
	if len(spec.Cmd) > 0 {
		args = expand(spec.Cmd, map[string]string{"rpc_port": strconv.Itoa(p.RPC), "rest_port": strconv.Itoa(p.REST), "home": "/home"})
	}
	ns := nodeSpec{
		kind: "wasmd", image: spec.Name, cmd: args, ports: []int{p.RPC, p.REST},
		state:  "/home",
		seeds:  []seed{{hostDir: home, at: "/home"}},
		labels: map[string]string{"org.vipharness.vm": string(vip.Wasm)},
		// wasmd wants a temp dir, which a scratch image lacks.
		tmpfs: map[string]string{"/tmp": "rw,mode=1777"},
		// CometBFT logs each committed block; the first one means the chain runs.
		wait: wait.ForLog("committed state").WithStartupTimeout(90 * time.Second),
		// The REST gateway starts after the first block.
		check: func(ctx context.Context, n *node) error {
			if err := oneCosmosNode(ctx, n.url(p.RPC), n.url(p.REST), wasmddev.ChainID, 60*time.Second); err != nil {
				return fmt.Errorf("wasmd container: %w; log:\n%s", err, n.logs())
			}
			return nil
		},
	}
	if spec.Name == "" {
		buildCtx, err := cgoImageContext(ctx, bin, "wasmd")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(buildCtx)
		ns.build = &testcontainers.FromDockerfile{
			Context: buildCtx, Repo: "vipharness/wasmd", Tag: "v0.61.14", KeepImage: true,
			BuildOptionsModifier: func(o *client.ImageBuildOptions) { o.Labels = map[string]string{Label: "image"} },
		}
	}
	n, err := startNode(ctx, ns)
	if err != nil {
		return nil, err
	}
	r := &WasmdRollup{node: n, accounts: accounts}
	e.logger().Debug("wasmd container ready", "id", n.container().GetContainerID(), "rpc", r.Endpoints().CometRPC, "network", n.net, "alias", n.alias)
	return r, nil
}

// imageLibDir is where an image of a cgo binary keeps its shared libraries: a fixed folder
// on the loader's path (LD_LIBRARY_PATH in the image), so no mount can hide them. The paths
// ldd reports on the host cannot be used: libwasmvm sits in the Go module cache, which may
// be under /tmp, where the containers mount a tmpfs.
const imageLibDir = "/usr/lib/vipharness"

// cgoImageContext lays out a build context for a cgo binary (wasmd, the dev node, both
// linking libwasmvm): an image FROM scratch with the binary as /<name>, the program loader
// at the path the binary names, and every other shared library ldd lists (libwasmvm, libc,
// ...) in imageLibDir under the name the binary asks for.
func cgoImageContext(ctx context.Context, bin, name string, libDeps ...string) (string, error) {
	dir, err := os.MkdirTemp("", "vipharness-"+name+"-image-")
	if err != nil {
		return "", err
	}
	dockerfile := fmt.Sprintf("FROM scratch\nCOPY rootfs/ /\nENV LD_LIBRARY_PATH=%s\nENTRYPOINT [\"/%s\"]\n", imageLibDir, name)
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		return "", err
	}
	root := filepath.Join(dir, "rootfs")
	if err := place(bin, filepath.Join(root, name)); err != nil {
		return "", err
	}
	// The binary's shared libraries, and those of libraries it opens at run time (libDeps,
	// which themselves stay out of the image).
	for _, file := range append([]string{bin}, libDeps...) {
		out, err := exec.CommandContext(ctx, "ldd", file).Output()
		if err != nil {
			return "", fmt.Errorf("ldd %s: %w", file, err)
		}
		libs, err := parseLdd(out)
		if err != nil {
			return "", fmt.Errorf("ldd %s: %w", file, err)
		}
		for dst, src := range libs {
			if _, err := os.Stat(filepath.Join(root, dst)); err == nil {
				continue
			}
			if err := place(src, filepath.Join(root, dst)); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
}

// parseLdd maps each library in ldd's output to its path inside the image (key) and on the
// host (value): "libx.so.1 => /host/path/libx.so.1 (0x...)" goes to imageLibDir/libx.so.1;
// the loader, "/lib64/ld-linux-x86-64.so.2 (0x...)", keeps its path, which the binary names.
func parseLdd(out []byte) (map[string]string, error) {
	libs := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 3 && f[1] == "=>" && f[2] == "not":
			return nil, fmt.Errorf("%s not found on this machine", f[0])
		case len(f) >= 3 && f[1] == "=>" && strings.HasPrefix(f[2], "/"):
			libs[path.Join(imageLibDir, f[0])] = f[2]
		case len(f) >= 1 && strings.HasPrefix(f[0], "/"):
			libs[f[0]] = f[0]
		}
		// Anything else is the vdso, which the kernel provides.
	}
	return libs, sc.Err()
}

// place copies a file (following links) to dst, creating its directory.
func place(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	if err := os.Link(real, dst); err == nil {
		return nil
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

// VM is Wasm.
func (r *WasmdRollup) VM() vip.VM { return vip.Wasm }

// ChainID is wasmddev.ChainID.
func (r *WasmdRollup) ChainID() string { return wasmddev.ChainID }

// Endpoints are CometBFT RPC and the Cosmos REST gateway, at their published ports.
func (r *WasmdRollup) Endpoints() localnet.Endpoints {
	p := wasmddev.DefaultPorts
	return localnet.Endpoints{CometRPC: r.node.url(p.RPC), REST: r.node.url(p.REST)}
}

// Network is the Docker network the container runs on.
func (r *WasmdRollup) Network() string { return r.node.net }

// InNetwork are the endpoints on the run's network (by network alias).
func (r *WasmdRollup) InNetwork() localnet.Endpoints {
	p := wasmddev.DefaultPorts
	return localnet.Endpoints{CometRPC: r.node.inNetwork(p.RPC), REST: r.node.inNetwork(p.REST)}
}

// Funded are test accounts funded at genesis.
func (r *WasmdRollup) Funded() []localnet.Account { return r.accounts }

// Logs returns the container's log, for failed specs.
func (r *WasmdRollup) Logs() string { return r.node.logs() }

// Restart stops the node and starts it again on the same home and host ports.
func (r *WasmdRollup) Restart(ctx context.Context, down time.Duration) error {
	if err := r.node.restart(ctx, down, 15*time.Second); err != nil {
		return fmt.Errorf("restart wasmd container: %w", err)
	}
	return nil
}

// Stop terminates the container and removes its volume.
func (r *WasmdRollup) Stop(ctx context.Context) error { return r.node.stop(ctx) }
