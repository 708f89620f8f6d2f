package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vipharness/vipharness/deployer"
)

// The shared flags: each command registers the ones it reads (addFlags), by group or by
// name, so that `vipctl setup --help` lists no chunk size and `registry` no Ledger. Only the
// output and state flags (--json, --verbose, --state-dir, --no-progress) are the root's,
// for every command.
const (
	// rollupFlags say which rollup and contract.
	rollupFlags = "rollup"
	// l1Flags say where the L1's VIP stage is read.
	l1Flags = "l1"
	// pushFlags size a push.
	pushFlags = "push"
	// signerGroup says which key signs: --from, --keystore, --ledger and their settings.
	signerGroup = "signer"
)

// flagGroups are the flags of each group.
var flagGroups = map[string][]string{
	rollupFlags: {"vm", "rpc", "comet-rpc", "rest", "gas-price", "key-type", "contract"},
	l1Flags:     {"network", "l1-rest", "vip-address"},
	pushFlags:   {"chunk-size", "window"},
	signerGroup: {"keyring-backend", "keyring-dir", "from", "keystore", "ledger", "ledger-speculos", "hd-path", "account", "sender"},
}

// sharedFlag registers one shared flag, bound to g's field for it.
func (g *globals) sharedFlag(f *pflag.FlagSet, name string) {
	switch name {
	case "vm":
		f.StringVar(&g.vm, name, envOr("VM", "evm"), "rollup VM: evm, move or wasm (env VM)")
	case "rpc":
		f.StringVar(&g.rpc, name, os.Getenv("JSON_RPC_URL"), "rollup JSON-RPC URL (env JSON_RPC_URL)")
	case "comet-rpc":
		f.StringVar(&g.cometRPC, name, os.Getenv("COMET_RPC_URL"), "rollup CometBFT RPC URL: abci_info, and Wasm txs (env COMET_RPC_URL)")
	case "rest":
		f.StringVar(&g.rest, name, os.Getenv("REST_URL"), "rollup Cosmos REST URL, for Wasm (env REST_URL)")
	case "gas-price":
		f.StringVar(&g.gasPrice, name, os.Getenv("GAS_PRICE"), "Wasm gas price such as 0.025stake; default: the node's minimum (env GAS_PRICE)")
	case "key-type":
		f.StringVar(&g.keyType, name, envOr("KEY_TYPE", ""), "Cosmos account key: secp256k1 (coin type 118) or eth_secp256k1 (coin type 60); default secp256k1 for Wasm, eth_secp256k1 for Move (Initia's keys) (env KEY_TYPE)")
	case "contract":
		f.StringVar(&g.contract, name, os.Getenv("CONTRACT_ADDRESS"), "scoring contract address; default: the one this tool deployed on this chain (env CONTRACT_ADDRESS)")
	case "network":
		f.StringVar(&g.network, name, os.Getenv("NETWORK"), "L1 preset: mainnet or testnet (env NETWORK)")
	case "l1-rest":
		f.StringVar(&g.l1REST, name, os.Getenv("L1_REST_URL"), "L1 REST URL for the VIP stage (env L1_REST_URL)")
	case "vip-address":
		f.StringVar(&g.vipAddr, name, os.Getenv("VIP_MODULE_ADDRESS"), "address of the L1 vip module (env VIP_MODULE_ADDRESS)")
	case "chunk-size":
		f.IntVar(&g.chunkSize, name, 0, "entries per tx; 0 derives it from the chain's gas limits")
	case "window":
		f.IntVar(&g.window, name, deployer.DefaultWindow, "chunk txs in flight at once")
	default:
		panic(fmt.Sprintf("no shared flag --%s", name))
	}
}

// addFlags registers the shared flags named (a group, or one flag) on cmd and returns cmd.
// Every command binds the same fields of g, so their defaults (often from the environment)
// hold whichever command runs.
func (g *globals) addFlags(cmd *cobra.Command, names ...string) *cobra.Command {
	f := cmd.Flags()
	for _, name := range names {
		switch {
		case name == signerGroup:
			g.signer.register(f)
		case flagGroups[name] != nil:
			for _, n := range flagGroups[name] {
				g.sharedFlag(f, n)
			}
		default:
			g.sharedFlag(f, name)
		}
	}
	return cmd
}
