package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/gethdev"
	"github.com/vipharness/vipharness/localnet/process"
)

// GethRollup is `geth --dev` in a container.
type GethRollup struct {
	*gethdev.Face
	ctr  testcontainers.Container
	home string
}

var _ localnet.Rollup = (*GethRollup)(nil)

const gethDockerfile = "FROM scratch\nCOPY geth /geth\nENTRYPOINT [\"/geth\"]\n"

func (e Engine) startGeth(ctx context.Context) (_ *GethRollup, err error) {
	bin, err := process.Engine{NodesDir: e.NodesDir}.Binary(gethdev.Binary)
	if err != nil {
		return nil, fmt.Errorf("container engine: %w", err)
	}
	home, err := os.MkdirTemp("", "vipharness-geth-ctr-")
	if err != nil {
		return nil, fmt.Errorf("geth home: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(home)
		}
	}()
	// The datadir is initialized on the host with the same binary the image holds, then
	// mounted: a scratch image has no shell to run `geth init` first.
	httpPort, authPort, err := gethdev.Prepare(ctx, bin, home)
	if err != nil {
		return nil, err
	}
	spec := e.Images[deployer.EVM]
	args := gethdev.Args("/data", httpPort, authPort)
	if len(spec.Cmd) > 0 {
		args = expand(spec.Cmd, map[string]string{"http_port": strconv.Itoa(httpPort), "authrpc_port": strconv.Itoa(authPort), "datadir": "/data"})
	}
	req := testcontainers.ContainerRequest{
		Cmd:    args,
		Labels: map[string]string{Label: "container", ownerLabel: owner, "org.vipharness.vm": string(deployer.EVM)},
		HostConfigModifier: func(hc *container.HostConfig) {
			hc.NetworkMode = "host"
			hc.Binds = []string{filepath.Join(home, "data") + ":/data"}
		},
		WaitingFor: wait.ForLog("HTTP server started").WithStartupTimeout(60 * time.Second),
	}
	if spec.Name != "" {
		req.Image = spec.Name
	} else {
		buildCtx, err := gethBuildContext(bin)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(buildCtx)
		req.FromDockerfile = testcontainers.FromDockerfile{
			Context: buildCtx, Repo: "vipharness/geth", Tag: "v1.17.8", KeepImage: true,
			BuildOptionsModifier: func(o *client.ImageBuildOptions) { o.Labels = map[string]string{Label: "image"} },
		}
	}
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{ContainerRequest: req, Started: true})
	if err != nil {
		if ctr != nil {
			_ = ctr.Terminate(context.Background())
		}
		return nil, fmt.Errorf("container engine: start geth: %w", err)
	}
	ready, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	face, err := gethdev.Attach(ready, fmt.Sprintf("http://127.0.0.1:%d", httpPort), func() error {
		st, err := ctr.State(ready)
		if err == nil && !st.Running {
			return fmt.Errorf("geth container exited (%d) before it was ready; log:\n%s", st.ExitCode, readAll(ctr.Logs(ready)))
		}
		return nil
	})
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	e.logger().Debug("geth container ready", "id", ctr.GetContainerID(), "rpc", face.RPC)
	return &GethRollup{Face: face, ctr: ctr, home: home}, nil
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
	// A hard link avoids copying 80 MB when both live on one filesystem.
	if err := os.Link(bin, filepath.Join(dir, "geth")); err != nil {
		b, err := os.ReadFile(bin)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "geth"), b, 0o755); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Logs returns the container's log, for failed specs.
func (r *GethRollup) Logs() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return readAll(r.ctr.Logs(ctx))
}

// Stop terminates the container and removes its data.
func (r *GethRollup) Stop(ctx context.Context) error {
	return errors.Join(r.Face.Close(), r.ctr.Terminate(ctx), os.RemoveAll(r.home))
}

// Restart stops the container and starts it again on the same data and ports, for specs
// that prove a deployer rides out a node restart; down is how long it stays away.
func (r *GethRollup) Restart(ctx context.Context, down time.Duration) error {
	timeout := 10 * time.Second
	if err := r.ctr.Stop(ctx, &timeout); err != nil {
		return fmt.Errorf("restart geth container: stop: %w", err)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(down):
	}
	if err := r.ctr.Start(ctx); err != nil {
		return fmt.Errorf("restart geth container: start: %w", err)
	}
	if err := r.Face.WaitReady(ctx); err != nil {
		return fmt.Errorf("restart geth container: %w", err)
	}
	return nil
}
