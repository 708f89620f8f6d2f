package minitia

import (
	"context"
	"fmt"

	"github.com/cosmos/cosmos-sdk/types/module"
	"github.com/cosmos/cosmos-sdk/x/bank"
	bankkeeper "github.com/cosmos/cosmos-sdk/x/bank/keeper"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// evmBankModule is x/bank on an EVM rollup, answering its supply queries as a minievm's bank
// does: a minievm keeps each denom's supply in the denom's ERC-20, so a denom with no ERC-20
// (never issued) is a store miss, not a zero.
type evmBankModule struct {
	bank.AppModule
	keeper   bankkeeper.BaseKeeper
	feeDenom string
}

// RegisterServices registers x/bank's message service and its queries with minievm's supply
// answer (x/bank's store migrations are not registered: the rollup starts on this version).
func (m evmBankModule) RegisterServices(cfg module.Configurator) {
	banktypes.RegisterMsgServer(cfg.MsgServer(), bankkeeper.NewMsgServerImpl(m.keeper))
	banktypes.RegisterQueryServer(cfg.QueryServer(), evmBankQueries{QueryServer: m.keeper, feeDenom: m.feeDenom})
}

type evmBankQueries struct {
	banktypes.QueryServer
	feeDenom string
}

// SupplyOf refuses a denom that no coin of the chain has ever had, in minievm's words.
func (q evmBankQueries) SupplyOf(ctx context.Context, req *banktypes.QuerySupplyOfRequest) (*banktypes.QuerySupplyOfResponse, error) {
	res, err := q.QueryServer.SupplyOf(ctx, req)
	if err != nil {
		return nil, err
	}
	if req.Denom != q.feeDenom && res.Amount.IsZero() {
		return nil, status.Error(codes.Internal, fmt.Sprintf("collections: not found: key '%s' of type bytes", req.Denom))
	}
	return res, nil
}
