// Command devnode runs the project's own local rollups as a process of their own, so that the
// process and container engines can drive them like any other node binary: a Wasm rollup (the
// project's minitia application, localnet/minitia: the Cosmos SDK's modules and wasmd's x/wasm
// under CometBFT, blocks every --block-time) or a Move rollup (the same application with x/move
// over Initia's libmovevm, from --movevm-dir), serving CometBFT RPC, Cosmos REST (and Move REST) on
// 127.0.0.1 (--rpc-addr and --rest-addr change that: in a container it listens on 0.0.0.0
// for Docker to publish).
// It funds the accounts of the mnemonics in --mnemonics-file (keys never pass through its
// output), prints one ready line (minitia.ReadyPrefix + JSON) on stdout, and runs until
// SIGINT or SIGTERM.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/minitia/xmove"
	"github.com/vipharness/vipharness/localnet/movevm"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "devnode:", err)
		os.Exit(1)
	}
}

func run() error {
	vmName := flag.String("vm", "wasm", "the rollup's VM: wasm, move or evm (built as a minievm is)")
	chainID := flag.String("chain-id", "", "chain id (default "+embedded.DefaultWasmChainID+", "+embedded.DefaultMoveChainID+" or "+embedded.DefaultEVMCosmosChainID+")")
	movevmDir := flag.String("movevm-dir", movevm.Dir(), "folder of Initia's Move libraries (move; `make setup` installs them)")
	prefix := flag.String("prefix", minitia.DefaultBech32Prefix, "bech32 account prefix")
	denom := flag.String("denom", minitia.DefaultFeeDenom, "fee denom (evm: "+embedded.EVMFeeDenom+")")
	gasPrice := flag.String("min-gas-price", minitia.DefaultMinGasPrice, fmt.Sprintf("minimum gas price (amount of the fee denom; evm: %d)", embedded.EVMMinGasPrice))
	maxBlockGas := flag.Int64("max-block-gas", 0, "block gas limit (0: none)")
	mnemonics := flag.String("mnemonics-file", "", "file of BIP39 mnemonics, one per line, whose first accounts are funded (default: two fresh accounts)")
	verbose := flag.Bool("v", false, "log every block and refused tx")
	rpcAddr := flag.String("rpc-addr", "127.0.0.1:0", "CometBFT RPC listen address (a container listens on 0.0.0.0:<fixed port>)")
	restAddr := flag.String("rest-addr", "127.0.0.1:0", "REST listen address")
	jsonrpcAddr := flag.String("json-rpc-addr", "127.0.0.1:0", "evm: Ethereum JSON-RPC (HTTP) listen address")
	jsonrpcWSAddr := flag.String("json-rpc-ws-addr", "127.0.0.1:0", "evm: Ethereum JSON-RPC WebSocket listen address (its own port, as a minievm's)")
	blockTime := flag.Duration("block-time", minitia.DefaultBlockTime, "interval between blocks (a minitia makes one every 500ms)")
	flag.Parse()
	vm, err := vip.ParseVM(*vmName)
	if err != nil {
		return fmt.Errorf("--vm %q: this dev node runs wasm, move or evm rollups", *vmName)
	}
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	var funded []string
	if *mnemonics != "" {
		list, err := readMnemonics(*mnemonics)
		if err != nil {
			return err
		}
		funded = list
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	settings := func(c *minitia.Config) {
		if *chainID != "" {
			c.ChainID = *chainID
		}
		c.Bech32Prefix = *prefix
		// An EVM rollup keeps its own fee denom and price unless they are given.
		if vm != vip.EVM || set["denom"] {
			c.FeeDenom = *denom
		}
		if vm != vip.EVM || set["min-gas-price"] {
			c.MinGasPrice = *gasPrice
		}
		c.MaxBlockGas, c.BlockTime, c.Logger = *maxBlockGas, *blockTime, logger
		c.RPCAddr, c.APIAddr = *rpcAddr, *restAddr
		c.JSONRPCAddr, c.JSONRPCWSAddr = *jsonrpcAddr, *jsonrpcWSAddr
		if len(funded) > 0 {
			c.Mnemonics, c.GeneratedAccounts = funded, -1
		}
		// Only a Move rollup loads the libraries (x/move); Wasm ignores the setting.
		c.Move = append(c.Move, xmove.WithLibraryDir(*movevmDir))
	}
	start, cancel := context.WithTimeout(ctx, time.Minute)
	var r *embedded.CosmosRollup
	var ready minitia.Ready
	if vm == vip.EVM {
		var er *embedded.EVMRollup
		if er, err = embedded.StartEVM(start, settings); err == nil {
			r = &er.CosmosRollup
			ready.JSONRPC, ready.JSONRPCWS = er.Endpoints().JSONRPC, er.Endpoints().JSONRPCWS
		}
	} else {
		r, err = embedded.StartCosmos(start, vm, settings)
	}
	cancel()
	if err != nil {
		return err
	}
	ready.VM, ready.ChainID, ready.Prefix, ready.KeyType = string(vm), r.ChainID(), *prefix, r.Node().Config().KeyType
	ready.CometRPC, ready.REST = r.Endpoints().CometRPC, r.Endpoints().REST
	for _, a := range r.Funded() {
		ready.Funded = append(ready.Funded, a.Address)
		switch {
		case a.CoinType60Address != "":
			ready.AlsoFunded = append(ready.AlsoFunded, a.CoinType60Address)
			ready.AlsoKeyType = vip.EthSecp256k1
		case a.CoinType118Address != "":
			ready.AlsoFunded = append(ready.AlsoFunded, a.CoinType118Address)
			ready.AlsoKeyType = vip.Secp256k1
		}
	}
	fmt.Println(ready.Line())
	<-ctx.Done()
	logger.Info("stopping")
	return r.Stop(context.Background())
}

func readMnemonics(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mnemonics file: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mnemonics file %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, errors.New("mnemonics file " + path + " holds no mnemonic")
	}
	return out, nil
}
