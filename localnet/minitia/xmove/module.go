// Package xmove is x/move as a Cosmos SDK module of the local minitia: Initia's message and
// query services (initia.move.v1.Msg and Query) and Initia's REST routes, run by the project's
// Move executor over Initia's libmovevm against the module's own
// store (executor.go). The VM meters its own gas; the SDK meter is charged what the VM used.
package xmove

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"cosmossdk.io/core/address"
	errorsmod "cosmossdk.io/errors"
	storetypes "cosmossdk.io/store/types"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/cosmos-sdk/types/module"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"github.com/cosmos/gogoproto/proto"
	gwruntime "github.com/grpc-ecosystem/grpc-gateway/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// Keeper runs the Move executor against the module's store.
type Keeper struct {
	exec    *Executor
	key     *storetypes.KVStoreKey
	chain   Chain
	queries []Query
	byName  map[string]Query
}

// NewKeeper loads the MoveVM (opts configure the executor: library folder, genesis packages).
func NewKeeper(key *storetypes.KVStoreKey, chain Chain, opts ...Option) (*Keeper, error) {
	exec, err := New(opts...)
	if err != nil {
		return nil, err
	}
	k := &Keeper{exec: exec, key: key, chain: chain, byName: map[string]Query{}}
	// A PublishAuthorization names modules; the VM reads a module's name from its code.
	initiamove.ReadModuleName = func(code []byte) (string, error) {
		abi, err := exec.vm.DecodeModule(code)
		if err != nil {
			return "", err
		}
		var m struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(abi, &m); err != nil || m.Name == "" {
			return "", fmt.Errorf("module without a name: %v", err)
		}
		return m.Name, nil
	}
	k.queries = append(exec.QueryMethods(), k.keeperQueries()...)
	for _, q := range k.queries {
		k.byName[q.Method] = q
	}
	return k, nil
}

// Close releases the VM.
func (k *Keeper) Close() error { return k.exec.Close() }

// moveCtx is an SDK context as the executor sees it.
type moveCtx struct {
	sdk.Context
	k     *Keeper
	query bool
}

func (c moveCtx) Store() storetypes.KVStore { return c.MultiStore().GetKVStore(c.k.key) }

func (c moveCtx) MeteredStore() storetypes.KVStore { return c.KVStore(c.k.key) }

// MsgIndex is 0: the executor's chain-wide execution counter keeps session ids apart.
func (c moveCtx) MsgIndex() int            { return 0 }
func (c moveCtx) Simulating() bool         { return c.query || c.ExecMode() == sdk.ExecModeSimulate }
func (c moveCtx) Querying() bool           { return c.query }
func (c moveCtx) Addresses() address.Codec { return c.k.chain.Addresses }
func (c moveCtx) EmitEvent(e sdk.Event)    { c.EventManager().EmitEvent(e) }

func (c moveCtx) NextAccountNumber() uint64 {
	tmp, _ := c.CacheContext()
	n, err := c.k.chain.Accounts.AccountNumber.Next(tmp)
	if err != nil {
		panic(fmt.Errorf("read the next account number: %w", err))
	}
	return n
}

// Account reads addr's account without charging gas (the VM charges for the lookup): its
// number, sequence and type (a module account's, else base: Initia's object and table
// account types are not registered here) and whether the bank blocks it.
func (c moveCtx) Account(addr movebcs.Address) (movevm.AccountInfo, bool) {
	ctx := c.WithGasMeter(storetypes.NewInfiniteGasMeter())
	acc := c.k.chain.Accounts.GetAccount(ctx, addr.AccountBytes())
	if acc == nil {
		return movevm.AccountInfo{}, false
	}
	info := movevm.AccountInfo{Number: acc.GetAccountNumber(), Sequence: acc.GetSequence(), Type: movevm.AccountBase}
	if _, ok := acc.(sdk.ModuleAccountI); ok {
		info.Type = movevm.AccountModule
	}
	if c.k.chain.Blocked != nil {
		info.Blocked = c.k.chain.Blocked(addr.AccountBytes())
	}
	return info, true
}

// CreateAccount follows x/move's handling of an execution's new accounts: under an infinite
// gas meter (the VM has charged for them), the global account number moves on when the
// account is new, and the account is written with the VM's number. Initia's object and
// table account types are not registered here: every such account is a base account.
func (c moveCtx) CreateAccount(acc movevm.NewAccount) {
	ctx := c.WithGasMeter(storetypes.NewInfiniteGasMeter())
	addr := sdk.AccAddress(acc.Address.AccountBytes())
	a := authtypes.NewBaseAccountWithAddress(addr)
	if err := a.SetAccountNumber(acc.AccountNumber); err != nil {
		panic(fmt.Errorf("create account %s: %w", addr, err))
	}
	if !c.k.chain.Accounts.HasAccount(ctx, addr) {
		c.k.chain.Accounts.NextAccountNumber(ctx)
	}
	c.k.chain.Accounts.SetAccount(ctx, a)
}

var _ Ctx = moveCtx{}

// msgServer is initia.move.v1.Msg.
type msgServer struct{ k *Keeper }

func (s msgServer) run(goCtx context.Context, msg sdk.Msg) (proto.Message, error) {
	return s.k.exec.Run(moveCtx{Context: sdk.UnwrapSDKContext(goCtx), k: s.k}, msg)
}

func (s msgServer) Publish(c context.Context, m *initiamove.MsgPublish) (*initiamove.MsgPublishResponse, error) {
	if _, err := s.run(c, m); err != nil {
		return nil, err
	}
	return &initiamove.MsgPublishResponse{}, nil
}

func (s msgServer) Execute(c context.Context, m *initiamove.MsgExecute) (*initiamove.MsgExecuteResponse, error) {
	if _, err := s.run(c, m); err != nil {
		return nil, err
	}
	return &initiamove.MsgExecuteResponse{}, nil
}

func (s msgServer) ExecuteJSON(c context.Context, m *initiamove.MsgExecuteJSON) (*initiamove.MsgExecuteJSONResponse, error) {
	if _, err := s.run(c, m); err != nil {
		return nil, err
	}
	return &initiamove.MsgExecuteJSONResponse{}, nil
}

func (s msgServer) Script(c context.Context, m *initiamove.MsgScript) (*initiamove.MsgScriptResponse, error) {
	if _, err := s.run(c, m); err != nil {
		return nil, err
	}
	return &initiamove.MsgScriptResponse{}, nil
}

func (s msgServer) ScriptJSON(c context.Context, m *initiamove.MsgScriptJSON) (*initiamove.MsgScriptJSONResponse, error) {
	if _, err := s.run(c, m); err != nil {
		return nil, err
	}
	return &initiamove.MsgScriptJSONResponse{}, nil
}

// queryServer is initia.move.v1.Query.
type queryServer struct{ k *Keeper }

func (s queryServer) handle(goCtx context.Context, method string, req proto.Message) (proto.Message, error) {
	return s.k.query(sdk.UnwrapSDKContext(goCtx), method, req)
}

func (s queryServer) Module(c context.Context, r *initiamove.QueryModuleRequest) (*initiamove.QueryModuleResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/Module", r)
	return asResponse[*initiamove.QueryModuleResponse](res, err)
}

func (s queryServer) Resource(c context.Context, r *initiamove.QueryResourceRequest) (*initiamove.QueryResourceResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/Resource", r)
	return asResponse[*initiamove.QueryResourceResponse](res, err)
}

func (s queryServer) TableEntry(c context.Context, r *initiamove.QueryTableEntryRequest) (*initiamove.QueryTableEntryResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/TableEntry", r)
	return asResponse[*initiamove.QueryTableEntryResponse](res, err)
}

func (s queryServer) View(c context.Context, r *initiamove.QueryViewRequest) (*initiamove.QueryViewResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/View", r)
	return asResponse[*initiamove.QueryViewResponse](res, err)
}

func (s queryServer) ViewJSON(c context.Context, r *initiamove.QueryViewJSONRequest) (*initiamove.QueryViewJSONResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/ViewJSON", r)
	return asResponse[*initiamove.QueryViewJSONResponse](res, err)
}

func (s queryServer) Modules(c context.Context, r *initiamove.QueryModulesRequest) (*initiamove.QueryModulesResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/Modules", r)
	return asResponse[*initiamove.QueryModulesResponse](res, err)
}

func (s queryServer) Resources(c context.Context, r *initiamove.QueryResourcesRequest) (*initiamove.QueryResourcesResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/Resources", r)
	return asResponse[*initiamove.QueryResourcesResponse](res, err)
}

func (s queryServer) TableInfo(c context.Context, r *initiamove.QueryTableInfoRequest) (*initiamove.QueryTableInfoResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/TableInfo", r)
	return asResponse[*initiamove.QueryTableInfoResponse](res, err)
}

func (s queryServer) TableEntries(c context.Context, r *initiamove.QueryTableEntriesRequest) (*initiamove.QueryTableEntriesResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/TableEntries", r)
	return asResponse[*initiamove.QueryTableEntriesResponse](res, err)
}

func (s queryServer) LegacyView(c context.Context, r *initiamove.QueryLegacyViewRequest) (*initiamove.QueryLegacyViewResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/LegacyView", r)
	return asResponse[*initiamove.QueryLegacyViewResponse](res, err)
}

func (s queryServer) ViewBatch(c context.Context, r *initiamove.QueryViewBatchRequest) (*initiamove.QueryViewBatchResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/ViewBatch", r)
	return asResponse[*initiamove.QueryViewBatchResponse](res, err)
}

func (s queryServer) ViewJSONBatch(c context.Context, r *initiamove.QueryViewJSONBatchRequest) (*initiamove.QueryViewJSONBatchResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/ViewJSONBatch", r)
	return asResponse[*initiamove.QueryViewJSONBatchResponse](res, err)
}

func (s queryServer) Params(c context.Context, r *initiamove.QueryParamsRequest) (*initiamove.QueryParamsResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/Params", r)
	return asResponse[*initiamove.QueryParamsResponse](res, err)
}

func (s queryServer) Metadata(c context.Context, r *initiamove.QueryMetadataRequest) (*initiamove.QueryMetadataResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/Metadata", r)
	return asResponse[*initiamove.QueryMetadataResponse](res, err)
}

func (s queryServer) Denom(c context.Context, r *initiamove.QueryDenomRequest) (*initiamove.QueryDenomResponse, error) {
	res, err := s.handle(c, "/initia.move.v1.Query/Denom", r)
	return asResponse[*initiamove.QueryDenomResponse](res, err)
}

func asResponse[T proto.Message](res proto.Message, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	out, ok := res.(T)
	if !ok {
		return zero, status.Errorf(codes.Internal, "query answered %T, want %T", res, zero)
	}
	return out, nil
}

// query runs a query method against sctx (a query context: its gas meter bounds the query).
func (k *Keeper) query(sctx sdk.Context, method string, req proto.Message) (res proto.Message, err error) {
	q, ok := k.byName[method]
	if !ok {
		return nil, status.Errorf(codes.Unimplemented, "unknown method %s", method)
	}
	defer func() {
		if r := recover(); r != nil {
			oog, ok := r.(storetypes.ErrorOutOfGas)
			if !ok {
				panic(r)
			}
			err = errorsmod.Wrapf(sdkerrors.ErrOutOfGas, "Query gas limit exceeded: %v, out of gas in location: %v", sctx.GasMeter().Limit(), oog.Descriptor)
		}
	}()
	return q.Handle(moveCtx{Context: sctx, k: k, query: true}, req)
}

// QueryContexter makes a context at the latest committed state, as a gRPC query gets one.
// The REST routes ask without the header check (as the SDK's gRPC server does with
// skipCheckHeader): they run beside consensus, not under it, and between a commit and the
// check state's reset the check would refuse a query of the state just committed
// ("context did not contain latest block height").
type QueryContexter interface {
	CreateQueryContextWithCheckHeader(height int64, prove, checkHeader bool) (sdk.Context, error)
}

// Routes serves Initia's x/move REST routes, one for each query method, as Initia's gateway
// binds them.
func (k *Keeper) Routes(app QueryContexter, registry codectypes.InterfaceRegistry) http.Handler {
	mux := http.NewServeMux()
	for _, q := range k.queries {
		if q.HTTP == "" {
			continue
		}
		mux.HandleFunc(q.HTTP, func(w http.ResponseWriter, r *http.Request) {
			req := q.New()
			if q.Bind != nil {
				if err := q.Bind(r, req); err != nil {
					if _, ok := status.FromError(err); !ok {
						err = status.Error(codes.InvalidArgument, err.Error())
					}
					writeError(w, err)
					return
				}
			}
			sctx, err := app.CreateQueryContextWithCheckHeader(0, false, false)
			if err != nil {
				writeError(w, err)
				return
			}
			res, err := k.query(sctx, q.Method, req)
			if err != nil {
				writeError(w, err)
				return
			}
			bz, err := codec.ProtoMarshalJSON(res, registry)
			if err != nil {
				writeError(w, status.Error(codes.Internal, err.Error()))
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Grpc-Metadata-X-Cosmos-Block-Height", strconv.FormatInt(sctx.BlockHeight(), 10))
			_, _ = w.Write(bz)
		})
	}
	return mux
}

// AppModule is x/move in the module manager.
type AppModule struct{ k *Keeper }

// NewAppModule wraps the keeper.
func NewAppModule(k *Keeper) AppModule { return AppModule{k: k} }

func (AppModule) Name() string        { return ModuleName }
func (AppModule) IsOnePerModuleType() {}
func (AppModule) IsAppModule()        {}

func (AppModule) RegisterLegacyAminoCodec(*codec.LegacyAmino) {}
func (AppModule) RegisterInterfaces(reg codectypes.InterfaceRegistry) {
	initiamove.RegisterInterfaces(reg)
}

// RegisterGRPCGatewayRoutes is empty: Routes serves the REST routes.
func (AppModule) RegisterGRPCGatewayRoutes(client.Context, *gwruntime.ServeMux) {}

// RegisterServices registers initia.move.v1.Msg and Query.
func (m AppModule) RegisterServices(cfg module.Configurator) {
	initiamove.RegisterMsgServer(cfg.MsgServer(), msgServer(m))
	initiamove.RegisterQueryServer(cfg.QueryServer(), queryServer(m))
}

func (AppModule) DefaultGenesis(codec.JSONCodec) json.RawMessage { return json.RawMessage(`{}`) }

func (AppModule) ValidateGenesis(_ codec.JSONCodec, _ client.TxEncodingConfig, bz json.RawMessage) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(bz, &m); err != nil {
		return fmt.Errorf("move genesis: %w", err)
	}
	return nil
}

// InitGenesis publishes the framework at 0x1 and the executor's genesis packages.
func (m AppModule) InitGenesis(sctx sdk.Context, _ codec.JSONCodec, _ json.RawMessage) []abci.ValidatorUpdate {
	if err := m.k.exec.Genesis(moveCtx{Context: sctx, k: m.k}); err != nil {
		panic(fmt.Errorf("move genesis: %w", err))
	}
	return nil
}

func (AppModule) ExportGenesis(sdk.Context, codec.JSONCodec) json.RawMessage {
	return json.RawMessage(`{}`)
}
