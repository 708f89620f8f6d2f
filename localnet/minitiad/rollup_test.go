package minitiad_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitiad"
)

// requireBinary skips the test when vm's minitiad is not here (naming where it looked), or
// fails it under REQUIRE_MINITIA=1.
func requireBinary(t *testing.T, vm vip.VM) {
	t.Helper()
	if err := (minitiad.Engine{}).Available(context.Background(), vm); err != nil {
		if os.Getenv("REQUIRE_MINITIA") == "1" {
			t.Fatalf("REQUIRE_MINITIA=1: %v", err)
		}
		t.Skip(err)
	}
}

// Each real rollup starts as a single node: blocks, its REST naming the distribution, every
// account funded in both coin types, and its ports free again after Stop.
func TestStartsTheRealRollup(t *testing.T) {
	for _, vm := range []vip.VM{vip.EVM, vip.Wasm, vip.Move} {
		t.Run(string(vm), func(t *testing.T) {
			requireBinary(t, vm)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			bridge := minitiad.Bridge{ID: 7, L1ChainID: "vip-l1-1"}
			r, err := minitiad.Engine{Bridge: bridge}.StartRollup(ctx, vm)
			if err != nil {
				t.Fatal(err)
			}
			stopped := false
			defer func() {
				if !stopped {
					_ = r.Stop(ctx)
				}
			}()
			// Nothing is left to listen beyond loopback: no address in the node's config
			// binds every interface.
			for _, name := range []string{"config.toml", "app.toml"} {
				b, err := os.ReadFile(filepath.Join(r.(*minitiad.Rollup).Home(), "config", name))
				if err != nil {
					t.Fatal(err)
				}
				for _, line := range strings.Split(string(b), "\n") {
					// ([rollupsync]'s servers are addresses it would dial, and it is off.)
					if l := strings.TrimSpace(line); !strings.HasPrefix(l, "#") && !strings.Contains(l, "chain=") && (strings.Contains(l, "0.0.0.0") || strings.Contains(l, "\"localhost:") || strings.Contains(l, "= \":")) {
						t.Errorf("%s: %s", name, l)
					}
				}
			}
			ends := r.Endpoints()
			if info, err := cosmosnode.New(ends.REST, "", nil).NodeInfo(context.Background()); err != nil || info.Name != minitiad.Dist(vm) {
				t.Errorf("node_info application name %q (%v), want %q", info.Name, err, minitiad.Dist(vm))
			}
			if len(r.Funded()) != 2 {
				t.Fatalf("funded %d accounts, want 2", len(r.Funded()))
			}
			for _, a := range r.Funded() {
				for _, addr := range []string{a.CoinType60Address, a.CoinType118Address, a.Address} {
					if !strings.HasPrefix(addr, "init1") {
						continue
					}
					var bal struct {
						Balance struct {
							Amount string `json:"amount"`
						} `json:"balance"`
					}
					get(t, ends.REST+"/cosmos/bank/v1beta1/balances/"+addr+"/by_denom?denom="+minitiad.Denom, &bal)
					if bal.Balance.Amount == "" || bal.Balance.Amount == "0" {
						t.Errorf("%s holds %q %s", addr, bal.Balance.Amount, minitiad.Denom)
					}
				}
			}
			// The bank send that takes minievm past height 1 comes from a key of the node's
			// own, not from an account its users sign with: their nonces start at 0, as on
			// the embedded EVM (Hardhat Ignition refuses an account with a tx of under 5
			// confirmations, and idle blocks come a minute apart).
			if ends.JSONRPC != "" {
				for _, a := range r.Funded() {
					if n := nonce(t, ends.JSONRPC, a.Address); n != "0x0" {
						t.Errorf("funded account %s has nonce %s after start, want 0x0", a.Address, n)
					}
				}
			}
			var params struct {
				Params struct {
					MinGasPrices []struct{ Denom, Amount string } `json:"min_gas_prices"`
				} `json:"params"`
			}
			get(t, ends.REST+"/opinit/opchild/v1/params", &params)
			if len(params.Params.MinGasPrices) != 1 || params.Params.MinGasPrices[0].Denom != minitiad.Denom {
				t.Errorf("opchild min gas prices %+v", params.Params.MinGasPrices)
			}
			// The bridge, as registration tools read it from opchild.
			b, err := (&probe.Client{REST: ends.REST}).BridgeInfo(ctx)
			if err != nil || b.ID != bridge.ID || b.Address != bridge.Address() || b.L1ChainID != bridge.L1ChainID {
				t.Errorf("opchild bridge_info %+v (%v), want bridge %d at %s on %s", b, err, bridge.ID, bridge.Address(), bridge.L1ChainID)
			}
			if err := r.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			stopped = true
			for _, u := range []string{ends.CometRPC, ends.REST, ends.JSONRPC} {
				if u == "" {
					continue
				}
				if resp, err := http.Get(u); err == nil {
					resp.Body.Close()
					t.Errorf("%s still answers after Stop", u)
				}
			}
		})
	}
}

// Without a binary the engine says where it looked and what to set.
func TestFindNamesWhereItLooked(t *testing.T) {
	t.Setenv("VIPHARNESS_MINITIA", t.TempDir())
	t.Setenv(minitiad.EnvVar(vip.Move), "")
	_, err := minitiad.Find(vip.Move)
	if err == nil || !strings.Contains(err.Error(), "VIPHARNESS_MINIMOVE") || !strings.Contains(err.Error(), "minimove/minitiad") {
		t.Fatalf("err %v", err)
	}
	t.Setenv(minitiad.EnvVar(vip.Move), "/nonexistent/minitiad")
	if _, err := minitiad.Find(vip.Move); err == nil || !strings.Contains(err.Error(), "VIPHARNESS_MINIMOVE=/nonexistent/minitiad") {
		t.Fatalf("err %v", err)
	}
}

var _ localnet.KeyTyped = (*minitiad.Rollup)(nil)

func nonce(t *testing.T, url, addr string) string {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionCount","params":[%q,"latest"]}`, addr)
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reply struct{ Result string }
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		t.Fatal(err)
	}
	return reply.Result
}

func get(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(fmt.Errorf("GET %s: %w: %s", url, err, b))
	}
}

// requireImage returns vm's image for the image path: ImageEnvVar's, else the VM's minitiad
// packaged into a local image. It skips, naming what is missing (Docker, an image or a
// binary), or fails under REQUIRE_MINITIA=1.
func requireImage(t *testing.T, ctx context.Context, vm vip.VM) minitiad.Image {
	t.Helper()
	skip := func(err error) {
		t.Helper()
		if os.Getenv("REQUIRE_MINITIA") == "1" {
			t.Fatalf("REQUIRE_MINITIA=1: %v", err)
		}
		t.Skip(err)
	}
	if err := (minitiad.Engine{Containers: true}).Available(ctx, vm); err != nil {
		skip(err)
	}
	img, err := minitiad.FindImage(vm)
	if err != nil {
		t.Fatal(err)
	}
	if img.Ref != "" {
		return img
	}
	bin, err := minitiad.Find(vm)
	if err != nil {
		skip(err)
	}
	if img, err = minitiad.PackageImage(ctx, bin, vm); err != nil {
		t.Fatal(err)
	}
	return img
}

// Each real rollup starts from an image as from its binary: every minitiad command in a
// container on the home's volume, the node serving on published ports; chain id, REST
// naming the distribution, funded accounts, minievm's JSON-RPC; and after Stop no
// container and no volume of it is left.
func TestStartsFromAnImage(t *testing.T) {
	for _, vm := range []vip.VM{vip.EVM, vip.Wasm, vip.Move} {
		t.Run(string(vm), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			img := requireImage(t, ctx, vm)
			r, err := minitiad.Engine{Images: map[vip.VM]minitiad.Image{vm: img}}.StartRollup(ctx, vm)
			if err != nil {
				t.Fatal(err)
			}
			rollup := r.(*minitiad.Rollup)
			stopped := false
			defer func() {
				if !stopped {
					_ = r.Stop(ctx)
				}
			}()
			ends := r.Endpoints()
			for _, u := range []string{ends.CometRPC, ends.REST, ends.JSONRPC} {
				if u != "" && !strings.HasPrefix(u, "http://127.0.0.1:") {
					t.Errorf("endpoint %s is not on 127.0.0.1", u)
				}
			}
			var status struct {
				Result struct {
					NodeInfo struct {
						Network string `json:"network"`
					} `json:"node_info"`
				} `json:"result"`
			}
			get(t, ends.CometRPC+"/status", &status)
			if got, want := status.Result.NodeInfo.Network, minitiad.Dist(vm)+"-1"; got != want || r.ChainID() != want {
				t.Errorf("chain id %q (rollup says %q), want %q", got, r.ChainID(), want)
			}
			if info, err := cosmosnode.New(ends.REST, "", nil).NodeInfo(context.Background()); err != nil || info.Name != minitiad.Dist(vm) {
				t.Errorf("node_info application name %q (%v), want %q", info.Name, err, minitiad.Dist(vm))
			}
			// The funded account's init1 address of coin type 60 (its Address on minimove).
			a := r.Funded()[0]
			addr := a.CoinType60Address
			if !strings.HasPrefix(addr, "init1") {
				addr = a.Address
			}
			var bal struct {
				Balance struct {
					Amount string `json:"amount"`
				} `json:"balance"`
			}
			get(t, ends.REST+"/cosmos/bank/v1beta1/balances/"+addr+"/by_denom?denom="+minitiad.Denom, &bal)
			if bal.Balance.Amount == "" || bal.Balance.Amount == "0" {
				t.Errorf("%s holds %q %s", addr, bal.Balance.Amount, minitiad.Denom)
			}
			if ends.JSONRPC != "" {
				var reply struct {
					Result string `json:"result"`
				}
				post(t, ends.JSONRPC, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`, &reply)
				if want := fmt.Sprintf("0x%x", probe.DeriveEVMChainID(r.ChainID())); reply.Result != want {
					t.Errorf("eth_chainId %q, want %q", reply.Result, want)
				}
			}
			ids := rollup.Containers()
			if rollup.Volume() == "" {
				t.Fatal("no volume")
			}
			if len(ids) < 2 {
				t.Fatalf("containers %v: want the setup's and the node's", ids)
			}
			if err := r.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			stopped = true
			for _, id := range ids {
				if out, err := exec.CommandContext(ctx, "docker", "inspect", "--format", "{{.State.Status}}", id).CombinedOutput(); err == nil {
					t.Errorf("container %s is still there after Stop: %s", id, out)
				}
			}
			if out, err := exec.CommandContext(ctx, "docker", "volume", "inspect", rollup.Volume()).CombinedOutput(); err == nil {
				t.Errorf("volume %s is still there after Stop: %s", rollup.Volume(), out)
			}
		})
	}
}

func post(t *testing.T, url, body string, v any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("POST %s: %v: %s", url, err, b)
	}
}
