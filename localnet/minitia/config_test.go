package minitia

import (
	"strings"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/vip"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "defaults for wasm", cfg: Config{VM: vip.Wasm}, check: func(t *testing.T, c Config) {
			if c.ChainID != "vip-wasm-1" || c.FeeDenom != "umin" || c.Bech32Prefix != "init" || c.BlockTime != DefaultBlockTime ||
				c.GeneratedAccounts != 2 || c.KeyType != vip.EthSecp256k1 || c.NodeName != "miniwasm" || c.BinaryName != "minitiad" || c.AppName != "minitia" {
				t.Fatalf("defaults: %+v", c)
			}
			if got := c.MinGasPrices().String(); got != "0.150000000000000000umin" {
				t.Fatalf("min gas prices %s", got)
			}
		}},
		{name: "move names minimove", cfg: Config{VM: vip.Move}, check: func(t *testing.T, c Config) {
			if c.NodeName != "minimove" || c.ChainID != "vip-move-1" {
				t.Fatalf("move: %+v", c)
			}
		}},
		{name: "no generated accounts", cfg: Config{VM: vip.Wasm, GeneratedAccounts: -1}, check: func(t *testing.T, c Config) {
			if c.GeneratedAccounts != 0 {
				t.Fatalf("generated %d", c.GeneratedAccounts)
			}
		}},
		{name: "evm names minievm", cfg: Config{VM: vip.EVM}, check: func(t *testing.T, c Config) {
			if c.NodeName != "minievm" || c.ChainID != "vip-evm-1" {
				t.Fatalf("evm: %+v", c)
			}
		}},
		{name: "an unknown vm has no module", cfg: Config{VM: "solana"}, wantErr: `VM "solana" has no module here`},
		{name: "bad gas price", cfg: Config{VM: vip.Wasm, MinGasPrice: "cheap"}, wantErr: `min gas price "cheap"`},
		{name: "negative gas price", cfg: Config{VM: vip.Wasm, MinGasPrice: "-1"}, wantErr: "non-negative"},
		{name: "bad denom", cfg: Config{VM: vip.Wasm, FeeDenom: "1x"}, wantErr: "fee denom"},
		{name: "block time too short", cfg: Config{VM: vip.Wasm, BlockTime: time.Millisecond}, wantErr: "below 10ms"},
		{name: "negative block gas", cfg: Config{VM: vip.Wasm, MaxBlockGas: -5}, wantErr: "max block gas"},
		{name: "unknown key type", cfg: Config{VM: vip.Wasm, KeyType: "ed25519"}, wantErr: `key type "ed25519"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cfg
			err := c.Validate()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestListenAddrs(t *testing.T) {
	got, err := listenAddrs("", "127.0.0.1:0", "0.0.0.0:26657")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got[0], "127.0.0.1:") || got[0] == "127.0.0.1:0" || !strings.HasPrefix(got[1], "127.0.0.1:") || got[1] == "127.0.0.1:0" || got[2] != "0.0.0.0:26657" {
		t.Fatalf("addrs %v", got)
	}
	if got[0] == got[1] {
		t.Fatalf("one port twice: %v", got)
	}
	if _, err := listenAddrs("no-port"); err == nil {
		t.Fatal("an address without a port was taken")
	}
}

func TestSequencerGenesis(t *testing.T) {
	for _, tt := range []struct {
		name, json string
		ok         bool
	}{
		{"one validator", `{"validators":[{"pub_key":"` + strings.Repeat("A", 43) + `=","power":10}]}`, true},
		{"short key", `{"validators":[{"pub_key":"AAAA","power":10}]}`, false},
		{"zero power", `{"validators":[{"pub_key":"` + strings.Repeat("A", 43) + `=","power":0}]}`, false},
		{"not json", `{`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSequencerGenesis([]byte(tt.json))
			if (err == nil) != tt.ok {
				t.Fatalf("err %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
