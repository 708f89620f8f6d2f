package minitia

import (
	"context"

	errorsmod "cosmossdk.io/errors"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	abci "github.com/cometbft/cometbft/abci/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vipharness/vipharness/bindings/pbwalk"
	"github.com/vipharness/vipharness/localnet/feeroutes"
)

// The gRPC queries over abci_query (CosmJS's and Initia.js's way to query) that a minitia
// answers and this app's modules do not: opchild's params and next L1 sequence (from its
// store) and validators,
// which OPinit's module would answer, and x/wasm's params as Initia's wasmd fork has them
// (with max_wasm_size, as its REST route: wasmrest.go).
const (
	opchildParamsQuery     = "/opinit.opchild.v1.Query/Params"
	opchildValidatorsQuery = "/opinit.opchild.v1.Query/Validators"
	wasmParamsQuery        = "/cosmwasm.wasm.v1.Query/Params"
)

// Query answers those queries, and every other as BaseApp does.
func (a *App) Query(ctx context.Context, req *abci.RequestQuery) (*abci.ResponseQuery, error) {
	switch {
	case a.rollup() && (req.Path == opchildParamsQuery || req.Path == opchildValidatorsQuery || req.Path == feeroutes.NextL1SequenceQuery || req.Path == feeroutes.BridgeInfoQuery):
		height := req.Height
		if height == 0 {
			height = a.LastBlockHeight()
		}
		value, err := a.opchildQuery(ctx, req.Path, height)
		if err != nil {
			return queryError(err), nil
		}
		return &abci.ResponseQuery{Value: value, Height: height}, nil
	case a.WasmKeeper != nil && req.Path == wasmParamsQuery:
		res, err := a.BaseApp.Query(ctx, req)
		if err == nil && res.IsOK() {
			res.Value = withMaxWasmSizeProto(res.Value)
		}
		return res, err
	}
	return a.BaseApp.Query(ctx, req)
}

func (a *App) opchildQuery(ctx context.Context, path string, height int64) ([]byte, error) {
	if path == opchildValidatorsQuery {
		if a.opchildValidators == nil {
			return feeroutes.MarshalValidatorsResponse(nil), nil
		}
		vals, err := a.opchildValidators(ctx)
		if err != nil {
			return nil, errorsmod.Wrap(sdkerrors.ErrInvalidRequest, err.Error())
		}
		return feeroutes.MarshalValidatorsResponse(vals), nil
	}
	qctx, err := a.CreateQueryContext(height, false)
	if err != nil {
		return nil, err
	}
	switch path {
	case feeroutes.NextL1SequenceQuery:
		return feeroutes.MarshalNextL1SequenceResponse(a.nextL1Sequence(qctx)), nil
	case feeroutes.BridgeInfoQuery:
		info := a.bridgeInfo(qctx)
		if info == nil {
			return nil, feeroutes.ErrBridgeInfoNotFound
		}
		return feeroutes.MarshalBridgeInfoResponse(info), nil
	}
	params, err := a.opchildParams(qctx)
	if err != nil {
		return nil, err
	}
	return feeroutes.MarshalParamsResponse(params), nil
}

// queryError is err as BaseApp answers a failed query: its codespace, code and log.
func queryError(err error) *abci.ResponseQuery {
	space, code, log := errorsmod.ABCIInfo(err, false)
	return &abci.ResponseQuery{Codespace: space, Code: code, Log: log}
}

// withMaxWasmSizeProto adds max_wasm_size (field 3 of the fork's Params) to a
// QueryParamsResponse's params (field 1); a value it cannot read goes out as it is.
func withMaxWasmSizeProto(value []byte) []byte {
	var params []byte
	err := pbwalk.EachField(value, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num == 1 && typ == protowire.BytesType {
			params = v
		}
		return nil
	})
	if err != nil {
		return value
	}
	params = protowire.AppendTag(append([]byte(nil), params...), 3, protowire.VarintType)
	params = protowire.AppendVarint(params, uint64(wasmtypes.MaxWasmSize))
	out := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(out, params)
}
