package devnode

import (
	"context"
	"encoding/binary"
	"net/http"
	"time"

	"cosmossdk.io/core/address"
	storetypes "cosmossdk.io/store/types"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/gogoproto/proto"
)

// Executor is the VM that a dev node runs: it executes the VM's messages and answers the
// VM's queries, while the node does everything else (accounts, signatures, fees, gas, blocks,
// the tx index and the HTTP faces).
type Executor interface {
	// Module is the module name of the VM (e.g. "wasm"); it also names the VM's store namespace
	// and the "module" attribute of the "message" event.
	Module() string
	// RegisterInterfaces registers the VM's messages (and anything else that travels in Any).
	RegisterInterfaces(codectypes.InterfaceRegistry)
	// MsgTypeURLs lists the message type URLs Execute handles.
	MsgTypeURLs() []string
	// Execute runs one message signed by ctx.Signers. It reads and writes state only through
	// ctx.KVStore, charges gas to ctx.GasMeter (running out panics with
	// storetypes.ErrorOutOfGas, as in the SDK), emits events on ctx, and returns the message's
	// response (packed into the tx result data). An error is an errorsmod error whose codespace
	// and code become the tx result's; the node then drops the messages' writes.
	Execute(ctx *Context, msg sdk.Msg) (proto.Message, error)
	// Queries lists the VM's gRPC query methods and the REST routes that reach them.
	Queries() []Query
}

// GenesisInitializer is implemented by executors that write state at genesis (e.g. a VM's
// standard library). InitGenesis runs once, before block 1, with an infinite gas meter; an
// error aborts Start.
type GenesisInitializer interface {
	InitGenesis(ctx *Context) error
}

// RouteRegistrar is implemented by executors that serve REST routes which are not a gRPC
// method's gateway route (plain JSON handlers). read runs f against the committed state at the
// latest height, as a query: under the query gas limit, writes discarded.
type RouteRegistrar interface {
	RegisterRoutes(mux *http.ServeMux, read func(ctx context.Context, f func(*Context) error) error)
}

// Query is one gRPC query method, reachable through abci_query (path Method, protobuf data)
// and, when HTTP is set, as a REST route answering the response in the gateway's JSON.
type Query struct {
	// Method is the full gRPC method, e.g. "/cosmwasm.wasm.v1.Query/SmartContractState".
	Method string
	// New returns an empty request.
	New func() proto.Message
	// Handle answers req against the committed state. Errors are gRPC status errors or
	// errorsmod errors, as in a real module.
	Handle func(ctx *Context, req proto.Message) (proto.Message, error)
	// HTTP is a net/http pattern, e.g. "GET /cosmwasm/wasm/v1/code/{code_id}"; empty for none.
	HTTP string
	// Bind fills req from the HTTP request (path values, query parameters, body).
	Bind func(r *http.Request, req proto.Message) error
}

// Context is what a message or query sees: block info, the tx, a gas meter, the chain's
// state (a per-tx cache for messages, a throwaway cache for queries) and an event sink.
type Context struct {
	context.Context
	ChainID  string
	Height   int64
	Time     time.Time
	TxIndex  uint32 // index of the tx in its block
	TxBytes  []byte
	MsgIndex int
	// Simulate is set while simulating a tx (REST simulate, abci_query Simulate) and for queries.
	Simulate bool
	// Query is set for queries.
	Query bool
	// Signers are the message's signers (address bytes); Signers[0] is the sender.
	Signers [][]byte
	// GasMeter meters the tx (or query); KVStore charges storage gas to it.
	GasMeter storetypes.GasMeter
	// Addresses encodes and decodes the chain's bech32 addresses.
	Addresses address.Codec

	node   *Node
	store  storetypes.KVStore
	events *sdk.EventManager
	txVals map[string]any
}

// KVStore opens a module namespace of the state, charging the SDK's KV gas to GasMeter.
func (c *Context) KVStore(module string) storetypes.KVStore {
	return gasStore(moduleStore(c.store, module), c.GasMeter)
}

// KVStoreUnmetered opens a module namespace without the SDK's KV gas, for a VM that meters
// storage in its own gas schedule (Initia runs the MoveVM under an infinite SDK gas meter and
// charges the VM's gas instead).
func (c *Context) KVStoreUnmetered(module string) storetypes.KVStore {
	return moduleStore(c.store, module)
}

// NextAccountNumber is the number the next new account gets.
func (c *Context) NextAccountNumber() uint64 {
	if bz := openCore(c.store, nil).auth.Get(nextAccountNumberKey); bz != nil {
		return binary.BigEndian.Uint64(bz)
	}
	return 0
}

// EmitEvent adds an event to the message's events.
func (c *Context) EmitEvent(e sdk.Event) { c.events.EmitEvent(e) }

// EmitEvents adds events to the message's events.
func (c *Context) EmitEvents(es sdk.Events) { c.events.EmitEvents(es) }

// TxValue returns a value that an earlier message of the same tx stored with SetTxValue.
func (c *Context) TxValue(key string) any { return c.txVals[key] }

// SetTxValue keeps a value for later messages of the same tx.
func (c *Context) SetTxValue(key string, v any) { c.txVals[key] = v }

// SendCoins moves coins between accounts with the bank module's checks and events.
func (c *Context) SendCoins(from, to []byte, coins sdk.Coins) error {
	return c.node.sendCoins(openCore(c.store, c.GasMeter), c.events, from, to, coins)
}

// EnsureAccount creates a plain account at addr unless one exists (as a module does for a new
// contract's address).
func (c *Context) EnsureAccount(addr []byte) {
	c.node.ensureAccount(openCore(c.store, c.GasMeter), addr)
}
