package container

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/moby/moby/client"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/gethdev"
	"github.com/vipharness/vipharness/localnet/process"
)

// platform is an OS/architecture pair in Go's names.
type platform struct{ os, arch string }

func (p platform) String() string { return p.os + "/" + p.arch }

// hostPlatform is this machine's.
var hostPlatform = platform{runtime.GOOS, runtime.GOARCH}

// dockerArch maps the architecture Docker reports (uname -m) to Go's name.
var dockerArch = map[string]string{"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}

var (
	engineOnce sync.Once
	engineVal  platform
	engineErr  error
)

// enginePlatform is the platform the Docker engine runs containers on (Docker Desktop on a
// Mac or Windows runs a Linux VM: linux/arm64 or linux/amd64).
func enginePlatform(ctx context.Context) (platform, error) {
	engineOnce.Do(func() {
		c, err := dockerClient(ctx)
		if err != nil {
			engineErr = err
			return
		}
		defer c.Close()
		info, err := c.Info(ctx, client.InfoOptions{})
		if err != nil {
			engineErr = fmt.Errorf("container engine: docker info: %w", err)
			return
		}
		arch, ok := dockerArch[info.Info.Architecture]
		if !ok || info.Info.OSType != "linux" {
			engineErr = fmt.Errorf("container engine: the Docker engine runs %s/%s containers; the images here are linux/amd64 or linux/arm64", info.Info.OSType, info.Info.Architecture)
			return
		}
		engineVal = platform{"linux", arch}
	})
	return engineVal, engineErr
}

// LinuxNodesDir is where `make nodes-linux` puts node binaries built for a Linux engine
// of another platform than this machine: <nodes dir>/linux-<arch>.
func LinuxNodesDir(nodesDir, arch string) string { return filepath.Join(nodesDir, "linux-"+arch) }

// imageBinary is the node binary an image for the engine's platform is built from, next to
// the host binary (which prepares the node's home on this machine). On a Linux host of the
// engine's architecture they are one file. Elsewhere geth, a static Go binary, comes from
// `make nodes-linux` (GOOS=linux GOARCH=<arch>); the cgo nodes (wasmd, the dev node) are
// built into images with the shared libraries ldd finds on this machine, which only a Linux
// host of the engine's architecture has: anywhere else they are unavailable, and the error
// says what would make them available.
func (e Engine) imageBinary(ctx context.Context, vm vip.VM, name string) (host, image string, err error) {
	host, err = e.processEngine().Binary(name)
	if err != nil {
		return "", "", fmt.Errorf("container engine: %w", err)
	}
	if e.Images[vm].Name != "" {
		// An image of the user's: the host binary only prepares the node's home.
		return host, "", nil
	}
	target, err := enginePlatform(ctx)
	if err != nil {
		return "", "", err
	}
	image, err = pickImageBinary(name, host, hostPlatform, target, e.nodesDirs())
	if err != nil {
		return "", "", err
	}
	return host, image, nil
}

// pickImageBinary is imageBinary's choice, for a host binary on hostP and an engine on target.
func pickImageBinary(name, host string, hostP, target platform, dirs []string) (string, error) {
	if target == hostP {
		return host, nil
	}
	if name != gethdev.Binary {
		return "", fmt.Errorf("container engine: %s for a %s engine: its image is built from this machine's binary and the shared libraries it links (cgo), which a %s machine cannot provide; run this engine's specs on a %s machine, or give the engine an official image (Engine.Images)", name, target, hostP, target)
	}
	for _, dir := range dirs {
		p := filepath.Join(LinuxNodesDir(dir, target.arch), name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("container engine: %s for a %s engine is missing: `make nodes-linux ARCH=%s` builds it (static, GOOS=linux GOARCH=%s) into %s", name, target, target.arch, target.arch, LinuxNodesDir(dirs[0], target.arch))
}

// nodesDirs are the folders searched for node binaries (the process engine's).
func (e Engine) nodesDirs() []string { return process.NodesDirs(e.NodesDir) }
