package container

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/wasmddev"
)

// requireDocker skips without Docker or the node binary, unless REQUIRE_DOCKER=1 (CI)
// makes that a failure.
func requireDocker(t *testing.T, ctx context.Context, e Engine, vm vip.VM) {
	t.Helper()
	if err := e.Available(ctx, vm); err != nil {
		if os.Getenv("REQUIRE_DOCKER") == "1" || os.Getenv("CI") == "true" {
			t.Fatalf("REQUIRE_DOCKER=1: %v", err)
		}
		t.Skipf("container engine unavailable: %v (set REQUIRE_DOCKER=1 to fail instead)", err)
	}
}

func TestGethContainerServesOnLoopbackAndIsRemoved(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	e := Engine{}
	requireDocker(t, ctx, e, vip.EVM)
	if _, err := Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := e.StartRollup(ctx, vip.EVM)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = r.Stop(context.Background())
		}
	})
	ep := r.Endpoints()
	if !strings.HasPrefix(ep.JSONRPC, "http://127.0.0.1:") || r.ChainID() != "1337" {
		t.Fatalf("endpoints %+v chain %s", ep, r.ChainID())
	}
	ver, err := cosmosnode.New("", ep.CometRPC, nil).ABCIInfo(ctx)
	if err != nil || !strings.Contains(strings.ToLower(ver.Version), "geth") {
		t.Fatalf("abci_info %+v, %v", ver, err)
	}
	if logs := r.(*GethRollup).Logs(); !strings.Contains(logs, "HTTP server started") {
		t.Fatalf("container log lacks the readiness line:\n%s", logs)
	}
	if n := labelled(t, ctx); n != 1 {
		t.Fatalf("%d labelled containers while running, want 1", n)
	}
	g := r.(*GethRollup)
	published(t, ctx, g.node, gethHTTPPort)
	// Another container on the run's network reaches geth by its alias.
	if out := sibling(t, ctx, g.node, "attach", "--exec", "eth.chainId()", g.InNetwork()); !strings.Contains(out, `"0x539"`) {
		t.Fatalf("geth attach %s from a sibling container: %s", g.InNetwork(), out)
	}
	before, err := g.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Restart(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if after, err := g.Head(ctx); err != nil || after < before {
		t.Fatalf("after restart: head %d (%v), want >= %d", after, err, before)
	}
	if got := r.Endpoints(); got.JSONRPC != ep.JSONRPC {
		t.Fatalf("after restart the endpoint moved from %s to %s: a push in flight would lose its node", ep.JSONRPC, got.JSONRPC)
	}
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if n := labelled(t, ctx); n != 0 {
		t.Fatalf("%d labelled containers left after Stop", n)
	}
}

// published checks that n runs without host networking, on the run's network, with each
// port published on 127.0.0.1 of the (local) Docker host.
func published(t *testing.T, ctx context.Context, n *node, ports ...int) {
	t.Helper()
	c, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	in, err := c.ContainerInspect(ctx, n.container().GetContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mode := in.Container.HostConfig.NetworkMode; mode.IsHost() {
		t.Fatalf("network mode %q: host networking", mode)
	}
	if _, ok := in.Container.NetworkSettings.Networks[n.net]; !ok {
		t.Fatalf("not on the run's network %s: %v", n.net, in.Container.NetworkSettings.Networks)
	}
	for _, p := range ports {
		b := in.Container.NetworkSettings.Ports[network.MustParsePort(fmt.Sprintf("%d/tcp", p))]
		if len(b) == 0 || b[0].HostIP.String() != "127.0.0.1" || n.url(p) != "http://127.0.0.1:"+b[0].HostPort {
			t.Fatalf("port %d published as %+v, endpoint %s; want 127.0.0.1 and that port", p, b, n.url(p))
		}
	}
}

// sibling runs n's image with args in a container on n's network, and returns its output.
func sibling(t *testing.T, ctx context.Context, n *node, args ...string) string {
	t.Helper()
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image: n.image, Cmd: args, Networks: []string{n.net},
			Labels:     map[string]string{Label: "container", ownerLabel: owner},
			WaitingFor: wait.ForExit().WithExitTimeout(time.Minute),
		},
		Started: true,
	})
	if ctr != nil {
		defer func() { _ = ctr.Terminate(context.Background()) }()
	}
	if err != nil {
		t.Fatal(err)
	}
	return readAll(ctr.Logs(ctx))
}

func labelled(t *testing.T, ctx context.Context) int {
	t.Helper()
	c, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Only this process's containers: other test packages may run containers meanwhile.
	list, err := c.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", ownerLabel+"="+owner)})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

func TestExpand(t *testing.T) {
	got := expand([]string{"--http.port", "{{http_port}}", "--datadir={{datadir}}"}, map[string]string{"http_port": "8545", "datadir": "/data"})
	if strings.Join(got, " ") != "--http.port 8545 --datadir=/data" {
		t.Fatal(got)
	}
}

func TestOwnerLabelTellsLiveRunsFromDeadOnes(t *testing.T) {
	if owner == "" || !alive(owner) {
		t.Fatalf("this process (%q) must count as alive", owner)
	}
	host, id, _ := strings.Cut(owner, "/")
	pid, start, _ := strings.Cut(id, ":")
	if alive(host + "/" + pid + ":" + start + "0") {
		t.Fatal("same pid with another start time must count as dead")
	}
	if !alive(id) {
		t.Fatal("a label of the earlier form (no host) names this machine")
	}
	if alive(host+"/999999999:1") || alive("999999999:1") || alive("garbage") || alive("") {
		t.Fatal("a missing process must count as dead")
	}
	if !alive("another-machine/999999999:1") {
		t.Fatal("another machine's run is not this machine's to judge (a shared remote engine)")
	}
}

func TestWasmdContainerServesOnLoopbackAndIsRemoved(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	e := Engine{}
	requireDocker(t, ctx, e, vip.Wasm)
	r, err := e.StartRollup(ctx, vip.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = r.Stop(context.Background())
		}
	})
	ep := r.Endpoints()
	ver, err := cosmosnode.New("", ep.CometRPC, nil).ABCIInfo(ctx)
	if err != nil || ver.LastBlockHeight == 0 {
		t.Fatalf("abci_info %+v, %v", ver, err)
	}
	resp, err := http.Get(ep.REST + "/cosmos/auth/v1beta1/bech32")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"wasm"`) {
		t.Fatalf("bech32 prefix reply %s", body)
	}
	if n := labelled(t, ctx); n != 1 {
		t.Fatalf("%d labelled containers while running, want 1", n)
	}
	w := r.(*WasmdRollup)
	published(t, ctx, w.node, wasmddev.DefaultPorts.RPC, wasmddev.DefaultPorts.REST)
	if err := w.Restart(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := r.Endpoints(); got != ep {
		t.Fatalf("after restart the endpoints moved from %+v to %+v", ep, got)
	}
	if after, err := cosmosnode.New("", ep.CometRPC, nil).ABCIInfo(ctx); err != nil || after.LastBlockHeight < ver.LastBlockHeight {
		t.Fatalf("after restart: %+v, %v", after, err)
	}
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if n := labelled(t, ctx); n != 0 {
		t.Fatalf("%d labelled containers left after Stop", n)
	}
}
