package minitiad

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer/vip"
)

// Where a VM's rollup comes from: images and binaries given, then the environment, then
// the cache; a VM named twice is an error, and nothing found names what to set.
func TestSource(t *testing.T) {
	bin := filepath.Join(t.TempDir(), Binary)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	img := Image{Ref: "ghcr.io/initia-labs/minievm:v1.2.18"}
	for _, tc := range []struct {
		name    string
		engine  Engine
		env     map[string]string
		want    source
		wantErr string
		is      error
	}{
		{name: "image given", engine: Engine{Images: map[vip.VM]Image{vip.EVM: img}}, want: source{image: img}},
		{name: "binary given", engine: Engine{Binaries: map[vip.VM]string{vip.EVM: bin}}, want: source{bin: bin}},
		{name: "binary given, run in containers", engine: Engine{Binaries: map[vip.VM]string{vip.EVM: bin}, Containers: true}, want: source{bin: bin, pack: true}},
		{name: "both given", engine: Engine{Images: map[vip.VM]Image{vip.EVM: img}, Binaries: map[vip.VM]string{vip.EVM: bin}}, wantErr: "both an image"},
		{name: "image from the environment", env: map[string]string{"VIPHARNESS_MINIEVM_IMAGE": img.Ref, EntrypointEnvVar: "/bin/run minitiad"},
			want: source{image: Image{Ref: img.Ref, Entrypoint: []string{"/bin/run", "minitiad"}}}},
		{name: "image given beats the environment", engine: Engine{Images: map[vip.VM]Image{vip.EVM: img}}, env: map[string]string{"VIPHARNESS_MINIEVM": bin}, want: source{image: img}},
		{name: "both in the environment", env: map[string]string{"VIPHARNESS_MINIEVM_IMAGE": img.Ref, "VIPHARNESS_MINIEVM": bin}, wantErr: "unset one"},
		{name: "binary from the environment", env: map[string]string{"VIPHARNESS_MINIEVM": bin}, want: source{bin: bin}},
		{name: "nothing", wantErr: "VIPHARNESS_MINIEVM", is: ErrNoBinary},
		{name: "nothing, in containers", engine: Engine{Containers: true}, wantErr: "VIPHARNESS_MINIEVM_IMAGE", is: ErrNoImage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("VIPHARNESS_MINITIA", t.TempDir())
			for _, k := range []string{"VIPHARNESS_MINIEVM", "VIPHARNESS_MINIEVM_IMAGE", EntrypointEnvVar} {
				t.Setenv(k, tc.env[k])
			}
			got, err := tc.engine.source(vip.EVM)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || (tc.is != nil && !errors.Is(err, tc.is)) {
					t.Fatalf("err %v, want %q (%v)", err, tc.wantErr, tc.is)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A node in a container serves on 0.0.0.0 and publishes what clients reach; on this
// machine it serves on 127.0.0.1. P2P, pprof and prometheus stay on loopback either way.
func TestListeners(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    listeners
		vm   vip.VM
		want []int
	}{
		{"evm in a container", listeners{served: "0.0.0.0", ports: containerPorts}, vip.EVM, []int{26657, 1317, 9090, 8545, 8546}},
		{"move in a container", listeners{served: "0.0.0.0", ports: containerPorts}, vip.Move, []int{26657, 1317, 9090}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.l.published(tc.vm); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("published %v, want %v", got, tc.want)
			}
			files := map[string][]byte{
				"config/config.toml":  []byte("proxy_app = \"\"\n[rpc]\nladdr = \"\"\npprof_laddr = \"\"\n[p2p]\nladdr = \"\"\n[instrumentation]\nprometheus_listen_addr = \"\"\n"),
				"config/app.toml":     []byte("minimum-gas-prices = \"\"\n[api]\naddress = \"\"\n[grpc]\naddress = \"\"\n[json-rpc]\naddress = \"\"\naddress-ws = \"\"\n"),
				"config/genesis.json": []byte(`{"app_state":{"opchild":{"params":{"min_gas_prices":[]}}}}`),
			}
			if err := configure(t.Context(), fakeRunner{files: files, l: tc.l}, tc.vm, tc.l); err != nil {
				t.Fatal(err)
			}
			cfg, app := string(files["config/config.toml"]), string(files["config/app.toml"])
			for _, want := range []string{`laddr = "tcp://0.0.0.0:26657"`, `pprof_laddr = "127.0.0.1:6060"`, `laddr = "tcp://127.0.0.1:26656"`, `prometheus_listen_addr = "127.0.0.1:26660"`} {
				if !strings.Contains(cfg, want) {
					t.Errorf("config.toml lacks %s:\n%s", want, cfg)
				}
			}
			if !strings.Contains(app, `address = "tcp://0.0.0.0:1317"`) || !strings.Contains(app, `address = "0.0.0.0:9090"`) {
				t.Errorf("app.toml:\n%s", app)
			}
			if !strings.Contains(string(files["config/genesis.json"]), `"min_gas_prices":[{"amount":"`+GasPrice(tc.vm)+`","denom":"umin"}]`) {
				t.Errorf("genesis: %s", files["config/genesis.json"])
			}
		})
	}
}

// fakeRunner edits files in memory; it runs nothing.
type fakeRunner struct {
	runner
	files map[string][]byte
	l     listeners
}

func (f fakeRunner) edit(_ context.Context, file string, fn func([]byte) ([]byte, error)) error {
	b, ok := f.files[file]
	if !ok {
		return os.ErrNotExist
	}
	out, err := fn(b)
	if err != nil {
		return err
	}
	f.files[file] = out
	return nil
}

// loggedRunner is a node whose log is log; it runs nothing.
type loggedRunner struct {
	runner
	log string
}

func (l loggedRunner) logs() string { return l.log }

// A node that cannot listen is told apart (Start retries it on fresh ports) from one that
// stopped, and either is named by its first errors, not the RPC panics that follow.
func TestFailedNodesAreNamedByTheirFirstErrors(t *testing.T) {
	const panicLine = `3:08AM ERR panic in RPC HTTP handler err="leveldb: closed" module=rpc-server`
	for _, tc := range []struct {
		name, log, want string
		portTaken       bool
	}{
		{"serving", "3:08AM INF committed state height=3\n", "", false},
		{"port taken", "3:08AM INF starting\n3:08AM ERR failed to start JSON-RPC server error=\"listen tcp 127.0.0.1:36387: bind: address already in use\"\n" + panicLine + "\n",
			"bind: address already in use", true},
		{"stopped", "3:08AM ERR consensus failure error=\"boom\"\n" + panicLine + "\n" + panicLine + "\n", "consensus failure", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := (&Rollup{vm: vip.EVM, rn: loggedRunner{log: tc.log}}).failed()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("a serving node failed: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "panic in RPC") {
				t.Fatalf("%v, want its first error %q and no RPC panic", err, tc.want)
			}
			if errors.Is(err, errPortTaken) != tc.portTaken {
				t.Fatalf("%v: port taken %v, want %v", err, errors.Is(err, errPortTaken), tc.portTaken)
			}
		})
	}
}
