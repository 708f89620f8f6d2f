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

// rollupOptions are the rollupFlags group: which rollup and contract.
type rollupOptions struct {
	vm, rpc, cometRPC, rest string
	gasPrice, keyType       string
	contract                string
}

// l1Options are the l1Flags group: where the L1's VIP stage is read.
type l1Options struct {
	l1REST, vipAddr, network string
	// flags is the flag set they are bound in, to tell what the command line set from what
	// the environment holds (l1Inputs) so contradictions can be refused; nil for options
	// built without a command.
	flags *pflag.FlagSet
	// file is operate's --env-file, read over the environment for the settings no flag
	// gave (nil: none).
	file map[string]string
}

// getenv is key's value in the env file, else in the environment.
func (o *l1Options) getenv(key string) string {
	if v, ok := o.file[key]; ok {
		return v
	}
	return os.Getenv(key)
}

// pushOptions are the pushFlags group: how a push is sized.
type pushOptions struct {
	chunkSize, window int
}

// chainOptions are the shared flag groups of one command: each command allocates its own
// (newChainOptions) and binds the groups it registers to them, so nothing one command reads
// is written by another.
type chainOptions struct {
	rollupOptions
	l1Options
	pushOptions
	signer signerFlags
}

// newChainOptions holds every shared setting's default, most from the environment: a flag
// registered on a command shows it as its default, and a group the command does not
// register keeps it.
func newChainOptions() *chainOptions {
	return &chainOptions{
		rollupOptions: rollupOptions{vm: defaultVM(), rpc: os.Getenv("JSON_RPC_URL"), cometRPC: os.Getenv("COMET_RPC_URL"),
			rest: os.Getenv("REST_URL"), gasPrice: os.Getenv("GAS_PRICE"), keyType: os.Getenv("KEY_TYPE"), contract: os.Getenv("CONTRACT_ADDRESS")},
		l1Options:   l1Options{l1REST: os.Getenv("L1_REST_URL"), vipAddr: os.Getenv("VIP_MODULE_ADDRESS"), network: os.Getenv("NETWORK")},
		pushOptions: pushOptions{window: deployer.DefaultWindow},
		signer:      newSignerFlags(),
	}
}

// defaultVM is --vm's default: VM, else evm.
func defaultVM() string { return envOr("VM", "evm") }

// vmSetting is the VM cmd runs with: its --vm, or the default for a command without one.
func vmSetting(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("vm"); f != nil {
		return f.Value.String()
	}
	return defaultVM()
}

// sharedFlag registers one shared flag, bound to o's field for it, whose value now is the
// flag's default.
func (o *chainOptions) sharedFlag(f *pflag.FlagSet, name string) {
	switch name {
	case "vm":
		f.StringVar(&o.vm, name, o.vm, "rollup VM: evm, move or wasm (env VM)")
	case "rpc":
		f.StringVar(&o.rpc, name, o.rpc, "rollup JSON-RPC URL (env JSON_RPC_URL)")
	case "comet-rpc":
		f.StringVar(&o.cometRPC, name, o.cometRPC, "rollup CometBFT RPC URL: abci_info, and Wasm txs (env COMET_RPC_URL)")
	case "rest":
		f.StringVar(&o.rest, name, o.rest, "rollup Cosmos REST URL, for Wasm (env REST_URL)")
	case "gas-price":
		f.StringVar(&o.gasPrice, name, o.gasPrice, "Wasm gas price such as 0.025stake; default: the node's minimum (env GAS_PRICE)")
	case "key-type":
		f.StringVar(&o.keyType, name, o.keyType, "Cosmos account key: secp256k1 (coin type 118) or eth_secp256k1 (coin type 60); default secp256k1 for Wasm, eth_secp256k1 for Move (Initia's keys) (env KEY_TYPE)")
	case "contract":
		f.StringVar(&o.contract, name, o.contract, "scoring contract address; default: the one this tool deployed on this chain (env CONTRACT_ADDRESS)")
	case "network":
		f.StringVar(&o.network, name, o.network, "L1 preset: mainnet or testnet (env NETWORK)")
	case "l1-rest":
		f.StringVar(&o.l1REST, name, o.l1REST, "L1 REST URL for the VIP stage (env L1_REST_URL)")
	case "vip-address":
		f.StringVar(&o.vipAddr, name, o.vipAddr, "address of the L1 vip module (env VIP_MODULE_ADDRESS)")
	case "chunk-size":
		f.IntVar(&o.chunkSize, name, o.chunkSize, "entries per tx; 0 derives it from the chain's gas limits")
	case "window":
		f.IntVar(&o.window, name, o.window, "chunk txs in flight at once")
	default:
		panic(fmt.Sprintf("no shared flag --%s", name))
	}
}

// changed reports whether the command line set the command's flag name (addFlags keeps the
// command's flag set).
func (o *chainOptions) changed(name string) bool { return o.flags != nil && o.flags.Changed(name) }

// addFlags registers the shared flags named (a group, or one flag) on cmd, bound to o, and
// returns cmd.
func (o *chainOptions) addFlags(cmd *cobra.Command, names ...string) *cobra.Command {
	f := cmd.Flags()
	o.flags = f
	for _, name := range names {
		switch {
		case name == signerGroup:
			o.signer.register(f)
		case flagGroups[name] != nil:
			for _, n := range flagGroups[name] {
				o.sharedFlag(f, n)
			}
		default:
			o.sharedFlag(f, name)
		}
	}
	return cmd
}
