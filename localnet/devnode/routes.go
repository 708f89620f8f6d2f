package devnode

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/cosmos/cosmos-sdk/client/grpc/cmtservice"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/cosmos/cosmos-sdk/types/query"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	"github.com/cosmos/gogoproto/proto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// chainQueries are the CometBFT service's block and syncing methods and the tx service's
// search by events, answered from the node's blocks and tx index.
func (n *Node) chainQueries() []Query {
	return []Query{
		{
			Method: "/cosmos.base.tendermint.v1beta1.Service/GetLatestBlock",
			New:    func() proto.Message { return &cmtservice.GetLatestBlockRequest{} },
			HTTP:   "GET /cosmos/base/tendermint/v1beta1/blocks/latest",
			Handle: func(*Context, proto.Message) (proto.Message, error) {
				id, blk, sdkBlk, err := n.protoBlock(nil)
				if err != nil {
					return nil, err
				}
				return &cmtservice.GetLatestBlockResponse{BlockId: id, Block: blk, SdkBlock: sdkBlk}, nil
			},
		},
		{
			Method: "/cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight",
			New:    func() proto.Message { return &cmtservice.GetBlockByHeightRequest{} },
			HTTP:   "GET /cosmos/base/tendermint/v1beta1/blocks/{height}",
			Bind: func(r *http.Request, req proto.Message) error {
				h, err := strconv.ParseInt(r.PathValue("height"), 10, 64)
				if err != nil {
					return typeMismatch("height", err)
				}
				req.(*cmtservice.GetBlockByHeightRequest).Height = h
				return nil
			},
			Handle: func(_ *Context, r proto.Message) (proto.Message, error) {
				h := r.(*cmtservice.GetBlockByHeightRequest).Height
				// The SDK's own check, before CometBFT's (which refuses heights below 1).
				if h > n.Height() {
					return nil, status.Error(codes.InvalidArgument, "requested block height is bigger then the chain length")
				}
				id, blk, sdkBlk, err := n.protoBlock(&h)
				if err != nil {
					return nil, err
				}
				return &cmtservice.GetBlockByHeightResponse{BlockId: id, Block: blk, SdkBlock: sdkBlk}, nil
			},
		},
		{
			Method: "/cosmos.base.tendermint.v1beta1.Service/GetSyncing",
			New:    func() proto.Message { return &cmtservice.GetSyncingRequest{} },
			HTTP:   "GET /cosmos/base/tendermint/v1beta1/syncing",
			Handle: func(*Context, proto.Message) (proto.Message, error) {
				// A single node seals its own blocks: never catching up.
				return &cmtservice.GetSyncingResponse{Syncing: false}, nil
			},
		},
		{
			Method: "/cosmos.tx.v1beta1.Service/GetTxsEvent",
			New:    func() proto.Message { return &txtypes.GetTxsEventRequest{} },
			HTTP:   "GET /cosmos/tx/v1beta1/txs",
			Bind:   bindTxsEvent,
			Handle: func(_ *Context, r proto.Message) (proto.Message, error) {
				return n.txsEvent(r.(*txtypes.GetTxsEventRequest))
			},
		},
	}
}

// typeMismatch is the gateway's answer to a parameter that does not parse.
func typeMismatch(name string, err error) error {
	return status.Errorf(codes.InvalidArgument, "type mismatch, parameter: %s, error: %v", name, err)
}

// bindTxsEvent reads GetTxsEventRequest's query parameters as the gateway does: query, page,
// limit and order_by (the enum's name or number).
func bindTxsEvent(r *http.Request, req proto.Message) error {
	q := req.(*txtypes.GetTxsEventRequest)
	v := r.URL.Query()
	q.Query = v.Get("query")
	for name, dst := range map[string]*uint64{"page": &q.Page, "limit": &q.Limit} {
		if s := v.Get(name); s != "" {
			u, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return typeMismatch(name, err)
			}
			*dst = u
		}
	}
	if s := v.Get("order_by"); s != "" {
		o, ok := txtypes.OrderBy_value[s]
		if !ok {
			i, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return status.Errorf(codes.InvalidArgument, "type mismatch, parameter: order_by, error: %s is not valid", s)
			}
			o = int32(i)
		}
		q.OrderBy = txtypes.OrderBy(o)
	}
	return nil
}

// protoBlock is a block as the CometBFT service answers it: the block id, the CometBFT block
// and the SDK's block (proposer as a bech32 consensus address).
func (n *Node) protoBlock(height *int64) (*cmtproto.BlockID, *cmtproto.Block, *cmtservice.Block, error) {
	b, err := n.blockAt(height)
	if err != nil {
		// CometBFT's refusal, passed on by the SDK as a plain error.
		return nil, nil, nil, status.Error(codes.Unknown, err.Error())
	}
	id := b.id.ToProto()
	blk, err := b.block.ToProto()
	if err != nil {
		return nil, nil, nil, status.Error(codes.Internal, err.Error())
	}
	h := blk.Header
	// The chain's own prefix, not the SDK's global config (which a process may never set).
	proposer, err := bech32.ConvertAndEncode(n.cfg.prefix+"valcons", h.ProposerAddress)
	if err != nil {
		return nil, nil, nil, status.Error(codes.Internal, err.Error())
	}
	sdkBlk := &cmtservice.Block{
		Header: cmtservice.Header{
			Version: h.Version, ChainID: h.ChainID, Height: h.Height, Time: h.Time, LastBlockId: h.LastBlockId,
			LastCommitHash: h.LastCommitHash, DataHash: h.DataHash, ValidatorsHash: h.ValidatorsHash,
			NextValidatorsHash: h.NextValidatorsHash, ConsensusHash: h.ConsensusHash, AppHash: h.AppHash,
			LastResultsHash: h.LastResultsHash, EvidenceHash: h.EvidenceHash,
			ProposerAddress: proposer,
		},
		Data: blk.Data, Evidence: blk.Evidence, LastCommit: blk.LastCommit,
	}
	return &id, blk, sdkBlk, nil
}

// txsEvent is the tx service's GetTxsEvent over the node's tx index: CometBFT's tx_search
// with the SDK's defaults (page 1, limit 100) and its errors (codes.Internal).
func (n *Node) txsEvent(req *txtypes.GetTxsEventRequest) (*txtypes.GetTxsEventResponse, error) {
	if req.Query == "" {
		return nil, status.Error(codes.Internal, "query cannot be empty")
	}
	page, limit := int(req.Page), int(req.Limit)
	if page <= 0 {
		page = 1
	}
	if limit <= 0 {
		limit = 100
	}
	order := ""
	switch req.OrderBy {
	case txtypes.OrderBy_ORDER_BY_ASC:
		order = "asc"
	case txtypes.OrderBy_ORDER_BY_DESC:
		order = "desc"
	}
	found, err := n.rpcTxSearch(nil, req.Query, false, &page, &limit, order)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "failed to search for txs: %v", err)
	}
	out := &txtypes.GetTxsEventResponse{Txs: []*txtypes.Tx{}, TxResponses: []*sdk.TxResponse{}, Total: uint64(found.TotalCount)}
	for _, res := range found.Txs {
		protoTx, txRes, err := n.txResponse(res)
		if err != nil {
			return nil, err
		}
		out.Txs = append(out.Txs, protoTx)
		out.TxResponses = append(out.TxResponses, txRes)
	}
	return out, nil
}

// BindPageRequest reads a cosmos PageRequest from the gateway's query parameters
// (pagination.key as base64, offset, limit, count_total, reverse); nil when none is given.
func BindPageRequest(v url.Values) (*query.PageRequest, error) {
	var req query.PageRequest
	given := false
	if s := v.Get("pagination.key"); s != "" {
		given = true
		var err error
		if req.Key, err = base64.StdEncoding.DecodeString(s); err != nil {
			if req.Key, err = base64.URLEncoding.DecodeString(s); err != nil {
				return nil, typeMismatch("pagination.key", err)
			}
		}
	}
	for name, dst := range map[string]*uint64{"pagination.offset": &req.Offset, "pagination.limit": &req.Limit} {
		if s := v.Get(name); s != "" {
			given = true
			u, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, typeMismatch(name, err)
			}
			*dst = u
		}
	}
	for name, dst := range map[string]*bool{"pagination.count_total": &req.CountTotal, "pagination.reverse": &req.Reverse} {
		if s := v.Get(name); s != "" {
			given = true
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, typeMismatch(name, err)
			}
			*dst = b
		}
	}
	if !given {
		return nil, nil
	}
	return &req, nil
}
