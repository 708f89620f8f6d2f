// Package localnet starts local rollups and the L1 stand-in behind one Engine interface, so
// the same specs run in-process (embedded), on real node binaries (process) and in
// containers (container).
package localnet

import (
	"context"

	"github.com/vipharness/vipharness/deployer/vip"
)

// Endpoints are the faces a rollup offers; empty where the VM has none.
type Endpoints struct {
	JSONRPC string // EVM JSON-RPC, http://127.0.0.1:port
	// JSONRPCWS is the EVM JSON-RPC over WebSocket (eth_subscribe), ws://127.0.0.1:port;
	// empty where the node serves none.
	JSONRPCWS string
	CometRPC  string // CometBFT RPC subset (abci_info, status, ...)
	REST      string // Cosmos / Initia REST
}

// Account is a genesis-funded development account of a local rollup. Its secrets are dev
// secrets of a throwaway chain, never a user's.
type Account struct {
	Address    string // 0x-hex for EVM, bech32 for Cosmos chains
	Mnemonic   string // BIP39, when the account was derived from one
	PrivateKey string // hex, no 0x
	// CoinType60Address is the mnemonic's coin type 60 eth_secp256k1 account (bech32), when
	// it is funded too: the Wasm dev node funds it beside the coin type 118 Address, as
	// Initia's wallets derive it (Initia.js MnemonicKey() defaults).
	CoinType60Address string
	// CoinType118Address is the mnemonic's coin type 118 secp256k1 account (bech32), when it
	// is funded beside an eth_secp256k1 Address (the Move rollups fund it for CosmJS).
	CoinType118Address string
}

// Rollup is one running local chain.
type Rollup interface {
	VM() vip.VM
	ChainID() string
	Endpoints() Endpoints
	// Funded returns the accounts funded at genesis.
	Funded() []Account
	// Stop ends the chain and frees its ports; safe to call more than once.
	Stop(ctx context.Context) error
}

// KeyTyped is a rollup whose accounts use a key kind it names (an external rollup's
// KEY_TYPE), which may differ from its VM's.
type KeyTyped interface {
	KeyType() vip.KeyType
}

// Logged is a rollup whose node keeps a log (the process and container engines'), for the
// report of a failed spec.
type Logged interface {
	Logs() string
}

// Dumper is a rollup whose node can print where each of its goroutines waits (a Go node as
// a process: SIGQUIT), ending it: for the report of a failed spec, so that a node that
// stopped answering names where it waits.
type Dumper interface {
	Dump() string
}

// Engine starts rollups of one kind (embedded, process, container, external).
type Engine interface {
	Name() string
	// Available reports whether the engine can run vm here, and if not, why (a node binary,
	// a native library or a Docker engine missing): callers skip or fail on it before
	// starting anything.
	Available(ctx context.Context, vm vip.VM) error
	StartRollup(ctx context.Context, vm vip.VM) (Rollup, error)
}
