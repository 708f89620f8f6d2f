package minitiad

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vipharness/vipharness/deployer/scorers"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Defaults of the rollups this engine sets up.
const (
	// Denom is the fee and genesis denom (`minitiad init --denom`).
	Denom = "umin"
	// A minievm's umin has 18 decimals and eth_gasPrice is the minimum gas price in them,
	// rounded down: a fraction would read as 0 and every EVM tx priced by it be refused.
	evmGasPrice = "15"
	// The Cosmos rollups take the minimum gas price the project's own rollups run with.
	cosmosGasPrice = "0.15"
)

// GasPrice is the minimum gas price (in Denom per gas) the engine gives vm's rollup.
func GasPrice(vm vip.VM) string {
	if evmFaced(vm) {
		return evmGasPrice
	}
	return cosmosGasPrice
}

// evmFaced reports a VM whose contract is driven through EVM JSON-RPC (the descriptor's
// word): its node serves JSON-RPC, and its fee denom has 18 decimals.
func evmFaced(vm vip.VM) bool { return !scorers.MustDescribe(vm).Cosmos }

// genesisAmount is what each funded account gets: Move coin amounts are u64 (a balance above
// it panics InitChain), so the Cosmos rollups stay well below.
func genesisAmount(vm vip.VM) string {
	if evmFaced(vm) {
		return "1000000000000000000000000000" // 10^9 tokens of 18 decimals
	}
	return "1000000000000000000"
}

// ports are the listeners of one node, all on 127.0.0.1.
type ports struct {
	rpc, p2p, proxy, pprof, prometheus, api, grpc, jsonrpc, jsonrpcWS int
}

// prepare makes a single-node rollup home in home: init, the first mnemonic's key in the
// home's test keyring (for add-genesis-validator), every address funded, the opchild
// validator, and the config edits. Mnemonics go to the binary on stdin only.
func prepare(ctx context.Context, bin, home, chainID string, vm vip.VM, mnemonic string, funded []string, p ports) error {
	run := func(stdin string, args ...string) error {
		cmd := exec.CommandContext(ctx, bin, append(args, "--home", home)...)
		cmd.Env = append(os.Environ(), libraryPath(bin))
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			// The output of these commands never holds the mnemonic (keys add --recover
			// prints the address only, with --output json).
			return fmt.Errorf("minitiad %s: %w: %s", args[0]+" "+args[1], err, lastLine(out))
		}
		return nil
	}
	if err := run("", "init", "vipharness", "--chain-id", chainID, "--denom", Denom); err != nil {
		return err
	}
	if err := run(mnemonic+"\n", "keys", "add", "val", "--recover", "--keyring-backend", "test", "--output", "json"); err != nil {
		return err
	}
	for _, addr := range funded {
		if err := run("", "genesis", "add-genesis-account", addr, genesisAmount(vm)+Denom); err != nil {
			return err
		}
	}
	if err := run("", "genesis", "add-genesis-validator", "val", "--keyring-backend", "test"); err != nil {
		return err
	}
	if err := configure(home, vm, p); err != nil {
		return err
	}
	return run("", "genesis", "validate")
}

// configure puts every listener on 127.0.0.1 (minitiad binds 0.0.0.0 by default) and sets a
// minimum gas price in app.toml and in opchild's genesis params (init writes zero to both).
func configure(home string, vm vip.VM, p ports) error {
	cfg := filepath.Join(home, "config")
	q := func(s string) string { return `"` + s + `"` }
	loop := func(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }
	edits := []tomlEdit{
		{"config.toml", "", "proxy_app", q("tcp://" + loop(p.proxy))},
		{"config.toml", "rpc", "laddr", q("tcp://" + loop(p.rpc))},
		{"config.toml", "rpc", "pprof_laddr", q(loop(p.pprof))},
		{"config.toml", "p2p", "laddr", q("tcp://" + loop(p.p2p))},
		{"config.toml", "instrumentation", "prometheus_listen_addr", q(loop(p.prometheus))},
		{"app.toml", "", "minimum-gas-prices", q(GasPrice(vm) + Denom)},
		{"app.toml", "api", "address", q("tcp://" + loop(p.api))},
		{"app.toml", "grpc", "address", q(loop(p.grpc))},
	}
	if evmFaced(vm) {
		edits = append(edits,
			tomlEdit{"app.toml", "json-rpc", "address", q(loop(p.jsonrpc))},
			tomlEdit{"app.toml", "json-rpc", "address-ws", q(loop(p.jsonrpcWS))})
	}
	for _, e := range edits {
		if err := e.apply(cfg); err != nil {
			return err
		}
	}
	return setGenesisGasPrice(filepath.Join(cfg, "genesis.json"), GasPrice(vm))
}

// tomlEdit sets key in [section] of file ("" is the top, before any section) to value, a
// TOML literal. The key must be there: a release whose config names it otherwise is an
// error that says which key, never a node left listening on 0.0.0.0.
type tomlEdit struct{ file, section, key, value string }

func (e tomlEdit) apply(dir string) error {
	path := filepath.Join(dir, e.file)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("configure minitiad: %w", err)
	}
	var out bytes.Buffer
	section, done := "", false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			section = strings.Trim(t, "[]")
		}
		if !done && section == e.section {
			if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == e.key {
				line, done = e.key+" = "+e.value, true
			}
		}
		out.WriteString(line + "\n")
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("configure minitiad: read %s: %w", path, err)
	}
	if !done {
		return fmt.Errorf("configure minitiad: %s has no %q in [%s]", path, e.key, e.section)
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

// setGenesisGasPrice sets opchild's min_gas_prices, what eth_gasPrice and the fee
// discovery routes report.
func setGenesisGasPrice(path, price string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("configure minitiad: %w", err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("configure minitiad: %s: %w", path, err)
	}
	var state map[string]json.RawMessage
	if err := json.Unmarshal(doc["app_state"], &state); err != nil {
		return fmt.Errorf("configure minitiad: %s app_state: %w", path, err)
	}
	var opchild, params map[string]json.RawMessage
	if err := json.Unmarshal(state["opchild"], &opchild); err != nil || opchild["params"] == nil {
		return fmt.Errorf("configure minitiad: %s has no opchild params (%v): is this a minitia?", path, err)
	}
	if err := json.Unmarshal(opchild["params"], &params); err != nil {
		return fmt.Errorf("configure minitiad: %s opchild params: %w", path, err)
	}
	params["min_gas_prices"], _ = json.Marshal([]map[string]string{{"denom": Denom, "amount": price}})
	if opchild["params"], err = json.Marshal(params); err != nil {
		return err
	}
	if state["opchild"], err = json.Marshal(opchild); err != nil {
		return err
	}
	if doc["app_state"], err = json.Marshal(state); err != nil {
		return err
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

// libraryPath lets a minitiad find the shared libraries its release archive carries beside
// it (libmovevm, libcompiler, libwasmvm).
func libraryPath(bin string) string {
	dir := filepath.Dir(bin)
	if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
		return "LD_LIBRARY_PATH=" + dir + ":" + old
	}
	return "LD_LIBRARY_PATH=" + dir
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
