package embedded

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/registration/preflight"
	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/l1"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// needMoveVM skips without the Move libraries (the L1 stand-in and the Move rollup run on
// them), or fails when REQUIRE_NODES=1 (CI).
func needMoveVM(t *testing.T) {
	t.Helper()
	if _, err := movevm.OpenVM(movevm.Dir()); err != nil {
		if errors.Is(err, movevm.ErrNotInstalled) && os.Getenv("REQUIRE_NODES") != "1" {
			t.Skipf("%v (set REQUIRE_NODES=1 to fail instead)", err)
		}
		t.Fatal(err)
	}
}

func startL1(t *testing.T, st uint64) *l1.Server {
	t.Helper()
	s, err := l1.Start(context.Background(), l1.WithStage(st))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func statusOf(t *testing.T, rep preflight.Report, check string) preflight.Finding {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Check == check {
			return f
		}
	}
	t.Fatalf("no %q finding in %+v", check, rep.Findings)
	return preflight.Finding{}
}

func wantStatus(t *testing.T, rep preflight.Report, want map[string]preflight.Status) {
	t.Helper()
	for check, s := range want {
		if f := statusOf(t, rep, check); f.Status != s {
			t.Errorf("%s: %+v, want %s", check, f, s)
		}
	}
}

// The dev nodes answer where preflight reads them as a minitia does: abci_info "minitia",
// node_info minimove/miniwasm and minitiad, a semver version (a local build, so a warning).
func TestPreflightOnTheCosmosDevNodes(t *testing.T) {
	needMoveVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l := startL1(t, 3)
	for _, tc := range []struct {
		vm      vip.VM
		minitia string
		start   func(context.Context) (localnet.Rollup, error)
	}{
		{vip.Move, "minimove", func(ctx context.Context) (localnet.Rollup, error) { return StartMove(ctx) }},
		{vip.Wasm, "miniwasm", func(ctx context.Context) (localnet.Rollup, error) { return StartWasm(ctx) }},
	} {
		t.Run(string(tc.vm), func(t *testing.T) {
			r, err := tc.start(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = r.Stop(context.Background()) })
			ep := r.Endpoints()
			funded := r.Funded()[0].Address
			rep := preflight.Run(ctx, preflight.Config{
				CometRPC: ep.CometRPC, REST: ep.REST, L1: l1node.NewReader(l.URL(), l.VIPAddress(), nil),
				Accounts:  []preflight.Account{{Role: "deployer", Address: funded, Deploys: true, Pushes: true}, {Role: "operator", Address: "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7", Pushes: true}},
				FirstPush: 1000, GOOS: "linux", GOARCH: "amd64",
			})
			wantStatus(t, rep, map[string]preflight.Status{
				"rollup rpc": preflight.OK, "initia rollup": preflight.OK, "rollup rest": preflight.OK, "vm": preflight.OK,
				"version": preflight.Warn, "chain id": preflight.OK, "l1 stage": preflight.OK,
				"balance deployer": preflight.OK, "balance operator": preflight.Fail, "contract": preflight.Skip,
			})
			if f := statusOf(t, rep, "vm"); !strings.Contains(f.Detail, tc.minitia) {
				t.Errorf("vm: %+v", f)
			}
			if f := statusOf(t, rep, "l1 stage"); !strings.Contains(f.Detail, "stage is 3") {
				t.Errorf("l1: %+v", f)
			}
			if rep.OK || rep.Count(preflight.Fail) != 1 {
				t.Errorf("only the unfunded operator should fail: %+v", rep.Findings)
			}
		})
	}
}

// On the embedded EVM chain (geth underneath, a minievm's faces outside): JSON-RPC and the
// deploy estimate work, the node answers as an Initia rollup whose EVM chain id derives from
// its chain id, and a deployed contract is found, has the official interface and is checked
// against the L1 stage as the L1 moves on.
func TestPreflightOnTheEmbeddedEVM(t *testing.T) {
	needMoveVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l := startL1(t, 3)
	r, err := StartGeth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	ep := r.Endpoints()
	key, err := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	s, err := deployer.Open(ctx, deployer.Config{VM: vip.EVM, JSONRPC: ep.JSONRPC, Deployer: keys.FromECDSA(key, "deployer key"), Push: deployer.PushConfig{JournalDir: t.TempDir(), Poll: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	code, err := preflight.EVMCreationCode(1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := preflight.Config{
		VM: vip.EVM, CometRPC: ep.CometRPC, JSONRPC: ep.JSONRPC, L1: l1node.NewReader(l.URL(), l.VIPAddress(), nil),
		Accounts:  []preflight.Account{{Role: "deployer", Address: r.Funded()[0].Address, Deploys: true, Pushes: true}},
		FirstPush: 1000, GOOS: "linux", GOARCH: "amd64", EVMCreationCode: code,
	}
	rep := preflight.Run(ctx, cfg)
	wantStatus(t, rep, map[string]preflight.Status{
		"rollup rpc": preflight.OK, "initia rollup": preflight.OK, "evm json-rpc": preflight.OK, "evm chain id": preflight.OK,
		"l1 stage": preflight.OK, "balance deployer": preflight.OK,
	})
	if !rep.OK {
		t.Fatalf("%+v", rep.Findings)
	}

	d, err := s.Deploy(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ContractAddress = d.Contract
	cfg.Contract = preflight.EVMContract(&probe.Client{JSONRPC: ep.JSONRPC}, d.Contract, s.OpenStage)
	rep = preflight.Run(ctx, cfg)
	wantStatus(t, rep, map[string]preflight.Status{"contract": preflight.OK, "contract interface": preflight.OK, "contract stage": preflight.OK})

	if err := l.Set(ctx, 5); err != nil {
		t.Fatal(err)
	}
	rep = preflight.Run(ctx, cfg)
	if f := statusOf(t, rep, "contract stage"); f.Status != preflight.Fail || !strings.Contains(f.Fix, "finalize stages 3..4") {
		t.Fatalf("%+v", f)
	}
	// An address without code.
	cfg.Contract = preflight.EVMContract(&probe.Client{JSONRPC: ep.JSONRPC}, r.Funded()[0].Address, s.OpenStage)
	if f := statusOf(t, preflight.Run(ctx, cfg), "contract"); f.Status != preflight.Fail {
		t.Fatalf("%+v", f)
	}
}
