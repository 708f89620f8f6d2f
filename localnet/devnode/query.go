package devnode

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"time"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/store/cachekv"
	storetypes "cosmossdk.io/store/types"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/grpc/cmtservice"
	nodeservice "github.com/cosmos/cosmos-sdk/client/grpc/node"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/cosmos-sdk/types/query"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/cosmos/gogoproto/proto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vipharness/vipharness/localnet/feeroutes"
)

// Core query methods that do their own locking (they do not read state through ctx).
var selfLocking = map[string]bool{
	"/cosmos.tx.v1beta1.Service/Simulate":                      true,
	"/cosmos.tx.v1beta1.Service/BroadcastTx":                   true,
	"/cosmos.tx.v1beta1.Service/GetTx":                         true,
	"/cosmos.tx.v1beta1.Service/GetTxsEvent":                   true,
	"/cosmos.base.tendermint.v1beta1.Service/GetLatestBlock":   true,
	"/cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight": true,
	"/cosmos.base.tendermint.v1beta1.Service/GetSyncing":       true,
}

// runQuery answers req at the latest height under a gas limit, against a throwaway cache of
// the committed state.
func (n *Node) runQuery(ctx context.Context, q Query, req proto.Message) (res proto.Message, height int64, err error) {
	if selfLocking[q.Method] {
		res, err = q.Handle(&Context{Context: ctx, ChainID: n.cfg.chainID, Addresses: n.enc.Address, Query: true}, req)
		return res, n.Height(), err
	}
	err = n.read(ctx, func(c *Context) error {
		var herr error
		res, herr = q.Handle(c, req)
		height = c.Height
		return herr
	})
	return res, height, err
}

// read runs f over a throwaway cache of the committed state at the latest height, under the
// query gas limit.
func (n *Node) read(ctx context.Context, f func(*Context) error) (err error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	last := n.blocks[len(n.blocks)-1]
	c := &Context{
		Context:   ctx,
		ChainID:   n.cfg.chainID,
		Height:    last.block.Height,
		Time:      last.block.Time,
		Simulate:  true,
		Query:     true,
		GasMeter:  storetypes.NewGasMeter(n.cfg.queryGasLimit),
		Addresses: n.enc.Address,
		node:      n,
		store:     cachekv.NewStore(n.root),
		events:    sdk.NewEventManager(),
		txVals:    map[string]any{},
	}
	defer func() {
		if r := recover(); r != nil {
			oog, ok := r.(storetypes.ErrorOutOfGas)
			if !ok {
				panic(r)
			}
			err = errorsmod.Wrapf(sdkerrors.ErrOutOfGas, "Query gas limit exceeded: %v, out of gas in location: %v", n.cfg.queryGasLimit, oog.Descriptor)
		}
	}()
	return f(c)
}

// restHandler serves the REST gateway routes of the core and the executor.
func (n *Node) restHandler() http.Handler {
	mux := http.NewServeMux()
	methods := make([]string, 0, len(n.queries))
	for m := range n.queries {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for _, m := range methods {
		q := n.queries[m]
		if q.HTTP == "" {
			continue
		}
		mux.HandleFunc(q.HTTP, func(w http.ResponseWriter, r *http.Request) { n.serveREST(w, r, q) })
	}
	// Fee discovery as a minitia serves it; no Go type of these modules is importable, so
	// they are plain routes rather than entries of the query table.
	feeroutes.Register(mux, func() sdk.DecCoins { return sdk.DecCoins{sdk.NewDecCoinFromDec(n.cfg.denom, n.cfg.gasPrice)} })
	if rr, ok := n.exec.(RouteRegistrar); ok {
		rr.RegisterRoutes(mux, n.read)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, status.New(codes.NotFound, http.StatusText(http.StatusNotFound)), http.StatusNotFound)
	})
	return mux
}

func (n *Node) serveREST(w http.ResponseWriter, r *http.Request, q Query) {
	req := q.New()
	if q.Bind != nil {
		if err := q.Bind(r, req); err != nil {
			st, ok := status.FromError(err)
			if !ok {
				st = status.New(codes.InvalidArgument, err.Error())
			}
			writeStatus(w, st, 0)
			return
		}
	}
	res, height, err := n.runQuery(r.Context(), q, req)
	if err != nil {
		writeStatus(w, status.Convert(err), 0)
		return
	}
	bz, err := codec.ProtoMarshalJSON(res, n.enc.Registry)
	if err != nil {
		writeStatus(w, status.New(codes.Internal, err.Error()), 0)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Grpc-Metadata-X-Cosmos-Block-Height", strconv.FormatInt(height, 10))
	_, _ = w.Write(bz)
}

// WriteError answers err as the gateway does: {"code","message","details"} with the HTTP
// status of its gRPC code (codes.Unknown, 500, for an error that carries none). Executors'
// plain routes (RouteRegistrar) answer their errors with it.
func WriteError(w http.ResponseWriter, err error) { writeStatus(w, status.Convert(err), 0) }

// writeStatus writes a gRPC status as the gateway does: {"code","message","details"} with the
// HTTP status of the gRPC code (httpCode overrides when non-zero).
func writeStatus(w http.ResponseWriter, st *status.Status, httpCode int) {
	if httpCode == 0 {
		httpCode = httpStatus(st.Code())
	}
	bz, _ := json.Marshal(struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Details []any  `json:"details"`
	}{int(st.Code()), st.Message(), []any{}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpCode)
	_, _ = w.Write(bz)
}

// httpStatus is grpc-gateway's mapping of gRPC codes to HTTP statuses.
func httpStatus(c codes.Code) int {
	switch c {
	case codes.OK:
		return http.StatusOK
	case codes.Canceled:
		return http.StatusRequestTimeout
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		return http.StatusBadRequest
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	case codes.NotFound:
		return http.StatusNotFound
	case codes.AlreadyExists, codes.Aborted:
		return http.StatusConflict
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	case codes.ResourceExhausted:
		return http.StatusTooManyRequests
	case codes.Unimplemented:
		return http.StatusNotImplemented
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// bindJSONBody decodes the request body as the gateway does (protobuf JSON, Any resolved).
func (n *Node) bindJSONBody(r *http.Request, req proto.Message) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	if err := n.enc.Codec.UnmarshalJSON(body, req); err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	return nil
}

// coreQueries are the auth, bank and tx services.
func (n *Node) coreQueries() []Query {
	return []Query{
		{
			Method: "/cosmos.auth.v1beta1.Query/Account",
			New:    func() proto.Message { return &authtypes.QueryAccountRequest{} },
			HTTP:   "GET /cosmos/auth/v1beta1/accounts/{address}",
			Bind: func(r *http.Request, req proto.Message) error {
				req.(*authtypes.QueryAccountRequest).Address = r.PathValue("address")
				return nil
			},
			Handle: func(c *Context, r proto.Message) (proto.Message, error) {
				req := r.(*authtypes.QueryAccountRequest)
				acc, err := n.queryAccount(c, req.Address)
				if err != nil {
					return nil, err
				}
				anyAcc, err := codectypes.NewAnyWithValue(acc)
				if err != nil {
					return nil, status.Error(codes.Internal, err.Error())
				}
				return &authtypes.QueryAccountResponse{Account: anyAcc}, nil
			},
		},
		{
			Method: "/cosmos.auth.v1beta1.Query/AccountInfo",
			New:    func() proto.Message { return &authtypes.QueryAccountInfoRequest{} },
			HTTP:   "GET /cosmos/auth/v1beta1/account_info/{address}",
			Bind: func(r *http.Request, req proto.Message) error {
				req.(*authtypes.QueryAccountInfoRequest).Address = r.PathValue("address")
				return nil
			},
			Handle: func(c *Context, r proto.Message) (proto.Message, error) {
				acc, err := n.queryAccount(c, r.(*authtypes.QueryAccountInfoRequest).Address)
				if err != nil {
					return nil, err
				}
				return &authtypes.QueryAccountInfoResponse{Info: acc}, nil
			},
		},
		{
			Method: "/cosmos.auth.v1beta1.Query/Bech32Prefix",
			New:    func() proto.Message { return &authtypes.Bech32PrefixRequest{} },
			HTTP:   "GET /cosmos/auth/v1beta1/bech32",
			Handle: func(*Context, proto.Message) (proto.Message, error) {
				return &authtypes.Bech32PrefixResponse{Bech32Prefix: n.cfg.prefix}, nil
			},
		},
		{
			Method: "/cosmos.bank.v1beta1.Query/AllBalances",
			New:    func() proto.Message { return &banktypes.QueryAllBalancesRequest{} },
			HTTP:   "GET /cosmos/bank/v1beta1/balances/{address}",
			Bind: func(r *http.Request, req proto.Message) error {
				req.(*banktypes.QueryAllBalancesRequest).Address = r.PathValue("address")
				return nil
			},
			Handle: func(c *Context, r proto.Message) (proto.Message, error) {
				req := r.(*banktypes.QueryAllBalancesRequest)
				addr, err := n.queryAddress(req.Address)
				if err != nil {
					return nil, err
				}
				coins := allBalances(openCore(c.store, nil), addr)
				if coins == nil {
					coins = sdk.Coins{}
				}
				return &banktypes.QueryAllBalancesResponse{Balances: coins, Pagination: &query.PageResponse{Total: uint64(len(coins))}}, nil
			},
		},
		{
			Method: "/cosmos.bank.v1beta1.Query/Balance",
			New:    func() proto.Message { return &banktypes.QueryBalanceRequest{} },
			HTTP:   "GET /cosmos/bank/v1beta1/balances/{address}/by_denom",
			Bind: func(r *http.Request, req proto.Message) error {
				q := req.(*banktypes.QueryBalanceRequest)
				q.Address, q.Denom = r.PathValue("address"), r.URL.Query().Get("denom")
				return nil
			},
			Handle: func(c *Context, r proto.Message) (proto.Message, error) {
				req := r.(*banktypes.QueryBalanceRequest)
				addr, err := n.queryAddress(req.Address)
				if err != nil {
					return nil, err
				}
				if err := sdk.ValidateDenom(req.Denom); err != nil {
					return nil, status.Error(codes.InvalidArgument, err.Error())
				}
				coin := sdk.NewCoin(req.Denom, getBalance(openCore(c.store, nil), addr, req.Denom))
				return &banktypes.QueryBalanceResponse{Balance: &coin}, nil
			},
		},
		{
			Method: "/cosmos.base.node.v1beta1.Service/Config",
			New:    func() proto.Message { return &nodeservice.ConfigRequest{} },
			HTTP:   "GET /cosmos/base/node/v1beta1/config",
			Handle: func(*Context, proto.Message) (proto.Message, error) {
				return &nodeservice.ConfigResponse{MinimumGasPrice: sdk.NewDecCoinFromDec(n.cfg.denom, n.cfg.gasPrice).String()}, nil
			},
		},
		{
			Method: "/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo",
			New:    func() proto.Message { return &cmtservice.GetNodeInfoRequest{} },
			HTTP:   "GET /cosmos/base/tendermint/v1beta1/node_info",
			Handle: func(*Context, proto.Message) (proto.Message, error) {
				return &cmtservice.GetNodeInfoResponse{
					DefaultNodeInfo: n.nodeInfo().ToProto(),
					ApplicationVersion: &cmtservice.VersionInfo{
						Name: n.cfg.nodeName, AppName: n.cfg.binaryName, Version: n.cfg.appVersion,
						GoVersion: runtime.Version(), CosmosSdkVersion: "v0.53.6",
					},
				}, nil
			},
		},
		{
			Method: "/cosmos.tx.v1beta1.Service/Simulate",
			New:    func() proto.Message { return &txtypes.SimulateRequest{} },
			HTTP:   "POST /cosmos/tx/v1beta1/simulate",
			Bind:   n.bindJSONBody,
			Handle: func(c *Context, r proto.Message) (proto.Message, error) {
				req := r.(*txtypes.SimulateRequest)
				txBytes := req.TxBytes
				if txBytes == nil && req.Tx != nil {
					var err error
					if txBytes, err = n.rawTx(req.Tx); err != nil {
						return nil, status.Errorf(codes.InvalidArgument, "invalid tx; %v", err)
					}
				}
				if txBytes == nil {
					return nil, status.Errorf(codes.InvalidArgument, "empty txBytes is not allowed")
				}
				info, res, err := n.Simulate(c, txBytes)
				if err != nil {
					// The SDK's text, with err.Error() for its %v: %v of an errorsmod-wrapped error
					// appends the wrapping frame ([/build/path/file.go:line]).
					return nil, status.Errorf(codes.Unknown, "%s with gas used: '%d'", err.Error(), info.GasUsed)
				}
				return &txtypes.SimulateResponse{GasInfo: info, Result: res}, nil
			},
		},
		{
			Method: "/cosmos.tx.v1beta1.Service/BroadcastTx",
			New:    func() proto.Message { return &txtypes.BroadcastTxRequest{} },
			HTTP:   "POST /cosmos/tx/v1beta1/txs",
			Bind:   n.bindJSONBody,
			Handle: func(c *Context, r proto.Message) (proto.Message, error) {
				req := r.(*txtypes.BroadcastTxRequest)
				if req.TxBytes == nil {
					return nil, status.Error(codes.InvalidArgument, "invalid empty tx")
				}
				switch req.Mode {
				case txtypes.BroadcastMode_BROADCAST_MODE_SYNC, txtypes.BroadcastMode_BROADCAST_MODE_ASYNC:
				default:
					return nil, fmt.Errorf("unsupported return type %s; supported types: sync, async", modeName(req.Mode))
				}
				res, err := n.BroadcastTxSync(c, req.TxBytes)
				if err != nil {
					if resp := client.CheckCometError(err, req.TxBytes); resp != nil {
						return &txtypes.BroadcastTxResponse{TxResponse: resp}, nil
					}
					return nil, err
				}
				return &txtypes.BroadcastTxResponse{TxResponse: sdk.NewResponseFormatBroadcastTx(res)}, nil
			},
		},
		{
			Method: "/cosmos.tx.v1beta1.Service/GetTx",
			New:    func() proto.Message { return &txtypes.GetTxRequest{} },
			HTTP:   "GET /cosmos/tx/v1beta1/txs/{hash}",
			Bind: func(r *http.Request, req proto.Message) error {
				req.(*txtypes.GetTxRequest).Hash = r.PathValue("hash")
				return nil
			},
			Handle: func(_ *Context, r proto.Message) (proto.Message, error) {
				req := r.(*txtypes.GetTxRequest)
				if len(req.Hash) == 0 {
					return nil, status.Error(codes.InvalidArgument, "tx hash cannot be empty")
				}
				return n.getTx(req.Hash)
			},
		},
	}
}

func modeName(m txtypes.BroadcastMode) string {
	switch m {
	case txtypes.BroadcastMode_BROADCAST_MODE_BLOCK:
		return "block"
	}
	return "unspecified"
}

// queryAddress decodes a bech32 address of a query.
func (n *Node) queryAddress(s string) ([]byte, error) {
	if s == "" {
		return nil, status.Error(codes.InvalidArgument, "Address cannot be empty")
	}
	addr, err := n.enc.Address.StringToBytes(s)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "invalid address: %v", err)
	}
	return addr, nil
}

func (n *Node) queryAccount(c *Context, s string) (*authtypes.BaseAccount, error) {
	addr, err := n.queryAddress(s)
	if err != nil {
		return nil, err
	}
	acc := n.getAccount(openCore(c.store, nil), addr)
	if acc == nil {
		return nil, status.Errorf(codes.NotFound, "account %s not found", s)
	}
	return acc, nil
}

// rawTx encodes a decoded tx as TxRaw bytes.
func (n *Node) rawTx(tx *txtypes.Tx) ([]byte, error) {
	body, err := proto.Marshal(tx.Body)
	if err != nil {
		return nil, err
	}
	authInfo, err := proto.Marshal(tx.AuthInfo)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(&txtypes.TxRaw{BodyBytes: body, AuthInfoBytes: authInfo, Signatures: tx.Signatures})
}

// decodeProtoTx decodes tx bytes into the protobuf Tx, Anys unpacked.
func (n *Node) decodeProtoTx(bz []byte) (*txtypes.Tx, error) {
	var raw txtypes.TxRaw
	if err := proto.Unmarshal(bz, &raw); err != nil {
		return nil, err
	}
	tx := &txtypes.Tx{Body: &txtypes.TxBody{}, AuthInfo: &txtypes.AuthInfo{}, Signatures: raw.Signatures}
	if err := n.enc.Codec.Unmarshal(raw.BodyBytes, tx.Body); err != nil {
		return nil, err
	}
	if err := n.enc.Codec.Unmarshal(raw.AuthInfoBytes, tx.AuthInfo); err != nil {
		return nil, err
	}
	return tx, nil
}

// getTx is the tx service's GetTx.
func (n *Node) getTx(hashHex string) (*txtypes.GetTxResponse, error) {
	hash, err := hex.DecodeString(hashHex)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "invalid tx hash: %v", err)
	}
	res, err := n.Tx(hash)
	if err != nil {
		return nil, status.Errorf(codes.NotFound, "tx not found: %s", hashHex)
	}
	protoTx, txRes, err := n.txResponse(res)
	if err != nil {
		return nil, err
	}
	return &txtypes.GetTxResponse{Tx: protoTx, TxResponse: txRes}, nil
}

// txResponse is an indexed tx as the tx service answers it: the decoded tx and its response
// stamped with its block's time.
func (n *Node) txResponse(res *ctypes.ResultTx) (*txtypes.Tx, *sdk.TxResponse, error) {
	blk, err := n.blockAt(&res.Height)
	if err != nil {
		return nil, nil, status.Error(codes.Internal, err.Error())
	}
	protoTx, err := n.decodeProtoTx(res.Tx)
	if err != nil {
		return nil, nil, status.Error(codes.Internal, err.Error())
	}
	anyTx, err := codectypes.NewAnyWithValue(protoTx)
	if err != nil {
		return nil, nil, status.Error(codes.Internal, err.Error())
	}
	return protoTx, sdk.NewResponseResultTx(res, anyTx, blk.block.Time.Format(time.RFC3339)), nil
}
