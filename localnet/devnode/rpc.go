package devnode

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	errorsmod "cosmossdk.io/errors"
	abci "github.com/cometbft/cometbft/abci/types"
	cmtbytes "github.com/cometbft/cometbft/libs/bytes"
	cmtlog "github.com/cometbft/cometbft/libs/log"
	"github.com/cometbft/cometbft/libs/pubsub/query"
	"github.com/cometbft/cometbft/p2p"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	rpcserver "github.com/cometbft/cometbft/rpc/jsonrpc/server"
	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"
	cmttypes "github.com/cometbft/cometbft/types"
	cmtversion "github.com/cometbft/cometbft/version"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// rpcHandler serves the CometBFT RPC methods a client of a rollup uses, through CometBFT's own
// JSON-RPC server: POST JSON-RPC 2.0 (single or batch) and GET /method?arg=value.
func (n *Node) rpcHandler() http.Handler {
	mux := http.NewServeMux()
	funcs := map[string]*rpcserver.RPCFunc{
		"health":              rpcserver.NewRPCFunc(n.rpcHealth, ""),
		"status":              rpcserver.NewRPCFunc(n.rpcStatus, ""),
		"abci_info":           rpcserver.NewRPCFunc(n.rpcABCIInfo, ""),
		"abci_query":          rpcserver.NewRPCFunc(n.rpcABCIQuery, "path,data,height,prove"),
		"broadcast_tx_sync":   rpcserver.NewRPCFunc(n.rpcBroadcastTxSync, "tx"),
		"broadcast_tx_async":  rpcserver.NewRPCFunc(n.rpcBroadcastTxSync, "tx"),
		"broadcast_tx_commit": rpcserver.NewRPCFunc(n.rpcBroadcastTxCommit, "tx"),
		"tx":                  rpcserver.NewRPCFunc(n.rpcTx, "hash,prove", rpcserver.Cacheable()),
		"tx_search":           rpcserver.NewRPCFunc(n.rpcTxSearch, "query,prove,page,per_page,order_by"),
		"block":               rpcserver.NewRPCFunc(n.rpcBlock, "height", rpcserver.Cacheable("height")),
		"block_results":       rpcserver.NewRPCFunc(n.rpcBlockResults, "height", rpcserver.Cacheable("height")),
		"header":              rpcserver.NewRPCFunc(n.rpcHeader, "height", rpcserver.Cacheable("height")),
		"consensus_params":    rpcserver.NewRPCFunc(n.rpcConsensusParams, "height", rpcserver.Cacheable("height")),
	}
	rpcserver.RegisterRPCFuncs(mux, funcs, cmtlog.NewNopLogger())
	wm := n.websocketHandler(funcs)
	wm.SetLogger(cmtlog.NewNopLogger())
	mux.HandleFunc("/websocket", wm.WebsocketHandler)
	return mux
}

func (n *Node) rpcHealth(*rpctypes.Context) (*ctypes.ResultHealth, error) {
	return &ctypes.ResultHealth{}, nil
}

func (n *Node) rpcStatus(*rpctypes.Context) (*ctypes.ResultStatus, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	first, last := n.blocks[0], n.blocks[len(n.blocks)-1]
	return &ctypes.ResultStatus{
		NodeInfo: n.nodeInfo(),
		SyncInfo: ctypes.SyncInfo{
			LatestBlockHash:     last.id.Hash,
			LatestAppHash:       last.block.AppHash,
			LatestBlockHeight:   last.block.Height,
			LatestBlockTime:     last.block.Time,
			EarliestBlockHash:   first.id.Hash,
			EarliestAppHash:     first.block.AppHash,
			EarliestBlockHeight: first.block.Height,
			EarliestBlockTime:   first.block.Time,
		},
		ValidatorInfo: ctypes.ValidatorInfo{Address: n.valKey.PubKey().Address(), PubKey: n.valKey.PubKey(), VotingPower: 10},
	}, nil
}

// rpcConsensusParams reports CometBFT's default block byte limit and the node's block gas
// limit (-1, none, unless WithMaxBlockGas); the node seals one tx per block, so the limits
// bound a single tx.
func (n *Node) rpcConsensusParams(_ *rpctypes.Context, heightPtr *int64) (*ctypes.ResultConsensusParams, error) {
	n.mu.RLock()
	height := n.blocks[len(n.blocks)-1].block.Height
	first := n.blocks[0].block.Height
	n.mu.RUnlock()
	if heightPtr != nil && *heightPtr != 0 {
		switch h := *heightPtr; {
		case h > height:
			return nil, fmt.Errorf("height %d must be less than or equal to the current blockchain height %d", h, height)
		case h < first:
			return nil, fmt.Errorf("height %d is not available, lowest height is %d", h, first)
		}
		height = *heightPtr
	}
	p := cmttypes.DefaultConsensusParams()
	p.Block.MaxGas = -1
	if n.cfg.maxBlockGas > 0 {
		p.Block.MaxGas = n.cfg.maxBlockGas
	}
	return &ctypes.ResultConsensusParams{BlockHeight: height, ConsensusParams: *p}, nil
}

// nodeInfo is the node's CometBFT identity.
func (n *Node) nodeInfo() p2p.DefaultNodeInfo {
	return p2p.DefaultNodeInfo{
		ProtocolVersion: p2p.NewProtocolVersion(cmtversion.P2PProtocol, cmtversion.BlockProtocol, 0),
		DefaultNodeID:   p2p.PubKeyToID(n.valKey.PubKey()),
		ListenAddr:      "tcp://127.0.0.1:26656",
		Network:         n.cfg.chainID,
		Version:         cmtversion.TMCoreSemVer,
		Channels:        cmtbytes.HexBytes{0x40, 0x20, 0x21, 0x22, 0x23, 0x30, 0x38, 0x60, 0x61, 0x00},
		Moniker:         n.cfg.appName,
		Other:           p2p.DefaultNodeInfoOther{TxIndex: "on", RPCAddress: strings.Replace(n.rpc.url, "http://", "tcp://", 1)},
	}
}

func (n *Node) rpcABCIInfo(*rpctypes.Context) (*ctypes.ResultABCIInfo, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return &ctypes.ResultABCIInfo{Response: abci.ResponseInfo{
		Data:             n.cfg.appName,
		Version:          n.cfg.appVersion,
		LastBlockHeight:  int64(len(n.blocks)),
		LastBlockAppHash: append([]byte(nil), n.appHash...),
	}}, nil
}

// rpcABCIQuery answers gRPC query paths (as the SDK's client.Context does over CometBFT) at the
// latest height.
func (n *Node) rpcABCIQuery(ctx *rpctypes.Context, path string, data cmtbytes.HexBytes, height int64, _ bool) (*ctypes.ResultABCIQuery, error) {
	resp := n.abciQuery(ctx.Context(), path, data, height)
	return &ctypes.ResultABCIQuery{Response: resp}, nil
}

func (n *Node) abciQuery(ctx context.Context, path string, data []byte, height int64) abci.ResponseQuery {
	latest := n.Height()
	fail := func(err error) abci.ResponseQuery {
		space, code, log := errorsmod.ABCIInfo(err, false)
		return abci.ResponseQuery{Codespace: space, Code: code, Log: log, Height: latest}
	}
	switch {
	case height > latest:
		return fail(errorsmod.Wrap(sdkerrors.ErrInvalidRequest, "cannot query with height in the future; please provide a valid height"))
	case height != 0 && height < latest:
		return fail(errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "failed to load state at height %d; version does not exist (latest height: %d)", height, latest))
	}
	q, ok := n.queries[path]
	if !ok {
		return fail(errorsmod.Wrap(sdkerrors.ErrUnknownRequest, "unknown query path"))
	}
	req := q.New()
	if err := n.enc.Codec.Unmarshal(data, req); err != nil {
		return fail(errorsmod.Wrap(sdkerrors.ErrInvalidRequest, err.Error()))
	}
	res, h, err := n.runQuery(ctx, q, req)
	if err != nil {
		return fail(grpcToSDKError(err))
	}
	bz, err := n.enc.Codec.Marshal(res)
	if err != nil {
		return fail(errorsmod.Wrap(sdkerrors.ErrJSONMarshal, err.Error()))
	}
	return abci.ResponseQuery{Value: bz, Height: h}
}

// grpcToSDKError maps a query error onto an SDK error as baseapp does for ABCI queries.
func grpcToSDKError(err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return errorsmod.Wrap(sdkerrors.ErrInvalidRequest, err.Error())
	}
	switch st.Code() {
	case codes.NotFound:
		return errorsmod.Wrap(sdkerrors.ErrKeyNotFound, err.Error())
	case codes.InvalidArgument, codes.FailedPrecondition:
		return errorsmod.Wrap(sdkerrors.ErrInvalidRequest, err.Error())
	case codes.Unauthenticated:
		return errorsmod.Wrap(sdkerrors.ErrUnauthorized, err.Error())
	}
	return errorsmod.Wrap(sdkerrors.ErrUnknownRequest, err.Error())
}

func (n *Node) rpcBroadcastTxSync(ctx *rpctypes.Context, tx cmttypes.Tx) (*ctypes.ResultBroadcastTx, error) {
	return n.BroadcastTxSync(ctx.Context(), tx)
}

func (n *Node) rpcBroadcastTxCommit(ctx *rpctypes.Context, tx cmttypes.Tx) (*ctypes.ResultBroadcastTxCommit, error) {
	res, err := n.BroadcastTxSync(ctx.Context(), tx)
	if err != nil {
		return nil, err
	}
	out := &ctypes.ResultBroadcastTxCommit{
		CheckTx: abci.ResponseCheckTx{Code: res.Code, Log: res.Log, Codespace: res.Codespace},
		Hash:    res.Hash,
	}
	if res.Code != 0 {
		return out, nil
	}
	r, err := n.Tx(res.Hash)
	if err != nil {
		return nil, err
	}
	out.TxResult, out.Height = r.TxResult, r.Height
	out.CheckTx.GasWanted = r.TxResult.GasWanted
	return out, nil
}

func (n *Node) rpcTx(_ *rpctypes.Context, hash []byte, _ bool) (*ctypes.ResultTx, error) {
	return n.Tx(hash)
}

// rpcTxSearch matches the CometBFT query language against tx.hash, tx.height and the txs'
// events.
func (n *Node) rpcTxSearch(_ *rpctypes.Context, q string, _ bool, pagePtr, perPagePtr *int, orderBy string) (*ctypes.ResultTxSearch, error) {
	parsed, err := query.New(q)
	if err != nil {
		return nil, err
	}
	n.mu.RLock()
	var found []*ctypes.ResultTx
	for _, rec := range n.txs {
		events := map[string][]string{
			"tx.hash":   {fmt.Sprintf("%X", rec.tx.Hash())},
			"tx.height": {fmt.Sprint(rec.height)},
		}
		for _, ev := range rec.result.Events {
			for _, a := range ev.Attributes {
				k := ev.Type + "." + a.Key
				events[k] = append(events[k], a.Value)
			}
		}
		ok, err := parsed.Matches(events)
		if err != nil {
			n.mu.RUnlock()
			return nil, err
		}
		if ok {
			found = append(found, &ctypes.ResultTx{Hash: rec.tx.Hash(), Height: rec.height, Index: rec.index, TxResult: *rec.result, Tx: rec.tx})
		}
	}
	n.mu.RUnlock()
	switch orderBy {
	case "", "asc":
		sort.Slice(found, func(i, j int) bool { return found[i].Height < found[j].Height })
	case "desc":
		sort.Slice(found, func(i, j int) bool { return found[i].Height > found[j].Height })
	default:
		return nil, errors.New("expected order_by to be either `asc` or `desc` or empty")
	}
	perPage := 30
	if perPagePtr != nil && *perPagePtr > 0 {
		perPage = min(*perPagePtr, 100)
	}
	page := 1
	if pagePtr != nil {
		page = *pagePtr
	}
	pages := max(1, (len(found)+perPage-1)/perPage)
	if page < 1 || page > pages {
		return nil, fmt.Errorf("page should be within [1, %d] range, given %d", pages, page)
	}
	start := (page - 1) * perPage
	return &ctypes.ResultTxSearch{Txs: found[start:min(start+perPage, len(found))], TotalCount: len(found)}, nil
}

// blockAt resolves an optional height (nil: latest).
func (n *Node) blockAt(heightPtr *int64) (*blockRecord, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	latest := int64(len(n.blocks))
	h := latest
	if heightPtr != nil {
		h = *heightPtr
	}
	if h <= 0 {
		return nil, fmt.Errorf("height must be greater than 0, but got %d", h)
	}
	if h > latest {
		return nil, fmt.Errorf("height %d must be less than or equal to the current blockchain height %d", h, latest)
	}
	return n.blocks[h-1], nil
}

func (n *Node) rpcBlock(_ *rpctypes.Context, heightPtr *int64) (*ctypes.ResultBlock, error) {
	b, err := n.blockAt(heightPtr)
	if err != nil {
		return nil, err
	}
	return &ctypes.ResultBlock{BlockID: b.id, Block: b.block}, nil
}

func (n *Node) rpcHeader(_ *rpctypes.Context, heightPtr *int64) (*ctypes.ResultHeader, error) {
	b, err := n.blockAt(heightPtr)
	if err != nil {
		return nil, err
	}
	return &ctypes.ResultHeader{Header: &b.block.Header}, nil
}

func (n *Node) rpcBlockResults(_ *rpctypes.Context, heightPtr *int64) (*ctypes.ResultBlockResults, error) {
	b, err := n.blockAt(heightPtr)
	if err != nil {
		return nil, err
	}
	return &ctypes.ResultBlockResults{
		Height:              b.block.Height,
		TxsResults:          b.results,
		FinalizeBlockEvents: []abci.Event{},
		AppHash:             b.appHash,
	}, nil
}
