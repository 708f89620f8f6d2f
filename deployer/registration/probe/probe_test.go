package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/bindings/nodehttp"
)

func TestDeriveEVMChainID(t *testing.T) {
	// The value minievm and the registry CI give for evm-1 (FACTS).
	if got := DeriveEVMChainID("evm-1"); got != 2124225178762456 {
		t.Fatalf("evm-1 -> %d", got)
	}
	if DeriveEVMChainID("evm-1") == DeriveEVMChainID("evm-2") {
		t.Fatal("two chain ids derive the same EVM chain id")
	}
}

func TestReleaseFor(t *testing.T) {
	r, err := ReleaseFor("minievm", "v1.0.3", "linux", "amd64")
	if err != nil || r.Asset != "minievm_v1.0.3_Linux_x86_64.tar.gz" ||
		r.URL != "https://github.com/initia-labs/minievm/releases/download/v1.0.3/minievm_v1.0.3_Linux_x86_64.tar.gz" {
		t.Fatalf("%+v %v", r, err)
	}
	if r, err := ReleaseFor("minimove", "v1.0.0-rc.0-kami.1", "darwin", "arm64"); err != nil || r.Asset != "minimove_v1.0.0-rc.0-kami.1_Darwin_aarch64.tar.gz" {
		t.Fatalf("fork suffix: %+v %v", r, err)
	}
	var nr *ErrNotRelease
	r, err = ReleaseFor("miniwasm", "v1.2.3-4-gdeadbeef", "linux", "arm64")
	if !errors.As(err, &nr) || r.Tag != "v1.2.3" || !strings.Contains(err.Error(), "4 commits after v1.2.3") {
		t.Fatalf("git describe: %+v %v", r, err)
	}
	if r, err := ReleaseFor("minimove", "v0.0.0-devnode+movevm.v0.7.0", "linux", "arm64"); !errors.As(err, &nr) || r.Tag != "v0.0.0-devnode" {
		t.Fatalf("build metadata: %+v %v", r, err)
	}
	if _, err := ReleaseFor("miniwasm", "v1.2.3-dirty", "linux", "arm64"); !errors.As(err, &nr) {
		t.Fatalf("dirty: %v", err)
	}
	for _, v := range []string{"1.0.0", "devnode", "v1.0", ""} {
		if _, err := ReleaseFor("minievm", v, "linux", "amd64"); !errors.As(err, &nr) {
			t.Errorf("%q: %v", v, err)
		}
	}
	if _, err := ReleaseFor("minievm", "v1.0.0", "windows", "amd64"); err == nil {
		t.Error("windows has a release")
	}
	if _, err := ReleaseFor("initia", "v1.0.0", "linux", "amd64"); err == nil {
		t.Error("the L1 is a minitia")
	}
}

func TestClientReadsTheFaces(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cosmos/base/tendermint/v1beta1/node_info":
			fmt.Fprint(w, `{"default_node_info":{"network":"rollup-1","moniker":"m"},"application_version":{"name":"minimove","app_name":"minitiad","version":"v1.0.2","build_tags":"netgo","cosmos_sdk_version":"v0.50.9"}}`)
		case "/cosmos/auth/v1beta1/bech32":
			fmt.Fprint(w, `{"bech32_prefix":"init"}`)
		case "/cosmos/base/node/v1beta1/config":
			fmt.Fprint(w, `{"minimum_gas_price":"0.150000000000000000umin"}`)
		case "/cosmos/bank/v1beta1/balances/init1x/by_denom":
			fmt.Fprintf(w, `{"balance":{"denom":%q,"amount":"12345"}}`, r.URL.Query().Get("denom"))
		case "/opinit/opchild/v1/bridge_info":
			fmt.Fprint(w, `{"bridge_info":{"bridge_id":"29","bridge_addr":"init1bridge","l1_chain_id":"interwoven-1","l1_client_id":"07-tendermint-0"}}`)
		case "/rpc":
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":"0x7a69"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	c := &Client{REST: srv.URL, JSONRPC: srv.URL + "/rpc"}
	ni, err := c.NodeInfo(ctx)
	if err != nil || ni.Network != "rollup-1" || ni.Name != "minimove" || ni.AppName != "minitiad" || ni.Version != "v1.0.2" || ni.BuildTags != "netgo" {
		t.Fatalf("%+v %v", ni, err)
	}
	if p, err := c.Bech32Prefix(ctx); err != nil || p != "init" {
		t.Fatal(p, err)
	}
	if g, err := c.MinGasPrices(ctx); err != nil || g.String() != "0.150000000000000000umin" {
		t.Fatal(g, err)
	}
	if b, err := c.Balance(ctx, "init1x", "umin"); err != nil || b.Amount.Int64() != 12345 {
		t.Fatal(b, err)
	}
	if b, err := c.BridgeInfo(ctx); err != nil || b.ID != 29 || b.Address != "init1bridge" || b.L1ChainID != "interwoven-1" {
		t.Fatal(b, err)
	}
	if id, err := c.EVMChainID(ctx); err != nil || id != 31337 {
		t.Fatal(id, err)
	}
	bad := &Client{REST: srv.URL + "/nothing"}
	var he *nodehttp.Error
	if _, err := bad.Bech32Prefix(ctx); !errors.As(err, &he) || he.Status != 404 {
		t.Fatalf("404: %v", err)
	}
}
