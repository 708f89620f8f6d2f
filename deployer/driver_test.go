package deployer_test

import (
	"github.com/cosmos/cosmos-sdk/types/bech32"

	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

func TestOpenRefusesWhatItCannotDial(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		cfg   deployer.Config
		field string
		want  string
	}{
		"unknown vm":         {deployer.Config{VM: "solana"}, "VM", `"solana"`},
		"evm without rpc":    {deployer.Config{VM: vip.EVM}, "JSONRPC", "JSON-RPC URL"},
		"wasm without rest":  {deployer.Config{VM: vip.Wasm, CometRPC: "http://127.0.0.1:1"}, "CometRPC and REST", "CometBFT RPC and REST"},
		"move without comet": {deployer.Config{VM: vip.Move, REST: "http://127.0.0.1:1"}, "CometRPC and REST", "CometBFT RPC and REST"},
		"window too large":   {deployer.Config{VM: vip.EVM, JSONRPC: "x", Push: deployer.PushConfig{Window: deployer.MaxWindow + 1}}, "Push.Window", "want 1 to"},
		"negative chunk":     {deployer.Config{VM: vip.Wasm, Push: deployer.PushConfig{ChunkSize: -1}}, "Push.ChunkSize", "-1"},
		"gas adjustment":     {deployer.Config{VM: vip.Move, Cosmos: deployer.CosmosConfig{GasAdjustment: 0.5}}, "Cosmos.GasAdjustment", "at least 1"},
	} {
		_, err := deployer.Open(ctx, tc.cfg)
		var ce *deployer.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a ConfigError of %s saying %q", name, err, tc.field, tc.want)
		}
	}
	if _, err := deployer.SoftSigner(vip.Wasm, "", []byte{1, 2}, "operator"); err == nil || !strings.Contains(err.Error(), "operator key: private key must be 32 bytes") {
		t.Errorf("short cosmos secret: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	for vm, want := range map[vip.VM]struct {
		keyType vip.KeyType
		minitia string
		vmType  uint64
		cosmos  bool
	}{
		vip.EVM:  {vip.EthSecp256k1, "minievm", 2, false},
		vip.Move: {vip.EthSecp256k1, "minimove", 0, true},
		vip.Wasm: {vip.Secp256k1, "miniwasm", 1, true},
	} {
		spec, err := vip.Describe(vm)
		if err != nil {
			t.Fatalf("%s: %v", vm, err)
		}
		if spec.VM != vm || spec.KeyType != want.keyType || spec.Minitia != want.minitia || spec.VMType != want.vmType || spec.Cosmos != want.cosmos {
			t.Errorf("%s: %+v, want %+v", vm, spec, want)
		}
		if got, ok := vip.ByNodeName(strings.ToUpper(want.minitia)); !ok || got != vm {
			t.Errorf("vip.ByNodeName(%s) = %s %v", want.minitia, got, ok)
		}
	}
	if vm, ok := vip.ByNodeName("wasmd"); !ok || vm != vip.Wasm {
		t.Errorf("wasmd: %s %v, want wasm", vm, ok)
	}
	if _, ok := vip.ByNodeName("gaia"); ok {
		t.Error("gaia named a VM")
	}
	if _, err := vip.Describe("solana"); err == nil || !strings.Contains(err.Error(), "solana") {
		t.Errorf("unknown vm: %v", err)
	}
}

// Every Spec checks its own artifacts and contract addresses and refuses the others'.
func TestSpecChecks(t *testing.T) {
	artifacts := map[vip.VM][]byte{
		vip.EVM:  []byte("6080604052"),
		vip.Move: {0xa1, 0x1c, 0xeb, 0x0b, 1, 0, 0, 0},
		vip.Wasm: []byte("\x00asm\x01\x00\x00\x00"),
	}
	contracts := map[vip.VM]string{
		vip.EVM:  "0x00000000000000000000000000000000000000aa",
		vip.Move: "0x1234",
		vip.Wasm: mustBech32("wasm", bytes.Repeat([]byte{7}, 32)),
	}
	for _, vm := range vip.VMs {
		spec := vip.MustDescribe(vm)
		for other := range artifacts {
			_, err := spec.ReadArtifact(artifacts[other])
			if (err == nil) != (other == vm) {
				t.Errorf("%s reads %s's artifact: %v", vm, other, err)
			}
			err = spec.CheckContract(contracts[other])
			if vm == vip.Move && other == vip.EVM {
				continue // 0x and 40 hex digits is a Move address too
			}
			if (err == nil) != (other == vm) {
				t.Errorf("%s checks %s's contract %s: %v", vm, other, contracts[other], err)
			}
		}
	}
}

// A Config printed or logged by mistake shows no secret.
func TestConfigNeverShowsItsSecrets(t *testing.T) {
	secret := bytes.Repeat([]byte{0xab}, 32)
	for _, vm := range vip.VMs {
		signer, err := deployer.SoftSigner(vm, "", secret, "operator")
		if err != nil {
			t.Fatal(err)
		}
		cfg := deployer.Config{VM: vm, Operator: signer, Deployer: signer}
		showsNoSecret(t, cfg)
	}
}

func showsNoSecret(t *testing.T, cfg deployer.Config) {
	t.Helper()
	var logged bytes.Buffer
	// No time: a timestamp's digits can hold "171" (0xab in decimal) by chance.
	noTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	slog.New(slog.NewJSONHandler(&logged, &slog.HandlerOptions{ReplaceAttr: noTime})).Info("open", "config", cfg, "operator", cfg.Operator)
	for _, out := range []string{fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(cfg.Operator), logged.String()} {
		if strings.Contains(strings.ToLower(out), "abab") || strings.Contains(out, "171") {
			t.Errorf("secret shown: %s", out)
		}
	}
}

func mustBech32(prefix string, b []byte) string {
	s, err := bech32.ConvertAndEncode(prefix, b)
	if err != nil {
		panic(err)
	}
	return s
}
