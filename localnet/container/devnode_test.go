package container

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/minitia/nodetest"
	"github.com/vipharness/vipharness/localnet/process"
)

// The dev node image, Move and Wasm, passes the minitia node suite as the in-process app and
// the dev node process do: the same chain, reached only through the ports Docker publishes.
func TestDevNodeContainerPassesTheNodeSuite(t *testing.T) {
	e := Engine{Node: process.DevNode}
	for _, n := range []nodetest.Node{{VM: vip.Move, ChainID: embedded.DefaultMoveChainID}, {VM: vip.Wasm, ChainID: embedded.DefaultWasmChainID}} {
		t.Run(string(n.VM), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			requireDocker(t, ctx, e, n.VM)
			cancel()
			n.Start = nodetest.StartOn(e, n.VM)
			nodetest.Run(t, n)
		})
	}
}

// A dev node whose published port first answers as another server (errForeignPort) starts
// again on fresh ports with its seeds: the mnemonics and, on Move, Initia's library. CI
// once saw the second container exit at once because only the first start copied them.
func TestDevNodeStartsAgainAfterAForeignPort(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	e := Engine{Node: process.DevNode}
	requireDocker(t, ctx, e, vip.Move)
	spec, _, done, err := e.devNodeSpec(ctx, vip.Move)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	checks, check := 0, spec.check
	spec.check = func(ctx context.Context, n *node) error {
		if checks++; checks == 1 {
			return fmt.Errorf("%w: as if another container held the port", errForeignPort)
		}
		return check(ctx, n)
	}
	n, err := startNode(ctx, spec)
	if err != nil {
		t.Fatalf("start after a foreign port: %v", err)
	}
	t.Cleanup(func() { _ = n.stop(context.Background()) })
	if checks != 2 {
		t.Fatalf("the node was checked %d times, want 2 (one refused start, one good)", checks)
	}
	ready, ok, err := minitia.FindReady(n.logs())
	if err != nil || !ok {
		t.Fatalf("no ready line after the second start (%v):\n%s", err, n.logs())
	}
	if ready.VM != string(vip.Move) {
		t.Fatalf("ready line names VM %q, want move", ready.VM)
	}
}

// A dev node container that a failed spec asks to dump prints where each goroutine waits,
// and ends.
func TestDevNodeContainerDumpsItsGoroutines(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e := Engine{Node: process.DevNode}
	requireDocker(t, ctx, e, vip.Wasm)
	r, err := e.StartRollup(ctx, vip.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop(context.Background())
	out := r.(*DevNodeRollup).Dump()
	if !strings.Contains(out, "goroutine ") || !strings.Contains(out, "SIGQUIT") {
		t.Fatalf("the dump shows no goroutines:\n%s", process.LastLines(out, 20))
	}
	st, err := r.(*DevNodeRollup).node.container().State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Running {
		t.Fatal("the node still runs after its dump")
	}
}
