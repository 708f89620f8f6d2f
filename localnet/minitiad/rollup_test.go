package minitiad_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
			r, err := minitiad.Engine{}.StartRollup(ctx, vm)
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
			var info struct {
				App struct {
					Name string `json:"name"`
				} `json:"application_version"`
			}
			get(t, ends.REST+"/cosmos/base/tendermint/v1beta1/node_info", &info)
			if info.App.Name != minitiad.Dist(vm) {
				t.Errorf("node_info application name %q, want %q", info.App.Name, minitiad.Dist(vm))
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
			var params struct {
				Params struct {
					MinGasPrices []struct{ Denom, Amount string } `json:"min_gas_prices"`
				} `json:"params"`
			}
			get(t, ends.REST+"/opinit/opchild/v1/params", &params)
			if len(params.Params.MinGasPrices) != 1 || params.Params.MinGasPrices[0].Denom != minitiad.Denom {
				t.Errorf("opchild min gas prices %+v", params.Params.MinGasPrices)
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
