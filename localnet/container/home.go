package container

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
)

// HomeSpec is a node's command line tool in an image, and where its home lives.
type HomeSpec struct {
	// Kind names the node in container names, labels and errors ("minievm").
	Kind string
	// Image is the image to run; pulled when the Docker engine lacks it.
	Image string
	// Entrypoint are the words before the tool's arguments; they replace the image's own
	// entrypoint, so an image whose entrypoint is the tool and one that only carries it
	// (CMD ["/usr/local/bin/minitiad", "version"]) run alike.
	Entrypoint []string
	// Mount is where the home's volume is mounted in every container. Over a folder the
	// image has, Docker fills the new volume with it, owner included, so an image that
	// runs as a user of its own can write there.
	Mount string
	// Labels are added to every container and the volume.
	Labels map[string]string
}

// Home is a node's home on a Docker volume and the containers that run its tool there:
// one container per command (Run), each removed when it ends, and the node itself (Serve),
// with its ports published as the engine publishes every node's. Files travel through the
// Docker API, so a remote engine works alike. Close removes all of it, by ID.
type Home struct {
	spec   HomeSpec
	volume string

	mu   sync.Mutex
	node *node
	ids  []string // every container made, in order
}

// NewHome makes a labelled volume for spec's home, pulling the image first if the engine
// lacks it.
func NewHome(ctx context.Context, spec HomeSpec) (*Home, error) {
	quiet()
	if len(spec.Entrypoint) == 0 || spec.Image == "" || !path.IsAbs(spec.Mount) {
		return nil, fmt.Errorf("container engine: %s home: an image, an entrypoint and an absolute mount path are needed", spec.Kind)
	}
	c, err := dockerClient(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := ensureImage(ctx, c, spec.Image); err != nil {
		return nil, err
	}
	v, err := c.VolumeCreate(ctx, client.VolumeCreateOptions{
		Name:   "vipharness-" + spec.Kind + "-" + randHex(6),
		Labels: spec.labels("volume"),
	})
	if err != nil {
		return nil, fmt.Errorf("container engine: create a volume for %s: %w", spec.Kind, err)
	}
	return &Home{spec: spec, volume: v.Volume.Name}, nil
}

func (s HomeSpec) labels(kind string) map[string]string {
	l := map[string]string{Label: kind, ownerLabel: owner}
	for k, v := range s.Labels {
		l[k] = v
	}
	return l
}

// ensureImage pulls ref unless the engine has it.
func ensureImage(ctx context.Context, c *client.Client, ref string) error {
	if _, err := c.ImageInspect(ctx, ref); err == nil {
		return nil
	} else if !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("container engine: inspect image %s: %w", ref, err)
	}
	resp, err := c.ImagePull(ctx, ref, client.ImagePullOptions{})
	if err != nil {
		return fmt.Errorf("container engine: pull %s (not on the Docker engine): %w", ref, err)
	}
	defer resp.Close()
	if err := resp.Wait(ctx); err != nil {
		return fmt.Errorf("container engine: pull %s: %w", ref, err)
	}
	return nil
}

// Volume is the name of the home's volume.
func (h *Home) Volume() string { return h.volume }

// Run runs the tool with args in a container of its own on the home's volume and returns
// what it wrote (stdout, then stderr); stdin, when not empty, is written to it and never
// appears in its arguments, environment or labels. Before Serve the container has no
// network; after it, it shares the node's network namespace, so the node's own loopback
// addresses reach it (a query or a tx against the running node).
func (h *Home) Run(ctx context.Context, stdin string, args ...string) ([]byte, error) {
	c, err := dockerClient(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	netMode := container.NetworkMode("none")
	if n := h.server(); n != nil {
		if ctr := n.container(); ctr != nil {
			netMode = container.NetworkMode("container:" + ctr.GetContainerID())
		}
	}
	cfg := &container.Config{
		Image: h.spec.Image, Entrypoint: h.spec.Entrypoint, Cmd: args,
		Labels: h.spec.labels("container"),
	}
	if stdin != "" {
		cfg.OpenStdin, cfg.StdinOnce, cfg.AttachStdin = true, true, true
	}
	created, err := c.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config:     cfg,
		HostConfig: &container.HostConfig{NetworkMode: netMode, Mounts: h.mounts()},
	})
	if err != nil {
		return nil, fmt.Errorf("container engine: create %s %s: %w", h.spec.Kind, verb(args), err)
	}
	id := created.ID
	h.remember(id)
	defer func() {
		_, _ = c.ContainerRemove(context.WithoutCancel(ctx), id, client.ContainerRemoveOptions{Force: true})
	}()
	var attached *client.ContainerAttachResult
	if stdin != "" {
		a, err := c.ContainerAttach(ctx, id, client.ContainerAttachOptions{Stream: true, Stdin: true})
		if err != nil {
			return nil, fmt.Errorf("container engine: attach to %s %s: %w", h.spec.Kind, verb(args), err)
		}
		defer a.Close()
		attached = &a
	}
	if _, err := c.ContainerStart(ctx, id, client.ContainerStartOptions{}); err != nil {
		return nil, fmt.Errorf("container engine: start %s %s: %w", h.spec.Kind, verb(args), err)
	}
	if attached != nil {
		if _, err := io.WriteString(attached.Conn, stdin); err != nil {
			return nil, fmt.Errorf("container engine: write to %s %s: %w", h.spec.Kind, verb(args), err)
		}
		_ = attached.CloseWrite()
	}
	waited := c.ContainerWait(ctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	var code int64
	select {
	case res := <-waited.Result:
		code = res.StatusCode
	case err := <-waited.Error:
		return nil, fmt.Errorf("container engine: wait for %s %s: %w", h.spec.Kind, verb(args), err)
	}
	logs, err := c.ContainerLogs(ctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return nil, fmt.Errorf("container engine: %s %s output: %w", h.spec.Kind, verb(args), err)
	}
	defer logs.Close()
	var stdout, stderr bytes.Buffer
	if _, err := stdcopy.StdCopy(&stdout, &stderr, io.LimitReader(logs, 16<<20)); err != nil {
		return nil, fmt.Errorf("container engine: %s %s output: %w", h.spec.Kind, verb(args), err)
	}
	out := append(stdout.Bytes(), stderr.Bytes()...)
	if code != 0 {
		return out, fmt.Errorf("%s %s: exit status %d", h.spec.Kind, verb(args), code)
	}
	return out, nil
}

// verb is the command's first two words, for errors.
func verb(args []string) string {
	if len(args) > 2 {
		args = args[:2]
	}
	return strings.Join(args, " ")
}

func (h *Home) mounts() []mount.Mount {
	return []mount.Mount{{Type: mount.TypeVolume, Source: h.volume, Target: h.spec.Mount}}
}

func (h *Home) remember(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ids = append(h.ids, id)
}

func (h *Home) server() *node {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.node
}

// Edit rewrites file (an absolute path in the container, under Mount) with fn, keeping
// its owner and mode. The copy goes through a container that never starts.
func (h *Home) Edit(ctx context.Context, file string, fn func([]byte) ([]byte, error)) error {
	c, err := dockerClient(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	created, err := c.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config:     &container.Config{Image: h.spec.Image, Entrypoint: h.spec.Entrypoint, Labels: h.spec.labels("container")},
		HostConfig: &container.HostConfig{NetworkMode: "none", Mounts: h.mounts()},
	})
	if err != nil {
		return fmt.Errorf("container engine: edit %s: %w", file, err)
	}
	id := created.ID
	h.remember(id)
	defer func() {
		_, _ = c.ContainerRemove(context.WithoutCancel(ctx), id, client.ContainerRemoveOptions{Force: true})
	}()
	got, err := c.CopyFromContainer(ctx, id, client.CopyFromContainerOptions{SourcePath: file})
	if err != nil {
		return fmt.Errorf("container engine: read %s: %w", file, err)
	}
	defer got.Content.Close()
	tr := tar.NewReader(got.Content)
	hdr, err := tr.Next()
	if err != nil {
		return fmt.Errorf("container engine: read %s: %w", file, err)
	}
	if hdr.Typeflag != tar.TypeReg {
		return fmt.Errorf("container engine: %s is not a regular file", file)
	}
	b, err := io.ReadAll(io.LimitReader(tr, 64<<20))
	if err != nil {
		return fmt.Errorf("container engine: read %s: %w", file, err)
	}
	if b, err = fn(b); err != nil {
		return err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	out := *hdr
	out.Name, out.Size = path.Base(file), int64(len(b))
	if err := tw.WriteHeader(&out); err != nil {
		return err
	}
	if _, err := tw.Write(b); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if _, err := c.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: path.Dir(file), Content: &buf}); err != nil {
		return fmt.Errorf("container engine: write %s: %w", file, err)
	}
	return nil
}

// Serve starts the node: the tool with args in a long-running container on the run's
// network, its ports published (on 127.0.0.1 where the engine is local). It returns once
// the container runs; readiness is the caller's.
func (h *Home) Serve(ctx context.Context, args []string, ports []int) error {
	h.mu.Lock()
	if h.node != nil {
		h.mu.Unlock()
		return fmt.Errorf("container engine: %s already serves", h.spec.Kind)
	}
	h.mu.Unlock()
	n, err := startNode(ctx, nodeSpec{
		kind: h.spec.Kind, image: h.spec.Image, entrypoint: h.spec.Entrypoint, cmd: args, ports: ports,
		state: h.spec.Mount, volume: h.volume, labels: h.spec.Labels,
	})
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.node = n
	h.ids = append(h.ids, n.container().GetContainerID())
	h.mu.Unlock()
	return nil
}

// URL is http://host:port where this machine reaches the node's container port.
func (h *Home) URL(port int) string {
	if n := h.server(); n != nil {
		return n.url(port)
	}
	return ""
}

// Exited reports whether the node's container has stopped, and how.
func (h *Home) Exited(ctx context.Context) (bool, error) {
	n := h.server()
	if n == nil {
		return false, nil
	}
	ctr := n.container()
	if ctr == nil {
		return true, errors.New("removed")
	}
	st, err := ctr.State(ctx)
	if err != nil {
		return false, nil // the next check asks again
	}
	if st.Running {
		return false, nil
	}
	return true, fmt.Errorf("exit code %d", st.ExitCode)
}

// Logs is the node container's log.
func (h *Home) Logs() string {
	if n := h.server(); n != nil {
		return n.logs()
	}
	return ""
}

// ServerID is the node container's ID ("" before Serve).
func (h *Home) ServerID() string {
	if n := h.server(); n != nil {
		if ctr := n.container(); ctr != nil {
			return ctr.GetContainerID()
		}
	}
	return ""
}

// Containers are the IDs of every container the home made (commands, edits, the node).
func (h *Home) Containers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.ids...)
}

// Close stops and removes the node's container and every command container still there,
// by ID, then the volume.
func (h *Home) Close(ctx context.Context) error {
	var errs []error
	if n := h.server(); n != nil {
		errs = append(errs, n.stop(ctx))
	}
	c, err := dockerClient(ctx)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	defer c.Close()
	for _, id := range h.Containers() {
		if _, err := c.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true}); err != nil && !gone(err) {
			errs = append(errs, fmt.Errorf("container engine: remove %s container %s: %w", h.spec.Kind, id, err))
		}
	}
	if _, err := c.VolumeRemove(ctx, h.volume, client.VolumeRemoveOptions{Force: true}); err != nil && !gone(err) {
		errs = append(errs, fmt.Errorf("container engine: remove volume %s: %w", h.volume, err))
	}
	return errors.Join(errs...)
}
