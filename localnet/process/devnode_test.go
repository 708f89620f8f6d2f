package process

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/minitia/nodetest"
)

// The dev node binary serves on loopback, funds the accounts of the mnemonics this process
// chose (its output never carries them), and stops with its process group.
func TestDevNodeBinaryServesAndStops(t *testing.T) {
	e := Engine{Node: DevNode}
	requireNode(t, e, vip.Wasm)
	if e.Name() != "process-devnode" {
		t.Fatalf("name %q", e.Name())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := e.StartRollup(ctx, vip.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	d := r.(*DevNodeRollup)
	pid := d.node.cmd.Process.Pid
	ep := r.Endpoints()
	if !strings.HasPrefix(ep.CometRPC, "http://127.0.0.1:") || !strings.HasPrefix(ep.REST, "http://127.0.0.1:") || ep.JSONRPC != "" {
		t.Fatalf("endpoints %+v", ep)
	}
	c, err := cosmostx.Dial(ctx, ep.CometRPC, ep.REST)
	if err != nil {
		_ = r.Stop(ctx)
		t.Fatal(err)
	}
	if c.ChainID != r.ChainID() || r.VM() != vip.Wasm {
		t.Errorf("chain %q vs %q, vm %s", c.ChainID, r.ChainID(), r.VM())
	}
	for _, a := range r.Funded() {
		if _, _, err := c.Account(ctx, a.Address); err != nil {
			t.Errorf("funded %s: %v", a.Address, err)
		}
		// The coin type 60 eth_secp256k1 account of the mnemonic too (Initia's wallets).
		if a.CoinType60Address == "" || a.CoinType60Address == a.Address {
			t.Errorf("funded %s: coin type 60 account %q", a.Address, a.CoinType60Address)
		} else if _, _, err := c.Account(ctx, a.CoinType60Address); err != nil {
			t.Errorf("funded coin type 60 %s: %v", a.CoinType60Address, err)
		}
		if strings.Contains(d.Logs(), strings.Join(strings.Fields(a.Mnemonic)[:3], " ")) {
			t.Error("the node's output carries a mnemonic")
		}
	}
	home := d.node.home
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("dev node pid %d still runs after Stop", pid)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("home %s left behind: %v", home, err)
	}
}

// The dev node binary runs the EVM rollup built as a minievm is: its JSON-RPC on loopback,
// the mnemonics' accounts funded under their 0x addresses with their keys.
func TestDevNodeBinaryRunsTheEVMRollup(t *testing.T) {
	e := Engine{Node: DevNode}
	requireNode(t, e, vip.EVM)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := e.StartRollup(ctx, vip.EVM)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop(ctx)
	ep := r.Endpoints()
	if !strings.HasPrefix(ep.JSONRPC, "http://127.0.0.1:") || !strings.HasPrefix(ep.JSONRPCWS, "ws://127.0.0.1:") || !strings.HasPrefix(ep.CometRPC, "http://127.0.0.1:") {
		t.Fatalf("endpoints %+v", ep)
	}
	c, err := ethclient.DialContext(ctx, ep.JSONRPC)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if id, err := c.ChainID(ctx); err != nil || id.Uint64() != probe.DeriveEVMChainID(embedded.DefaultEVMCosmosChainID) {
		t.Fatalf("chain id %v, %v", id, err)
	}
	for _, a := range r.Funded() {
		key, err := crypto.HexToECDSA(a.PrivateKey)
		if err != nil {
			t.Fatal(err)
		}
		if got := crypto.PubkeyToAddress(key.PublicKey).Hex(); got != a.Address {
			t.Fatalf("funded %s, its key's address %s", a.Address, got)
		}
		if bal, err := c.BalanceAt(ctx, common.HexToAddress(a.Address), nil); err != nil || bal.Sign() <= 0 {
			t.Fatalf("funded %s: balance %v, %v", a.Address, bal, err)
		}
	}
}

// The dev node binary, Move and Wasm, passes the minitia node suite as the in-process app
// does: the same chain, reached only through its ports.
func TestDevNodeBinaryPassesTheNodeSuite(t *testing.T) {
	e := Engine{Node: DevNode}
	for _, n := range []nodetest.Node{{VM: vip.Move, ChainID: embedded.DefaultMoveChainID}, {VM: vip.Wasm, ChainID: embedded.DefaultWasmChainID}} {
		t.Run(string(n.VM), func(t *testing.T) {
			requireNode(t, e, n.VM)
			n.Start = nodetest.StartOn(e, n.VM)
			nodetest.Run(t, n)
		})
	}
}

func TestFindReady(t *testing.T) {
	want := minitia.Ready{VM: "wasm", ChainID: "c-1", Prefix: "init", CometRPC: "http://127.0.0.1:1", REST: "http://127.0.0.1:2", Funded: []string{"init1x"}}
	got, ok, err := minitia.FindReady("time=... level=INFO msg=started\n" + want.Line() + "\nmore\n")
	if err != nil || !ok || got.ChainID != want.ChainID || got.REST != want.REST || len(got.Funded) != 1 {
		t.Fatalf("FindReady = %+v %v %v", got, ok, err)
	}
	if _, ok, err := minitia.FindReady("nothing yet\n"); ok || err != nil {
		t.Fatalf("no line: %v %v", ok, err)
	}
	if _, _, err := minitia.FindReady(minitia.ReadyPrefix + "{broken\n"); err == nil {
		t.Fatal("a broken ready line must be an error")
	}
}

// A dev node that a failed spec asks to dump prints where each goroutine waits, and ends.
func TestDevNodeDumpsItsGoroutines(t *testing.T) {
	e := Engine{Node: DevNode}
	requireNode(t, e, vip.Wasm)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := e.StartRollup(ctx, vip.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop(ctx)
	out := r.(*DevNodeRollup).Dump()
	if !strings.Contains(out, "goroutine ") || !strings.Contains(out, "SIGQUIT") {
		t.Fatalf("the dump shows no goroutines:\n%s", lastLines(out, 20))
	}
	if exited, _ := r.(*DevNodeRollup).node.exited(); !exited {
		t.Fatal("the node still runs after its dump")
	}
}
