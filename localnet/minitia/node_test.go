package minitia_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet/minitia"
)

// A Wasm minitia makes blocks on its own, answers as miniwasm through the SDK's API server,
// serves Initia's fee routes, funds both coin types of a mnemonic, and frees its ports on Close.
func TestNodeRunsAMinitia(t *testing.T) {
	const mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
	ctx := context.Background()
	n, err := minitia.Start(ctx, minitia.Config{VM: deployer.Wasm, Mnemonics: []string{mnemonic}, GeneratedAccounts: -1, BlockTime: 20 * time.Millisecond, Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()

	h := n.Height()
	deadline := time.Now().Add(10 * time.Second)
	for n.Height() < h+3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n.Height() < h+3 {
		t.Fatalf("no blocks on the interval: height %d -> %d", h, n.Height())
	}

	var info struct {
		Default struct {
			Network string `json:"network"`
		} `json:"default_node_info"`
		App struct {
			Name, AppName, Version string
		} `json:"application_version"`
	}
	getJSON(t, n.RESTURL()+"/cosmos/base/tendermint/v1beta1/node_info", &info)
	if info.Default.Network != "vip-wasm-1" || info.App.Name != "miniwasm" || info.App.Version != "v1.2.3" {
		t.Fatalf("node_info %+v", info)
	}
	var params struct {
		Params struct {
			MinGasPrices []struct{ Denom, Amount string } `json:"min_gas_prices"`
		} `json:"params"`
	}
	getJSON(t, n.RESTURL()+"/opinit/opchild/v1/params", &params)
	if len(params.Params.MinGasPrices) != 1 || params.Params.MinGasPrices[0].Denom != "umin" {
		t.Fatalf("opchild params %+v", params)
	}
	funded, also := n.Funded(), n.AlsoFunded()
	if len(funded) != 1 || len(also) != 1 || funded[0].KeyType == also[0].KeyType {
		t.Fatalf("funded %v also %v", funded, also)
	}
	for _, a := range []string{funded[0].Address, also[0].Address} {
		var bal struct {
			Balances []struct{ Denom, Amount string } `json:"balances"`
		}
		getJSON(t, n.RESTURL()+"/cosmos/bank/v1beta1/balances/"+a, &bal)
		if len(bal.Balances) != 1 || bal.Balances[0].Amount != minitia.DefaultGenesisBalance.String() {
			t.Fatalf("balance of %s: %+v", a, bal)
		}
	}

	rpc := strings.TrimPrefix(n.RPCURL(), "http://")
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", rpc)
	if err != nil {
		t.Fatalf("RPC port still taken after Close: %v", err)
	}
	ln.Close()
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
