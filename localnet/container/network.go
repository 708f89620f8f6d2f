package container

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"sync"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcnetwork "github.com/testcontainers/testcontainers-go/network"
)

// runNetwork is the Docker network this process's containers join: created with the first
// container and removed with the last, so containers of one run reach each other by their
// aliases, and no container needs the host's network.
type runNetwork struct {
	mu    sync.Mutex
	net   *testcontainers.DockerNetwork
	users int
}

var shared runNetwork

// join returns the run's network name, creating the network for the first user.
func (n *runNetwork) join(ctx context.Context) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.net == nil {
		nw, err := tcnetwork.New(ctx, tcnetwork.WithLabels(map[string]string{Label: "network", ownerLabel: owner}))
		if err != nil {
			return "", fmt.Errorf("container engine: create the run's network: %w", err)
		}
		n.net = nw
	}
	n.users++
	return n.net.Name, nil
}

// leave drops one user and removes the network when none is left.
func (n *runNetwork) leave(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.users == 0 {
		return nil
	}
	n.users--
	if n.users > 0 || n.net == nil {
		return nil
	}
	nw := n.net
	n.net = nil
	if err := nw.Remove(ctx); err != nil {
		return fmt.Errorf("container engine: remove the run's network: %w", err)
	}
	return nil
}

// dockerHost is where the Docker engine publishes container ports, as testcontainers
// reports it (TESTCONTAINERS_HOST_OVERRIDE, else DOCKER_HOST's host, else localhost or,
// inside a container, the gateway).
type dockerHost struct {
	// host is what clients dial ("127.0.0.1" for a local engine).
	host string
	// bind is the address ports are published on: 127.0.0.1 where the engine is local (so
	// nothing is reachable from outside this machine), all interfaces where it is not.
	bind netip.Addr
}

var (
	hostOnce sync.Once
	hostVal  dockerHost
	hostErr  error
	// sameMachine: the engine listens on a local socket and runs on this very machine.
	sameMachine bool
)

func publishHost(ctx context.Context) (dockerHost, error) {
	hostOnce.Do(func() {
		p, err := testcontainers.NewDockerProvider()
		if err != nil {
			hostErr = fmt.Errorf("container engine: %w", err)
			return
		}
		defer p.Close()
		h, err := p.DaemonHost(ctx)
		if err != nil {
			hostErr = fmt.Errorf("container engine: where does Docker publish ports: %w", err)
			return
		}
		sameMachine = onThisMachine(ctx, p.Client())
		hostVal = hostFor(h, sameMachine)
	})
	return hostVal, hostErr
}

// onThisMachine reports whether the engine behind a local socket runs on this machine.
// testcontainers takes a socket seen inside a container for the outer host's (a mounted
// /var/run/docker.sock) and dials the bridge gateway; a dockerd started inside this same
// container (a CI job's own engine, as .ci/run starts) reports this machine's host name,
// and its published ports are on this machine's loopback. TESTCONTAINERS_HOST_OVERRIDE
// keeps the last word.
func onThisMachine(ctx context.Context, c client.APIClient) bool {
	if _, set := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); set {
		return false
	}
	u, err := url.Parse(c.DaemonHost())
	if err != nil || (u.Scheme != "unix" && u.Scheme != "npipe") {
		return false
	}
	info, err := c.Info(ctx, client.InfoOptions{})
	if err != nil {
		return false
	}
	h, err := os.Hostname()
	return err == nil && h != "" && info.Info.Name == h
}

// hostFor decides how to publish and dial for the host testcontainers names.
func hostFor(h string, sameMachine bool) dockerHost {
	if h == "localhost" || sameMachine {
		// Published on 127.0.0.1 (IPv4) below: dial that, not whatever localhost resolves to.
		return dockerHost{host: "127.0.0.1", bind: netip.MustParseAddr("127.0.0.1")}
	}
	if ip, err := netip.ParseAddr(h); err == nil && ip.IsLoopback() {
		return dockerHost{host: h, bind: ip}
	}
	return dockerHost{host: h}
}

// url is http://host:port.
func (d dockerHost) url(port int) string {
	return "http://" + net.JoinHostPort(d.host, strconv.Itoa(port))
}

// dockerClient is a client for the engine testcontainers uses (DOCKER_HOST, the
// testcontainers properties, or the default socket).
func dockerClient(ctx context.Context) (*client.Client, error) {
	c, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("container engine: docker client: %w", err)
	}
	return c.Client, nil
}
