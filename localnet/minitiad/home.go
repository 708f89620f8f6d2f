package minitiad

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
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
func evmFaced(vm vip.VM) bool { return !vip.MustDescribe(vm).Cosmos }

// genesisAmount is what each funded account gets: Move coin amounts are u64 (a balance above
// it panics InitChain), so the Cosmos rollups stay well below.
func genesisAmount(vm vip.VM) string {
	if evmFaced(vm) {
		return "1000000000000000000000000000" // 10^9 tokens of 18 decimals
	}
	return "1000000000000000000"
}

// ports are the listeners of one node.
type ports struct {
	rpc, p2p, proxy, pprof, prometheus, api, grpc, jsonrpc, jsonrpcWS int
}

// listeners are where a node listens: its served listeners (CometBFT RPC, REST, gRPC,
// JSON-RPC and its WebSocket) on served, 127.0.0.1 for a node on this machine and 0.0.0.0
// inside a container (whose ports the engine publishes on 127.0.0.1); the others (P2P,
// pprof, prometheus, the proxy app) on 127.0.0.1 always: nothing dials them.
type listeners struct {
	served string
	ports
}

// served are the ports clients reach, the ones a container publishes.
func (l listeners) published(vm vip.VM) []int {
	p := []int{l.rpc, l.api, l.grpc}
	if evmFaced(vm) {
		p = append(p, l.jsonrpc, l.jsonrpcWS)
	}
	return p
}

// minitiad runs a minitiad command on rn's home and wraps its failure with the command
// and the last line it wrote. The output of these commands never holds a mnemonic (keys
// add --recover prints the address only, with --output json); the mnemonic goes on stdin.
func minitiad(ctx context.Context, rn runner, stdin string, args ...string) ([]byte, error) {
	out, err := rn.run(ctx, stdin, append(args, "--home", rn.home())...)
	if err != nil {
		return out, fmt.Errorf("minitiad %s: %w: %s", strings.Join(args[:2], " "), err, lastLine(out))
	}
	return out, nil
}

// genesisKey is a key of the home's test keyring funded at genesis, for the node's own CLI.
type genesisKey struct{ name, mnemonic, address string }

// prepare makes a single-node rollup home on rn: init, the first mnemonic's key in the
// home's test keyring (for add-genesis-validator), every address funded, starter's key
// (when not nil) in the keyring and funded too, the opchild validator, the bridge (when br
// names one), and the config edits. Mnemonics go to minitiad on stdin only.
func prepare(ctx context.Context, rn runner, chainID string, vm vip.VM, mnemonic string, funded []string, starter *genesisKey, br Bridge, l listeners) error {
	run := func(stdin string, args ...string) error {
		_, err := minitiad(ctx, rn, stdin, args...)
		return err
	}
	if err := run("", "init", "vipharness", "--chain-id", chainID, "--denom", Denom); err != nil {
		return err
	}
	if err := run(mnemonic+"\n", "keys", "add", "val", "--recover", "--keyring-backend", "test", "--output", "json"); err != nil {
		return err
	}
	if starter != nil {
		if err := run(starter.mnemonic+"\n", "keys", "add", starter.name, "--recover", "--keyring-backend", "test", "--output", "json"); err != nil {
			return err
		}
		funded = append(funded[:len(funded):len(funded)], starter.address)
	}
	for _, addr := range funded {
		if err := run("", "genesis", "add-genesis-account", addr, genesisAmount(vm)+Denom); err != nil {
			return err
		}
	}
	if err := run("", "genesis", "add-genesis-validator", "val", "--keyring-backend", "test"); err != nil {
		return err
	}
	if err := configure(ctx, rn, vm, l); err != nil {
		return err
	}
	if br.ID != 0 {
		err := rn.edit(ctx, path.Join("config", "genesis.json"), func(b []byte) ([]byte, error) {
			return setGenesisBridge(b, br, funded[0])
		})
		if err != nil {
			return fmt.Errorf("register bridge %d in genesis: %w", br.ID, err)
		}
	}
	return run("", "genesis", "validate")
}

// configure puts every listener where l says (minitiad binds 0.0.0.0 by default) and sets
// a minimum gas price in app.toml and in opchild's genesis params (init writes zero to both).
func configure(ctx context.Context, rn runner, vm vip.VM, l listeners) error {
	q := func(s string) string { return `"` + s + `"` }
	loop := func(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }
	on := func(port int) string { return fmt.Sprintf("%s:%d", l.served, port) }
	edits := []tomlEdit{
		{"config.toml", "", "proxy_app", q("tcp://" + loop(l.proxy))},
		{"config.toml", "rpc", "laddr", q("tcp://" + on(l.rpc))},
		{"config.toml", "rpc", "pprof_laddr", q(loop(l.pprof))},
		{"config.toml", "p2p", "laddr", q("tcp://" + loop(l.p2p))},
		{"config.toml", "instrumentation", "prometheus_listen_addr", q(loop(l.prometheus))},
		{"app.toml", "", "minimum-gas-prices", q(GasPrice(vm) + Denom)},
		{"app.toml", "api", "address", q("tcp://" + on(l.api))},
		{"app.toml", "grpc", "address", q(on(l.grpc))},
	}
	if evmFaced(vm) {
		edits = append(edits,
			tomlEdit{"app.toml", "json-rpc", "address", q(on(l.jsonrpc))},
			tomlEdit{"app.toml", "json-rpc", "address-ws", q(on(l.jsonrpcWS))})
	}
	byFile := map[string][]tomlEdit{}
	var files []string
	for _, e := range edits {
		if byFile[e.file] == nil {
			files = append(files, e.file)
		}
		byFile[e.file] = append(byFile[e.file], e)
	}
	for _, f := range files {
		err := rn.edit(ctx, path.Join("config", f), func(b []byte) ([]byte, error) {
			for _, e := range byFile[f] {
				var err error
				if b, err = e.on(b); err != nil {
					return nil, err
				}
			}
			return b, nil
		})
		if err != nil {
			return fmt.Errorf("configure minitiad: %w", err)
		}
	}
	err := rn.edit(ctx, path.Join("config", "genesis.json"), func(b []byte) ([]byte, error) {
		return setGenesisGasPrice(b, GasPrice(vm))
	})
	if err != nil {
		return fmt.Errorf("configure minitiad: genesis.json: %w", err)
	}
	return nil
}

// tomlEdit sets key in [section] of file ("" is the top, before any section) to value, a
// TOML literal. The key must be there: a release whose config names it otherwise is an
// error that says which key, never a node left listening on 0.0.0.0.
type tomlEdit struct{ file, section, key, value string }

// on applies the edit to the file's content.
func (e tomlEdit) on(b []byte) ([]byte, error) {
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
		return nil, fmt.Errorf("read %s: %w", e.file, err)
	}
	if !done {
		return nil, fmt.Errorf("%s has no %q in [%s]", e.file, e.key, e.section)
	}
	return out.Bytes(), nil
}

// setGenesisGasPrice sets opchild's min_gas_prices, what eth_gasPrice and the fee
// discovery routes report.
func setGenesisGasPrice(b []byte, price string) ([]byte, error) {
	return editOpchild(b, func(opchild, params map[string]json.RawMessage) error {
		var err error
		params["min_gas_prices"], err = json.Marshal([]map[string]string{{"denom": Denom, "amount": price}})
		return err
	})
}

// setGenesisBridge sets opchild's bridge_info to br, as the bridge's registration on the L1
// leaves it (the bridge's L1 account, the L1's chain id and light client, the bridge config),
// with executor the rollup's bridge executor and admin, and the bridge's proposer,
// challenger and batch submitter.
func setGenesisBridge(b []byte, br Bridge, executor string) ([]byte, error) {
	return editOpchild(b, func(opchild, params map[string]json.RawMessage) error {
		info := map[string]any{
			"bridge_id": fmt.Sprint(br.ID), "bridge_addr": br.Address(), "l1_chain_id": br.L1ChainID,
			"l1_client_id": br.L1ClientID(),
			"bridge_config": map[string]any{
				"challenger": executor, "proposer": executor,
				"batch_info":              map[string]string{"submitter": executor, "chain_type": "INITIA"},
				"submission_interval":     "60s",
				"finalization_period":     "168h0m0s",
				"submission_start_height": "1",
				"oracle_enabled":          false,
				"metadata":                "",
			},
		}
		var err error
		if opchild["bridge_info"], err = json.Marshal(info); err != nil {
			return err
		}
		if params["bridge_executors"], err = json.Marshal([]string{executor}); err != nil {
			return err
		}
		params["admin"], err = json.Marshal(executor)
		return err
	})
}

// editOpchild edits opchild's genesis state and its params in a genesis document.
func editOpchild(b []byte, edit func(opchild, params map[string]json.RawMessage) error) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var state map[string]json.RawMessage
	if err := json.Unmarshal(doc["app_state"], &state); err != nil {
		return nil, fmt.Errorf("app_state: %w", err)
	}
	var opchild, params map[string]json.RawMessage
	if err := json.Unmarshal(state["opchild"], &opchild); err != nil || opchild["params"] == nil {
		return nil, fmt.Errorf("no opchild params (%v): is this a minitia?", err)
	}
	if err := json.Unmarshal(opchild["params"], &params); err != nil {
		return nil, fmt.Errorf("opchild params: %w", err)
	}
	if err := edit(opchild, params); err != nil {
		return nil, err
	}
	var err error
	if opchild["params"], err = json.Marshal(params); err != nil {
		return nil, err
	}
	if state["opchild"], err = json.Marshal(opchild); err != nil {
		return nil, err
	}
	if doc["app_state"], err = json.Marshal(state); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
