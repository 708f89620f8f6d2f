package moveexec

import (
	"context"
	"net/http"
	"time"

	"cosmossdk.io/core/address"
	storetypes "cosmossdk.io/store/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/gogoproto/proto"

	"github.com/vipharness/vipharness/localnet/devnode"
)

// Ctx is what an execution or a query sees of the chain, whichever node runs the executor.
type Ctx interface {
	// Store is the module's state, without the SDK's KV gas: the VM meters its own.
	Store() storetypes.KVStore
	BlockHeight() int64
	BlockTime() time.Time
	TxBytes() []byte
	MsgIndex() int
	GasMeter() storetypes.GasMeter
	// Simulating is set while a tx is simulated and for queries; Querying for queries.
	Simulating() bool
	Querying() bool
	Addresses() address.Codec
	NextAccountNumber() uint64
	// EnsureAccount creates a plain account at addr unless one exists.
	EnsureAccount(addr []byte)
	EmitEvent(sdk.Event)
}

var (
	_ devnode.Executor           = (*Executor)(nil)
	_ devnode.GenesisInitializer = (*Executor)(nil)
)

// devCtx is a dev node's context as a Ctx.
type devCtx struct{ c *devnode.Context }

func (d devCtx) Store() storetypes.KVStore     { return d.c.KVStoreUnmetered(ModuleName) }
func (d devCtx) BlockHeight() int64            { return d.c.Height }
func (d devCtx) BlockTime() time.Time          { return d.c.Time }
func (d devCtx) TxBytes() []byte               { return d.c.TxBytes }
func (d devCtx) MsgIndex() int                 { return d.c.MsgIndex }
func (d devCtx) GasMeter() storetypes.GasMeter { return d.c.GasMeter }
func (d devCtx) Simulating() bool              { return d.c.Simulate }
func (d devCtx) Querying() bool                { return d.c.Query }
func (d devCtx) Addresses() address.Codec      { return d.c.Addresses }
func (d devCtx) NextAccountNumber() uint64     { return d.c.NextAccountNumber() }
func (d devCtx) EnsureAccount(addr []byte)     { d.c.EnsureAccount(addr) }
func (d devCtx) EmitEvent(e sdk.Event)         { d.c.EmitEvent(e) }

// InitGenesis runs Genesis on a dev node.
func (e *Executor) InitGenesis(ctx *devnode.Context) error { return e.Genesis(devCtx{ctx}) }

// Execute runs one x/move message on a dev node.
func (e *Executor) Execute(ctx *devnode.Context, msg sdk.Msg) (proto.Message, error) {
	return e.Run(devCtx{ctx}, msg)
}

// Queries are the query methods as a dev node serves them.
func (e *Executor) Queries() []devnode.Query {
	var out []devnode.Query
	for _, q := range e.QueryMethods() {
		handle := q.Handle
		out = append(out, devnode.Query{Method: q.Method, New: q.New, HTTP: q.HTTP, Bind: q.Bind,
			Handle: func(c *devnode.Context, req proto.Message) (proto.Message, error) { return handle(devCtx{c}, req) }})
	}
	return out
}

// RegisterRoutes serves Routes on a dev node.
func (e *Executor) RegisterRoutes(mux *http.ServeMux, read func(context.Context, func(*devnode.Context) error) error) {
	e.Routes(mux, func(ctx context.Context, f func(Ctx) error) error {
		return read(ctx, func(c *devnode.Context) error { return f(devCtx{c}) })
	}, devnode.WriteError)
}
