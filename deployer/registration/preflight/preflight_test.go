package preflight

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/vip"
)

// fakeRollup is a rollup's faces as an httptest server, with what each face answers set per
// test: CometBFT RPC (abci_info, status), REST (node_info, bech32, config, balances) and an
// EVM JSON-RPC (eth_chainId, eth_gasPrice, eth_getBalance, eth_estimateGas, eth_getCode).
type fakeRollup struct {
	app, version, network, restNetwork, name string
	gasPrice                                 string
	balance                                  string
	evmChainID                               uint64
	weiBalance, weiPrice, estimate           uint64
	code                                     string
	moduleABI                                string
	txIndexer                                string // "kv" (default) or "null"
}

func minimove() *fakeRollup {
	return &fakeRollup{app: "minitia", version: "v1.0.2", network: "rollup-1", restNetwork: "rollup-1", name: "minimove",
		gasPrice: "0.15umin", balance: "1000000000"}
}

func minievm() *fakeRollup {
	f := minimove()
	f.name, f.evmChainID, f.weiBalance, f.weiPrice, f.estimate = "minievm", probe.DeriveEVMChainID("rollup-1"), 1e18, 1e9, 1_400_000
	return f
}

func (f *fakeRollup) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/" && jsonRPCMethod(r) == "abci_info":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"response":{"data":%q,"version":%q,"last_block_height":"5"}}}`, f.app, f.version)
		case r.URL.Path == "/tx":
			// CometBFT answers a lookup error as a JSON-RPC error with HTTP 500.
			msg := fmt.Sprintf("tx (%s) not found", strings.TrimPrefix(r.URL.Query().Get("hash"), "0x"))
			if f.txIndexer == "null" {
				msg = "transaction indexing is disabled"
			}
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error","data":%q}}`, msg)
		case r.URL.Path == "/status":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"node_info":{"network":%q}}}`, f.network)
		case r.URL.Path == "/cosmos/base/tendermint/v1beta1/node_info":
			fmt.Fprintf(w, `{"default_node_info":{"network":%q},"application_version":{"name":%q,"app_name":"minitiad","version":%q}}`, f.restNetwork, f.name, f.version)
		case r.URL.Path == "/cosmos/base/node/v1beta1/config":
			fmt.Fprintf(w, `{"minimum_gas_price":%q}`, f.gasPrice)
		case strings.HasPrefix(r.URL.Path, "/cosmos/bank/v1beta1/balances/"):
			fmt.Fprintf(w, `{"balance":{"denom":%q,"amount":%q}}`, r.URL.Query().Get("denom"), f.balance)
		case strings.HasPrefix(r.URL.Path, "/initia/move/v1/accounts/") && strings.HasSuffix(r.URL.Path, "/modules/vip_score"):
			if f.moduleABI == "" {
				http.Error(w, `{"code":5,"message":"not found"}`, http.StatusNotFound)
				return
			}
			b, _ := json.Marshal(map[string]any{"module": map[string]string{"abi": f.moduleABI}})
			w.Write(b)
		case r.URL.Path == "/evm":
			var req struct {
				Method string `json:"method"`
			}
			body, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(body, &req)
			res := map[string]string{"eth_chainId": fmt.Sprintf("0x%x", f.evmChainID), "eth_gasPrice": fmt.Sprintf("0x%x", f.weiPrice),
				"eth_getBalance": fmt.Sprintf("0x%x", f.weiBalance), "eth_estimateGas": fmt.Sprintf("0x%x", f.estimate), "eth_getCode": "0x" + f.code}[req.Method]
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":%q}`, res)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fakeL1 serves the vip ModuleStore at stage.
func fakeL1(t *testing.T, st uint64) *l1node.Reader {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/resources/by_struct_tag") {
			http.NotFound(w, r)
			return
		}
		mr, _ := json.Marshal(map[string]any{"type": "0xf1::vip::ModuleStore", "data": map[string]string{"stage": fmt.Sprint(st)}})
		b, _ := json.Marshal(map[string]any{"resource": map[string]string{"address": "0xf1", "struct_tag": "0xf1::vip::ModuleStore", "move_resource": string(mr)}})
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return l1node.NewReader(srv.URL, "0xf1", nil)
}

func runOn(t *testing.T, f *fakeRollup, edit func(*Config)) Report {
	t.Helper()
	srv := f.serve(t)
	cfg := Config{CometRPC: srv.URL, REST: srv.URL, GOOS: "linux", GOARCH: "amd64", FirstPush: 1000}
	if f.name == "minievm" {
		cfg.JSONRPC = srv.URL + "/evm"
		cfg.EVMCreationCode = []byte{0x60, 0x80}
	}
	if edit != nil {
		edit(&cfg)
	}
	return Run(context.Background(), cfg)
}

func find(t *testing.T, rep Report, check string) Finding {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Check == check {
			return f
		}
	}
	t.Fatalf("no %q finding in %+v", check, rep.Findings)
	return Finding{}
}

type fakeContract struct {
	exists  bool
	missing []string
	open    uint64
}

func (c fakeContract) Exists(context.Context) (bool, error)        { return c.exists, nil }
func (c fakeContract) Interface(context.Context) ([]string, error) { return c.missing, nil }
func (c fakeContract) OpenStage(context.Context) (uint64, error)   { return c.open, nil }

// Each finding, provoked on its own: its status and what the fix says.
func TestFindings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rollup func() *fakeRollup
		edit   func(*Config)
		check  string
		status Status
		says   string // in the detail, the fix, or "inputs=a,b value=v then=act"
	}{
		{"no rollup at all", minimove, func(c *Config) { c.CometRPC, c.REST, c.JSONRPC = "", "", "" }, "rollup", Fail, "nothing to check"},
		{"rpc unreachable", minimove, func(c *Config) { c.CometRPC = "http://127.0.0.1:1" }, "rollup rpc", Fail, "inputs=comet_rpc"},
		{"rpc not given", minimove, func(c *Config) { c.CometRPC = "" }, "rollup rpc", Skip, "inputs=comet_rpc"},
		{"rpc answers", minimove, nil, "rollup rpc", OK, "height 5"},
		{"not a minitia", func() *fakeRollup { f := minimove(); f.app = "wasmd"; return f }, nil, "initia rollup", Warn, `"wasmd"`},
		{"a minitia", minimove, nil, "initia rollup", OK, "minitia"},
		{"move needs rest", minimove, func(c *Config) { c.REST, c.VM = "", vip.Move }, "rollup rest", Fail, "inputs=rest"},
		{"rest unreachable", minimove, func(c *Config) { c.REST = "http://127.0.0.1:1" }, "rollup rest", Fail, "api.enable"},
		{"vm mismatch", minimove, func(c *Config) { c.VM = vip.Wasm }, "vm", Fail, "inputs=vm value=move"},
		{"vm unknown", func() *fakeRollup { f := minimove(); f.name = "gaia"; return f }, nil, "vm", Warn, "inputs=vm"},
		{"vm", minimove, nil, "vm", OK, "minimove (move)"},
		{"release", minimove, nil, "version", OK, "minimove_v1.0.2_Linux_x86_64.tar.gz"},
		{"release url", minimove, nil, "version", OK, "https://github.com/initia-labs/minimove/releases/download/v1.0.2/"},
		{"local build", func() *fakeRollup { f := minimove(); f.version = "v1.0.2-3-gabcdef1"; return f }, nil, "version", Warn, "3 commits after v1.0.2"},
		{"no semver", func() *fakeRollup { f := minimove(); f.version = "main"; return f }, nil, "version", Warn, "not a v-prefixed"},
		{"two chains", func() *fakeRollup { f := minimove(); f.restNetwork = "other-1"; return f }, nil, "chain id", Fail, "same rollup"},
		{"chain id", minimove, nil, "chain id", OK, "rollup-1"},
		{"evm needs json-rpc", minievm, func(c *Config) { c.JSONRPC = "" }, "evm json-rpc", Fail, "inputs=json_rpc"},
		{"evm chain id derived", minievm, nil, "evm chain id", OK, "derived"},
		{"evm chain id wrong", func() *fakeRollup { f := minievm(); f.evmChainID = 1337; return f }, nil, "evm chain id", Fail, "Initia derives"},
		{"tx index", minimove, nil, "tx index", OK, "by hash"},
		// minitiad init writes a zero minimum gas price: said in words, never "<nil>".
		{"zero gas price", func() *fakeRollup { f := minimove(); f.gasPrice = ""; return f },
			func(c *Config) { c.Accounts = []Account{{Role: "deployer", Address: "init1x", Deploys: true}} }, "gas price", Warn, "minimum gas price is 0"},
		{"zero gas price, zero amount", func() *fakeRollup { f := minimove(); f.gasPrice = "0.000000000000000000umin"; return f },
			func(c *Config) { c.Accounts = []Account{{Role: "deployer", Address: "init1x", Deploys: true}} }, "gas price", Warn, "minimum gas price is 0"},
		{"zero gas price, a balance needs no fee", func() *fakeRollup { f := minimove(); f.gasPrice = ""; return f },
			func(c *Config) { c.Accounts = []Account{{Role: "deployer", Address: "init1x", Deploys: true}} }, "balance deployer", OK, ""},
		{"zero evm gas price", func() *fakeRollup { f := minievm(); f.weiPrice = 0; return f },
			func(c *Config) { c.Accounts = []Account{{Role: "deployer", Address: "0x1", Deploys: true}} }, "gas price", Warn, "eth_gasPrice) is 0"},
		{"no tx index", func() *fakeRollup { f := minimove(); f.txIndexer = "null"; return f }, nil, "tx index", Fail, `indexer = "kv"`},
		{"no l1", minimove, nil, "l1 stage", Skip, "inputs=l1"},
		{"l1 stage", minimove, func(c *Config) { c.L1 = fakeL1(t, 42) }, "l1 stage", OK, "stage is 42"},
		{"l1 unreachable", minimove, func(c *Config) { c.L1 = l1node.NewReader("http://127.0.0.1:1", "0xf1", nil) }, "l1 stage", Fail, "inputs=l1,stage"},
		{"no keys", minimove, nil, "balances", Skip, "inputs=keys"},
		{"cosmos balance low", func() *fakeRollup { f := minimove(); f.balance = "10"; return f },
			func(c *Config) {
				c.Accounts = []Account{{Role: "deployer", Address: "init1x", Deploys: true, Pushes: true}}
			}, "balance deployer", Fail, "send at least"},
		{"cosmos balance", minimove,
			func(c *Config) { c.Accounts = []Account{{Role: "operator", Address: "init1x", Pushes: true}} }, "balance operator", OK, "umin"},
		{"evm balance low", func() *fakeRollup { f := minievm(); f.weiBalance = 1000; return f },
			func(c *Config) { c.Accounts = []Account{{Role: "deployer", Address: "0x1", Deploys: true}} }, "balance deployer", Fail, "wei to 0x1"},
		{"evm balance", minievm,
			func(c *Config) { c.Accounts = []Account{{Role: "deployer", Address: "0x1", Deploys: true}} }, "balance deployer", OK, "1680000 gas"},
		{"no contract", minimove, nil, "contract", Skip, "inputs=contract"},
		{"contract missing", minimove, func(c *Config) { c.ContractAddress, c.Contract = "0xc", fakeContract{} }, "contract", Fail, "then=deploy"},
		{"interface missing", minimove, func(c *Config) {
			c.ContractAddress, c.Contract = "0xc", fakeContract{exists: true, missing: []string{"vip_score::get_scores"}}
		}, "contract interface", Fail, "lacks the official vip_score::get_scores"},
		{"interface", minimove, func(c *Config) { c.ContractAddress, c.Contract = "0xc", fakeContract{exists: true, open: 3} }, "contract interface", OK, "official"},
		{"stage behind", minimove, func(c *Config) {
			c.L1, c.ContractAddress, c.Contract = fakeL1(t, 5), "0xc", fakeContract{exists: true, open: 3}
		}, "contract stage", Fail, "finalize stages 3..4 inputs= value= then=finalize"},
		{"stage ahead", minimove, func(c *Config) {
			c.L1, c.ContractAddress, c.Contract = fakeL1(t, 5), "0xc", fakeContract{exists: true, open: 6}
		}, "contract stage", Warn, "ahead"},
		{"stage level", minimove, func(c *Config) {
			c.L1, c.ContractAddress, c.Contract = fakeL1(t, 5), "0xc", fakeContract{exists: true, open: 5}
		}, "contract stage", OK, "is the L1's"},
		{"stage without l1", minimove, func(c *Config) { c.ContractAddress, c.Contract = "0xc", fakeContract{exists: true, open: 5} }, "contract stage", Warn, "inputs=l1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := runOn(t, tc.rollup(), tc.edit)
			f := find(t, rep, tc.check)
			inputs := make([]string, len(f.Inputs))
			for i, in := range f.Inputs {
				inputs[i] = string(in)
			}
			said := fmt.Sprintf("%s %s inputs=%s value=%s then=%s", f.Detail, f.Fix, strings.Join(inputs, ","), f.Value, f.Then)
			if f.Status != tc.status || !strings.Contains(said, tc.says) {
				t.Fatalf("%s: %+v, want %s saying %q", tc.check, f, tc.status, tc.says)
			}
			if f.Status != OK && f.Fix == "" {
				t.Fatalf("a %s finding without a fix: %+v", f.Status, f)
			}
			for _, f := range rep.Findings {
				if strings.Contains(f.Detail+f.Fix, "--") || strings.Contains(f.Detail+f.Fix, "vipctl") {
					t.Errorf("%s names a flag or a command; the front end words its own: %+v", f.Check, f)
				}
			}
			if rep.OK == (rep.Count(Fail) > 0) {
				t.Fatalf("report OK %v with %d failures", rep.OK, rep.Count(Fail))
			}
		})
	}
}

// The balance need is the gas estimate times the gas price: a Cosmos fee of ceil(price x gas).
func TestBalanceArithmetic(t *testing.T) {
	rep := runOn(t, minimove(), func(c *Config) {
		c.Accounts = []Account{{Role: "deployer", Address: "init1x", Deploys: true, Pushes: true}}
	})
	gas := DeployGas(vip.Move) + PushGas(vip.Move, 1000)
	want := fmt.Sprintf("needs %d umin (%d gas)", (gas*15+99)/100, gas)
	if f := find(t, rep, "balance deployer"); !strings.Contains(f.Detail, want) {
		t.Fatalf("%s, want %q", f.Detail, want)
	}
}

// jsonRPCMethod is the method of a JSON-RPC POST, or "".
func jsonRPCMethod(r *http.Request) string {
	var req struct{ Method string }
	if b, err := io.ReadAll(r.Body); err != nil || json.Unmarshal(b, &req) != nil {
		return ""
	}
	return req.Method
}
