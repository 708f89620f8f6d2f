package evmrest

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"
	nodeservice "github.com/cosmos/cosmos-sdk/client/grpc/node"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/cosmos-sdk/types/query"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/cosmos/gogoproto/proto"
	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/localnet/feeroutes"
)

// Query answers a gRPC query over abci_query (CosmJS's and Initia.js's way to query) as a
// minievm's app answers it, for what the face serves on REST too: the auth, bank and node
// params, opchild's params, validators and next L1 sequence, the fee denom's supply and balances, and
// accounts. Any other path is unknown, in BaseApp's words (codespace sdk, code 6).
func (s *Server) Query(ctx context.Context, path string, data []byte) ([]byte, error) {
	res, err := s.query(ctx, path, data)
	if err != nil {
		return nil, err
	}
	if b, ok := res.([]byte); ok {
		return b, nil
	}
	return proto.Marshal(res.(proto.Message))
}

func (s *Server) query(ctx context.Context, path string, data []byte) (any, error) {
	switch path {
	case "/cosmos.auth.v1beta1.Query/Params":
		return &authtypes.QueryParamsResponse{Params: authtypes.DefaultParams()}, nil
	case "/cosmos.bank.v1beta1.Query/Params":
		return &banktypes.QueryParamsResponse{Params: banktypes.DefaultParams()}, nil
	case "/cosmos.base.node.v1beta1.Service/Config":
		return &nodeservice.ConfigResponse{MinimumGasPrice: s.minGasPrice().String()}, nil
	case "/opinit.opchild.v1.Query/Params":
		p, err := s.opchildParams().Marshal()
		return feeroutes.MarshalParamsResponse(p), err
	case "/opinit.opchild.v1.Query/Validators":
		return feeroutes.MarshalValidatorsResponse(s.validators()), nil
	case feeroutes.NextL1SequenceQuery:
		return feeroutes.MarshalNextL1SequenceResponse(feeroutes.L1SequenceStart), nil
	case feeroutes.BridgeInfoQuery:
		info := s.bridgeInfo()
		if info == nil {
			return nil, feeroutes.ErrBridgeInfoNotFound
		}
		return feeroutes.MarshalBridgeInfoResponse(info.Marshal()), nil
	case "/cosmos.bank.v1beta1.Query/TotalSupply":
		if s.info.Supply == nil {
			break
		}
		coins, err := s.supplyCoins(ctx)
		return &banktypes.QueryTotalSupplyResponse{Supply: coins, Pagination: &query.PageResponse{Total: uint64(len(coins))}}, err
	case "/cosmos.bank.v1beta1.Query/AllBalances":
		var req banktypes.QueryAllBalancesRequest
		addr, err := decodeAddress(data, &req, func() string { return req.Address })
		if err != nil {
			return nil, err
		}
		coins, err := s.balancesOf(ctx, addr)
		return &banktypes.QueryAllBalancesResponse{Balances: coins, Pagination: &query.PageResponse{Total: uint64(len(coins))}}, err
	case "/cosmos.bank.v1beta1.Query/Balance":
		var req banktypes.QueryBalanceRequest
		addr, err := decodeAddress(data, &req, func() string { return req.Address })
		if err != nil {
			return nil, err
		}
		if err := sdk.ValidateDenom(req.Denom); err != nil {
			return nil, errorsmod.Wrap(sdkerrors.ErrInvalidRequest, "invalid denom: "+err.Error())
		}
		coin, err := s.balanceOf(ctx, addr, req.Denom)
		return &banktypes.QueryBalanceResponse{Balance: &coin}, err
	case "/cosmos.auth.v1beta1.Query/Account":
		var req authtypes.QueryAccountRequest
		addr, err := decodeAddress(data, &req, func() string { return req.Address })
		if err != nil {
			return nil, err
		}
		acct, err := s.accountOf(ctx, addr)
		if errors.Is(err, errAccountNotFound) {
			// BaseApp's words for the gRPC NotFound the auth module answers.
			return nil, errorsmod.Wrap(sdkerrors.ErrKeyNotFound, "rpc error: code = NotFound desc = "+err.Error())
		}
		return acct, err
	}
	return nil, errorsmod.Wrap(sdkerrors.ErrUnknownRequest, "unknown query path")
}

// decodeAddress decodes a request that names an account, and the account.
func decodeAddress(data []byte, req proto.Message, address func() string) (common.Address, error) {
	if err := proto.Unmarshal(data, req); err != nil {
		return common.Address{}, errorsmod.Wrap(sdkerrors.ErrTxDecode, err.Error())
	}
	addr, err := parseAccount(address())
	if err != nil {
		return common.Address{}, errorsmod.Wrap(sdkerrors.ErrInvalidRequest, "invalid address: "+err.Error())
	}
	return addr, nil
}

// opchildParams are the rollup's opchild params (what its REST route serves).
func (s *Server) opchildParams() feeroutes.Params {
	p := feeroutes.NewParams(sdk.DecCoins{s.minGasPrice()})
	if exec := s.bridgeExecutor(); s.info.Bridge != nil && exec != "" {
		p.BridgeExecutors, p.Admin = []string{exec}, exec
	}
	return p
}

// bridgeExecutor is the bridge executor a minievm's genesis names: the account of the
// sequencer's operator.
func (s *Server) bridgeExecutor() string {
	if s.info.Sequencer == nil {
		return ""
	}
	_, b, err := bech32.DecodeAndConvert(s.info.Sequencer.OperatorAddress)
	if err != nil {
		return ""
	}
	acc, err := bech32.ConvertAndEncode(Prefix, b)
	if err != nil {
		return ""
	}
	return acc
}

// bridgeInfo is opchild's bridge info (nil without a bridge).
func (s *Server) bridgeInfo() *feeroutes.BridgeInfo {
	if s.info.Bridge == nil {
		return nil
	}
	info := s.info.Bridge.Info(s.bridgeExecutor())
	return &info
}

// validators are the validators opchild lists (none without a sequencer).
func (s *Server) validators() []feeroutes.Validator {
	if s.info.Sequencer == nil {
		return nil
	}
	return []feeroutes.Validator{*s.info.Sequencer}
}

// balancesOf are addr's coins (the fee denom's, read from the EVM), none of zero.
func (s *Server) balancesOf(ctx context.Context, addr common.Address) (sdk.Coins, error) {
	bal, err := s.chain.BalanceAt(ctx, addr, nil)
	if err != nil {
		return nil, err
	}
	coins := sdk.Coins{}
	if bal.Sign() > 0 {
		coins = sdk.NewCoins(sdk.NewCoin(s.info.FeeDenom, math.NewIntFromBigInt(bal)))
	}
	return coins, nil
}

// balanceOf is addr's balance of denom: 0 of any denom but the fee denom.
func (s *Server) balanceOf(ctx context.Context, addr common.Address, denom string) (sdk.Coin, error) {
	if denom != s.info.FeeDenom {
		return sdk.NewCoin(denom, math.ZeroInt()), nil
	}
	bal, err := s.chain.BalanceAt(ctx, addr, nil)
	if err != nil {
		return sdk.Coin{}, err
	}
	return sdk.NewCoin(denom, math.NewIntFromBigInt(bal)), nil
}

// supplyCoins is the fee denom's supply as coins (none of zero).
func (s *Server) supplyCoins(ctx context.Context) (sdk.Coins, error) {
	total, err := s.info.Supply(ctx)
	if err != nil {
		return nil, err
	}
	coins := sdk.Coins{}
	if total.Sign() > 0 {
		coins = sdk.NewCoins(sdk.NewCoin(s.info.FeeDenom, math.NewIntFromBigInt(total)))
	}
	return coins, nil
}

// writeInternal answers err as an internal error (code 13, HTTP 500).
func writeInternal(w http.ResponseWriter, err error) {
	writeStatus(w, http.StatusInternalServerError, 13, fmt.Sprint(err))
}
