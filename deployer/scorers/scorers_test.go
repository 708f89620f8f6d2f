package scorers

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
)

func TestOpenRefusesWhatItCannotDial(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		cfg  Config
		want string
	}{
		"unknown vm":          {Config{VM: "solana"}, `no deployer for vm "solana"`},
		"evm without rpc":     {Config{VM: deployer.EVM}, "JSON-RPC URL"},
		"wasm without rest":   {Config{VM: deployer.Wasm, CometRPC: "http://127.0.0.1:1"}, "CometBFT RPC and REST"},
		"move without comet":  {Config{VM: deployer.Move, REST: "http://127.0.0.1:1"}, "CometBFT RPC and REST"},
		"short cosmos secret": {Config{VM: deployer.Wasm, CometRPC: "x", REST: "y", Operator: Secret{1, 2}}, "operator key: private key must be 32 bytes"},
	} {
		_, err := Open(ctx, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

func TestDefaultKeyType(t *testing.T) {
	for vm, want := range map[deployer.VM]keys.KeyType{deployer.Move: keys.EthSecp256k1, deployer.Wasm: keys.Secp256k1, deployer.EVM: ""} {
		if got := DefaultKeyType(vm); got != want {
			t.Errorf("%s: %q, want %q", vm, got, want)
		}
	}
}

// A Config printed or logged by mistake shows no secret.
func TestConfigNeverShowsItsSecrets(t *testing.T) {
	secret := bytes.Repeat([]byte{0xab}, 32)
	cfg := Config{VM: deployer.EVM, Operator: secret, Deployer: secret}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("open", "config", cfg, "operator", cfg.Operator)
	for _, out := range []string{fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(cfg.Operator), logged.String()} {
		if strings.Contains(strings.ToLower(out), "abab") || strings.Contains(out, "171") {
			t.Errorf("secret shown: %s", out)
		}
	}
}
