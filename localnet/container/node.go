package container

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// seed is a host folder copied into a container before its first start. Files travel
// through the Docker API (no bind mount), so a remote engine gets them too.
type seed struct {
	hostDir string
	// at is the folder inside the container that receives hostDir's contents.
	at string
	// only, when set, copies only these file names from hostDir.
	only []string
}

// nodeSpec is how one node runs in a container.
type nodeSpec struct {
	kind  string // "geth", "wasmd", "devnode": the alias prefix
	image string // an image to run; else build
	build *testcontainers.FromDockerfile
	// entrypoint replaces the image's entrypoint (nil: the image's own).
	entrypoint []string
	cmd        []string
	ports      []int  // container ports to publish (tcp)
	state      string // a folder kept in a volume across Restart ("" none)
	// volume is an existing volume to mount at state instead of a new one; the node
	// removes it with itself all the same.
	volume string
	seeds  []seed
	tmpfs  map[string]string
	wait   wait.Strategy
	labels map[string]string
	// check, when set, proves after each start that the published ports reach this
	// container; errForeignPort from it starts the container again on fresh ports.
	check func(ctx context.Context, n *node) error
}

// node is a running container of a rollup. Restart replaces the container with one on the
// same volume, network alias and host ports, so the node's endpoints hold across it.
type node struct {
	spec   nodeSpec
	host   dockerHost
	net    string
	alias  string
	volume string
	image  string // the image the first container ran (built or given)

	mu     sync.Mutex
	ctr    testcontainers.Container
	mapped map[int]int // container port -> host port
	left   bool        // left the network (Stop ran)
}

// startNode starts spec's container on the run's network with its ports published.
func startNode(ctx context.Context, spec nodeSpec) (_ *node, err error) {
	quiet()
	h, err := publishHost(ctx)
	if err != nil {
		return nil, err
	}
	netName, err := shared.join(ctx)
	if err != nil {
		return nil, err
	}
	n := &node{spec: spec, host: h, net: netName, alias: spec.kind + "-" + randHex(4)}
	defer func() {
		if err != nil {
			_ = n.stop(context.Background())
		}
	}()
	if spec.state != "" && spec.volume != "" {
		n.volume = spec.volume
	} else if spec.state != "" {
		c, err := dockerClient(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		v, err := c.VolumeCreate(ctx, client.VolumeCreateOptions{
			Name:   "vipharness-" + n.alias + "-" + randHex(4),
			Labels: map[string]string{Label: "volume", ownerLabel: owner},
		})
		if err != nil {
			return nil, fmt.Errorf("container engine: create a volume for %s: %w", spec.kind, err)
		}
		n.volume = v.Volume.Name
	}
	if err := n.start(ctx, true, nil); err != nil {
		return nil, err
	}
	return n, nil
}

// start runs the container (on pinned host ports when given) and checks its ports. When
// the pinned ports cannot be had, or a port answers as another server, it starts the
// container again on fresh ports, up to portAttempts times in all.
func (n *node) start(ctx context.Context, first bool, pinned map[int]int) error {
	var errs []error
	for attempt := 1; ; attempt++ {
		err := n.run(ctx, first, pinned)
		if err == nil && n.spec.check != nil {
			if err = n.spec.check(ctx, n); err != nil {
				n.removeContainer(context.Background())
			}
		}
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		again := errors.Is(err, errForeignPort) || pinned != nil
		if !again || attempt == portAttempts || ctx.Err() != nil {
			return errors.Join(errs...)
		}
		// The volume holds the seeds under it since the first start: later starts copy only
		// the seeds outside it (a node without a volume gets all of them again).
		first, pinned = false, nil
	}
}

// removeContainer removes the current container and keeps its volume.
func (n *node) removeContainer(ctx context.Context) {
	n.mu.Lock()
	c := n.ctr
	n.ctr = nil
	n.mu.Unlock()
	if c != nil {
		_ = c.Terminate(ctx)
	}
}

// run creates and starts a container; first copies the seeds in; pinned are host ports to
// publish on (nil: any).
func (n *node) run(ctx context.Context, first bool, pinned map[int]int) error {
	labels := map[string]string{Label: "container", ownerLabel: owner}
	for k, v := range n.spec.labels {
		labels[k] = v
	}
	req := testcontainers.ContainerRequest{
		Entrypoint:     n.spec.entrypoint,
		Cmd:            n.spec.cmd,
		Labels:         labels,
		Tmpfs:          n.spec.tmpfs,
		Networks:       []string{n.net},
		NetworkAliases: map[string][]string{n.net: {n.alias}},
		WaitingFor:     n.spec.wait,
		HostConfigModifier: func(hc *container.HostConfig) {
			hc.PortBindings = network.PortMap{}
			for _, p := range n.spec.ports {
				hp := ""
				if pinned != nil {
					hp = strconv.Itoa(pinned[p])
				}
				hc.PortBindings[network.MustParsePort(fmt.Sprintf("%d/tcp", p))] = []network.PortBinding{{HostIP: n.host.bind, HostPort: hp}}
			}
		},
	}
	for _, p := range n.spec.ports {
		req.ExposedPorts = append(req.ExposedPorts, fmt.Sprintf("%d/tcp", p))
	}
	if n.volume != "" {
		req.Mounts = testcontainers.ContainerMounts{testcontainers.VolumeMount(n.volume, testcontainers.ContainerMountTarget(n.spec.state))}
	}
	switch {
	case n.image != "":
		req.Image = n.image
	case n.spec.image != "":
		req.Image = n.spec.image
	default:
		req.FromDockerfile = *n.spec.build
	}
	if seeds := n.seedsToCopy(first); len(seeds) > 0 {
		req.LifecycleHooks = []testcontainers.ContainerLifecycleHooks{{
			PostCreates: []testcontainers.ContainerHook{func(ctx context.Context, c testcontainers.Container) error {
				return copySeeds(ctx, c.GetContainerID(), seeds)
			}},
		}}
	}
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{ContainerRequest: req, Started: true})
	if err != nil {
		log := ""
		if ctr != nil {
			// A container that exited before it was ready says why only in its log.
			lctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if l := readAll(ctr.Logs(lctx)); l != "" {
				log = "; log:\n" + l
			}
			cancel()
			_ = ctr.Terminate(context.Background())
		}
		return fmt.Errorf("container engine: start %s: %w%s", n.spec.kind, err, log)
	}
	mapped := map[int]int{}
	for _, p := range n.spec.ports {
		mp, err := ctr.MappedPort(ctx, fmt.Sprintf("%d/tcp", p))
		if err != nil {
			_ = ctr.Terminate(context.Background())
			return fmt.Errorf("container engine: %s port %d: %w", n.spec.kind, p, err)
		}
		mapped[p] = int(mp.Num())
	}
	host, err := ctr.Host(ctx)
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return fmt.Errorf("container engine: where %s's ports are: %w", n.spec.kind, err)
	}
	dial := hostFor(host, sameMachine).host
	if dc, ok := ctr.(*testcontainers.DockerContainer); ok && n.image == "" {
		n.image = dc.Image
	}
	n.mu.Lock()
	n.ctr, n.mapped, n.host.host = ctr, mapped, dial
	n.mu.Unlock()
	return nil
}

// url is the host-side URL of a container port.
func (n *node) url(port int) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.host.url(n.mapped[port])
}

// inNetwork is the URL of a container port for containers on the run's network.
func (n *node) inNetwork(port int) string {
	return "http://" + n.alias + ":" + strconv.Itoa(port)
}

func (n *node) container() testcontainers.Container {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ctr
}

// logs is the container's log.
func (n *node) logs() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := n.container()
	if c == nil {
		return ""
	}
	return readAll(c.Logs(ctx))
}

// restart stops the node, waits down, and starts it again on its volume. Docker gives a
// container new host ports at each start, and clients (a push in flight) hold the old ones:
// the new container is published on the same host ports, which the engine released a
// moment ago. Should one be taken meanwhile, the node comes back on fresh ports and its
// endpoints report them.
func (n *node) restart(ctx context.Context, down, grace time.Duration) error {
	if n.volume == "" {
		return fmt.Errorf("restart %s: it keeps no state to restart on", n.spec.kind)
	}
	old := n.container()
	if err := old.Stop(ctx, &grace); err != nil {
		return fmt.Errorf("restart %s: stop: %w", n.spec.kind, err)
	}
	if err := old.Terminate(ctx); err != nil {
		return fmt.Errorf("restart %s: remove the stopped container: %w", n.spec.kind, err)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(down):
	}
	n.mu.Lock()
	pinned := n.mapped
	n.mu.Unlock()
	if err := n.start(ctx, false, pinned); err != nil {
		return fmt.Errorf("restart %s: %w", n.spec.kind, err)
	}
	return nil
}

// stop removes the container, its volume, and this node's share of the network.
func (n *node) stop(ctx context.Context) error {
	var errs []error
	n.mu.Lock()
	c := n.ctr
	n.ctr = nil
	n.mu.Unlock()
	if c != nil {
		var opts []testcontainers.TerminateOption
		if n.volume != "" {
			opts = append(opts, testcontainers.RemoveVolumes(n.volume))
		}
		errs = append(errs, c.Terminate(ctx, opts...))
	}
	n.mu.Lock()
	left := n.left
	n.left = true
	n.mu.Unlock()
	if c == nil && n.volume != "" && !left {
		// The container failed to start: its volume is still ours to remove.
		if dc, err := dockerClient(ctx); err == nil {
			_, err = dc.VolumeRemove(ctx, n.volume, client.VolumeRemoveOptions{Force: true})
			errs = append(errs, err)
			dc.Close()
		}
	}
	if !left {
		errs = append(errs, shared.leave(ctx))
	}
	return errors.Join(errs...)
}

// seedsToCopy returns the seeds a start copies in: all on the first start, after it only
// those the node's volume does not keep.
func (n *node) seedsToCopy(first bool) []seed {
	if first {
		return n.spec.seeds
	}
	var out []seed
	for _, s := range n.spec.seeds {
		if !n.keeps(s.at) {
			out = append(out, s)
		}
	}
	return out
}

// keeps reports whether the node's volume holds the container path at.
func (n *node) keeps(at string) bool {
	if n.volume == "" || n.spec.state == "" {
		return false
	}
	state, at := path.Clean("/"+n.spec.state), path.Clean("/"+at)
	return at == state || strings.HasPrefix(at, strings.TrimSuffix(state, "/")+"/")
}

// copySeeds copies each seed into the created container, as one tar stream per seed.
func copySeeds(ctx context.Context, id string, seeds []seed) error {
	c, err := dockerClient(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, s := range seeds {
		var buf bytes.Buffer
		if err := tarDir(&buf, s.hostDir, s.at, s.only); err != nil {
			return fmt.Errorf("container engine: pack %s: %w", s.hostDir, err)
		}
		if _, err := c.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: "/", Content: &buf}); err != nil {
			return fmt.Errorf("container engine: copy %s into the container: %w", s.hostDir, err)
		}
	}
	return nil
}

// tarDir writes dir's tree (or only the named files) as a tar stream whose paths start at
// at (absolute in the container), keeping modes; symlinks are followed.
func tarDir(w io.Writer, dir, at string, only []string) error {
	tw := tar.NewWriter(w)
	at = path.Clean("/" + at)[1:]
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: at + "/", Mode: 0o755}); err != nil {
		return err
	}
	add := func(rel string, info fs.FileInfo) error {
		name := path.Join(at, filepath.ToSlash(rel))
		src := filepath.Join(dir, rel)
		if info.Mode()&fs.ModeSymlink != 0 {
			var err error
			if info, err = os.Stat(src); err != nil {
				return err
			}
		}
		if info.IsDir() {
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: int64(info.Mode().Perm()), ModTime: info.ModTime()})
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(info.Mode().Perm()), Size: info.Size(), ModTime: info.ModTime()}); err != nil {
			return err
		}
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	}
	if len(only) > 0 {
		for _, name := range only {
			info, err := os.Lstat(filepath.Join(dir, name))
			if err != nil {
				return err
			}
			if err := add(name, info); err != nil {
				return err
			}
		}
		return tw.Close()
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return add(rel, info)
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
