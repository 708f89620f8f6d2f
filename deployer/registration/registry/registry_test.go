package registry

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/registration/registry/jsonfmt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const golden = "../../../fixtures/registry"

func sampleLive() Live {
	return Live{
		ChainID:      "example-1",
		EVMChainID:   probe.DeriveEVMChainID("example-1"),
		Bech32Prefix: "init",
		Minitia:      "minievm",
		Version:      "v1.0.3",
		GasPrices:    sdk.DecCoins{sdk.NewDecCoinFromDec(L2Denom(29, "uinit"), sdkmath.LegacyMustNewDecFromStr("0.15"))},
	}
}

func sampleInputs() Inputs {
	return Inputs{
		Network: "mainnet", Name: "example", PrettyName: "Example Rollup",
		Description: "An example rollup for on-chain games.", Website: "https://example.org",
		RPC: []string{"https://rpc.example.org"}, REST: []string{"https://rest.example.org"},
		GRPC:    []string{"grpc.example.org:443"},
		JSONRPC: []string{"https://jsonrpc.example.org"}, JSONRPCWS: []string{"wss://jsonrpc-ws.example.org"},
		OpBridgeID: 29, OpDenoms: []string{"uinit"}, ExecutorURI: "https://executor.example.org",
		Logo:        RawBase + "images/example.png",
		AssetSymbol: "INIT", AssetName: "Initia Native Token", AssetDecimals: 6,
		Category: "Gaming", Summary: "On-chain games", Color: "#42F771", Twitter: "https://x.com/example", Status: "live",
		VIPActions: []Action{{Title: "Play", Description: "Finish games each stage."}},
	}
}

func sampleFiles(t *testing.T) Files {
	t.Helper()
	e, err := Build(sampleLive(), sampleInputs())
	if err != nil {
		t.Fatal(err)
	}
	fs, err := e.Files()
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// registryDir writes the files into a fake checkout with the logo image.
func registryDir(t *testing.T, fs Files) string {
	t.Helper()
	root := t.TempDir()
	if _, err := fs.Write(root); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "images"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "images", "example.png"), []byte("\x89PNG small"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func validate(t *testing.T, root string) []Problem {
	t.Helper()
	f, err := ReadEntry(filepath.Join(root, "mainnets", "example"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Validate(f)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestBuildMatchesGoldenFilesAndValidates(t *testing.T) {
	fs := sampleFiles(t)
	for p, got := range fs {
		path := filepath.Join(golden, filepath.FromSlash(p))
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from the golden file:\n%s", p, got)
		}
	}
	if ps := validate(t, registryDir(t, fs)); len(ps) != 0 {
		t.Fatalf("the built entry breaks rules: %v", ps)
	}
	// Without a registry checkout, images are not looked for.
	f := EntryFiles{Dir: "mainnets/example", Chain: fs[ChainPath("mainnet", "example")], Assetlist: fs[AssetlistPath("mainnet", "example")], Profile: fs[ProfilePath("example")]}
	if ps, err := Validate(f); err != nil || len(ps) != 0 {
		t.Fatalf("%v %v", ps, err)
	}
}

func TestBuildRefusesMissingInputs(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*Live, *Inputs)
	}{
		{"network", func(_ *Live, in *Inputs) { in.Network = "prod" }},
		{"name", func(_ *Live, in *Inputs) { in.Name = "My-Rollup" }},
		{"pretty-name", func(_ *Live, in *Inputs) { in.PrettyName = " " }},
		{"chain-id", func(l *Live, _ *Inputs) { l.ChainID = "" }},
		{"gas-prices", func(l *Live, _ *Inputs) { l.GasPrices = nil }},
		{"op-bridge-id", func(_ *Live, in *Inputs) { in.OpBridgeID = 0 }},
		{"op-denoms", func(_ *Live, in *Inputs) { in.OpDenoms = nil }},
		{"asset-decimals", func(_ *Live, in *Inputs) { in.AssetDecimals = 19 }},
	} {
		l, in := sampleLive(), sampleInputs()
		tc.edit(&l, &in)
		_, err := Build(l, in)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Input != tc.field || !strings.HasPrefix(err.Error(), tc.field+": ") {
			t.Errorf("%s: %v", tc.field, err)
		}
	}
}

// edit changes one decoded file and writes it back formatted.
func edit(t *testing.T, root, rel string, f func(m map[string]any)) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := jsonfmt.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func obj(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		switch v := m[k].(type) {
		case map[string]any:
			m = v
		case []any:
			m = v[0].(map[string]any)
		}
	}
	return m
}

const (
	chainFile = "mainnets/example/chain.json"
	assetFile = "mainnets/example/assetlist.json"
	profFile  = "profiles/example.json"
)

// Each rule refused on its own: the problem names the file, the field and the rule.
func TestValidateRefusesEachRule(t *testing.T) {
	for _, tc := range []struct {
		name, file, field, rule string
		edit                    func(t *testing.T, root string)
	}{
		{"rest required", chainFile, "/apis", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { delete(obj(m, "apis"), "rest") })
		}},
		{"at least one rpc", chainFile, "/apis/rpc", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { obj(m, "apis")["rpc"] = []any{} })
		}},
		{"https endpoint", chainFile, "/apis/rpc/0/address", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { obj(m, "apis", "rpc")["address"] = "http://rpc.example.org" })
		}},
		{"wss endpoint", chainFile, "/apis/json-rpc-websocket/0/address", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { obj(m, "apis", "json-rpc-websocket")["address"] = "ws://x.example.org" })
		}},
		{"bech32 prefix", chainFile, "/bech32_prefix", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { m["bech32_prefix"] = "cosmos" })
		}},
		{"network type", chainFile, "/network_type", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { m["network_type"] = "prod" })
		}},
		{"no other top-level keys", chainFile, "/", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { m["rollup_owner"] = "me" })
		}},
		{"minievm needs evm_chain_id", chainFile, "/", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { delete(m, "evm_chain_id") })
		}},
		{"minievm needs json-rpc", chainFile, "/apis", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { delete(obj(m, "apis"), "json-rpc") })
		}},
		{"op_bridge_id unless L1", chainFile, "/metadata", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { delete(obj(m, "metadata"), "op_bridge_id") })
		}},
		{"minitia type", chainFile, "/metadata/minitia/type", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { obj(m, "metadata", "minitia")["type"] = "minisolana" })
		}},
		{"key algos", chainFile, "/key_algos/0", "schema", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { m["key_algos"] = []any{"ethsecp256k1"} })
		}},
		{"chain name is the folder", chainFile, "/chain_name", "folder-name", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { m["chain_name"] = "other" })
		}},
		{"network folder", chainFile, "/network_type", "network-folder", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { m["network_type"] = "testnet" })
		}},
		{"evm chain id derivation", chainFile, "/evm_chain_id", "evm-chain-id", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { m["evm_chain_id"] = 1337 })
		}},
		{"json-rpc only on minievm", chainFile, "/apis/json-rpc", "json-rpc-minievm", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) {
				obj(m, "metadata", "minitia")["type"] = "minimove"
				delete(m, "evm_chain_id")
			})
		}},
		{"profile category required", profFile, "/", "schema", func(t *testing.T, r string) {
			edit(t, r, profFile, func(m map[string]any) { delete(m, "category") })
		}},
		{"profile category enum", profFile, "/category", "schema", func(t *testing.T, r string) {
			edit(t, r, profFile, func(m map[string]any) { m["category"] = "Casino" })
		}},
		{"profile description at most 140", profFile, "/description", "schema", func(t *testing.T, r string) {
			edit(t, r, profFile, func(m map[string]any) { m["description"] = strings.Repeat("d", 141) })
		}},
		{"profile logo required", profFile, "/", "schema", func(t *testing.T, r string) {
			edit(t, r, profFile, func(m map[string]any) { delete(m, "logo") })
		}},
		{"chain image in the checkout", chainFile, "/images/0/png", "image", func(t *testing.T, r string) {
			edit(t, r, chainFile, func(m map[string]any) { obj(m, "images")["png"] = RawBase + "images/missing.png" })
		}},
		{"image at most 100 KB", assetFile, "/assets/0/logo_URIs/png", "image", func(t *testing.T, r string) {
			if err := os.WriteFile(filepath.Join(r, "images", "big.png"), make([]byte, MaxImageBytes+1), 0o644); err != nil {
				t.Fatal(err)
			}
			edit(t, r, assetFile, func(m map[string]any) { obj(m, "assets", "logo_URIs")["png"] = RawBase + "images/big.png" })
		}},
		{"prettier formatting", chainFile, "", "prettier", func(t *testing.T, r string) {
			p := filepath.Join(r, chainFile)
			b, _ := os.ReadFile(p)
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			out, _ := json.MarshalIndent(m, "", "  ")
			_ = os.WriteFile(p, append(out, '\n'), 0o644)
		}},
		{"not JSON", chainFile, "", "json", func(t *testing.T, r string) {
			_ = os.WriteFile(filepath.Join(r, chainFile), []byte("{\"chain_name\": \n"), 0o644)
		}},
		{"asset name length", assetFile, "/assets/0/name", "schema", func(t *testing.T, r string) {
			edit(t, r, assetFile, func(m map[string]any) { obj(m, "assets")["name"] = strings.Repeat("n", 43) })
		}},
		{"erc20 needs an address", assetFile, "/assets/0", "schema", func(t *testing.T, r string) {
			edit(t, r, assetFile, func(m map[string]any) { obj(m, "assets")["type_asset"] = "erc20" })
		}},
		{"op trace bridge id", assetFile, "/assets/0/traces/0/chain/bridge_id", "schema", func(t *testing.T, r string) {
			edit(t, r, assetFile, func(m map[string]any) { obj(m, "assets", "traces", "chain")["bridge_id"] = "x" })
		}},
		{"assetlist chain name is the folder", assetFile, "/chain_name", "folder-name", func(t *testing.T, r string) {
			edit(t, r, assetFile, func(m map[string]any) { m["chain_name"] = "example2" })
		}},
		{"base among denom units", assetFile, "/assets/0/base", "denom-units", func(t *testing.T, r string) {
			edit(t, r, assetFile, func(m map[string]any) {
				a := obj(m, "assets")
				a["denom_units"] = []any{map[string]any{"denom": "INIT", "exponent": 6}}
			})
		}},
		{"display among denom units", assetFile, "/assets/0/display", "denom-units", func(t *testing.T, r string) {
			edit(t, r, assetFile, func(m map[string]any) { obj(m, "assets")["display"] = "GINIT" })
		}},
		{"l2 denom derivation", assetFile, "/assets/0/base", "l2-denom", func(t *testing.T, r string) {
			edit(t, r, assetFile, func(m map[string]any) { obj(m, "assets", "traces", "chain")["bridge_id"] = "30" })
		}},
		{"ibc denom derivation", assetFile, "/assets/0/base", "ibc-denom", func(t *testing.T, r string) {
			edit(t, r, assetFile, func(m map[string]any) {
				a := obj(m, "assets")
				a["traces"] = []any{map[string]any{"type": "ibc",
					"counterparty": map[string]any{"chain_name": "initia", "base_denom": "uinit", "channel_id": "channel-0"},
					"chain":        map[string]any{"channel_id": "channel-0", "path": "transfer/channel-0/uinit"}}}
			})
		}},
		{"trace link", assetFile, "/assets/0/traces/1/counterparty/base_denom", "trace-link", func(t *testing.T, r string) {
			edit(t, r, assetFile, func(m map[string]any) {
				a := obj(m, "assets")
				tr := a["traces"].([]any)
				a["traces"] = append(tr, map[string]any{"type": "op",
					"counterparty": map[string]any{"chain_name": "initia", "base_denom": "uusdc"}, "chain": map[string]any{"bridge_id": "29"}})
			})
		}},
		{"profile name", profFile, "/name", "profile-name", func(t *testing.T, r string) {
			edit(t, r, profFile, func(m map[string]any) { m["name"] = "other" })
		}},
		{"profile colour", profFile, "/color", "schema", func(t *testing.T, r string) {
			edit(t, r, profFile, func(m map[string]any) { m["color"] = "green" })
		}},
		{"profile twitter", profFile, "/social/twitter", "schema", func(t *testing.T, r string) {
			edit(t, r, profFile, func(m map[string]any) { obj(m, "social")["twitter"] = "https://twitter.com/x" })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := registryDir(t, sampleFiles(t))
			tc.edit(t, root)
			ps := validate(t, root)
			found := false
			for _, p := range ps {
				if p.File == tc.file && p.Field == tc.field && p.Rule == tc.rule {
					found = true
				}
			}
			if !found {
				t.Fatalf("want %s %s (%s), got %v", tc.file, tc.field, tc.rule, ps)
			}
		})
	}
}

func TestDenomDerivations(t *testing.T) {
	// ibc/ is upper-hex SHA-256 of the path: yominet's TIA path and denom in the public registry.
	if got := IBCDenom("transfer/channel-0/transfer/channel-10/utia"); got != "ibc/05060A29687D6CA94E2CCD17A9C57AA0F2086DEC0964D677509DC2EBFE324D9E" {
		t.Fatal(got)
	}
	// l2/ is lower-hex SHA3-256 of the big-endian bridge id and the L1 denom; bridge 11's
	// uinit is the registry's yominet INIT (read from the public registry).
	if got := L2Denom(11, "uinit"); got != "l2/8f73cfaf153520f511b4fc0bd71d60d64b4e19eff04a350e642718a3c1ab3b06" {
		t.Fatal(got)
	}
}
