package minitia

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	"github.com/cosmos/cosmos-sdk/codec"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/cosmos-sdk/types/module"
	"github.com/cosmos/cosmos-sdk/types/query"
	authkeeper "github.com/cosmos/cosmos-sdk/x/auth/keeper"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"github.com/cosmos/cosmos-sdk/x/bank"
	bankkeeper "github.com/cosmos/cosmos-sdk/x/bank/keeper"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// vmBank is a bank whose balances a VM keeps, as an Initia chain's bank is: a minimove's
// are Move coins (moveBank), a minievm's fee denom is an ERC-20 (evmBank). x/bank keeps what
// is not a balance (params, send-enabled flags, denom metadata, blocked addresses), and on
// an EVM rollup the balances of the other denoms.
type vmBank interface {
	authtypes.BankKeeper // what the ante handler pays fees with
	bankKeeper() bankkeeper.BaseKeeper
	accountKeeper() authkeeper.AccountKeeper
	// mint issues coins to addr at genesis.
	mint(ctx context.Context, addr sdk.AccAddress, coins sdk.Coins) error
	balance(ctx context.Context, addr sdk.AccAddress, denom string) (sdkmath.Int, error)
	// held lists addr's positive balances, and issued the supply of every denom, in the
	// order the chain's bank pages them.
	held(ctx context.Context, addr sdk.AccAddress) ([]tableCoin, error)
	issued(ctx context.Context) ([]tableCoin, error)
	supply(ctx context.Context, denom string) (sdkmath.Int, error)
}

// sdkKeepers are what a VM's bank keeps of the SDK's: x/bank for what is not a balance, x/auth
// for accounts.
type sdkKeepers struct {
	base bankkeeper.BaseKeeper
	acc  authkeeper.AccountKeeper
}

func (k sdkKeepers) bankKeeper() bankkeeper.BaseKeeper       { return k.base }
func (k sdkKeepers) accountKeeper() authkeeper.AccountKeeper { return k.acc }

// IsSendEnabledCoins is x/bank's check of its send-enabled flags.
func (k sdkKeepers) IsSendEnabledCoins(ctx context.Context, coins ...sdk.Coin) error {
	return k.base.IsSendEnabledCoins(ctx, coins...)
}

// moduleAddress is a module account's address; a module the app lacks panics, as in x/bank.
func (k sdkKeepers) moduleAddress(ctx context.Context, module string) sdk.AccAddress {
	acc := k.acc.GetModuleAccount(ctx, module)
	if acc == nil {
		panic(errorsmod.Wrapf(sdkerrors.ErrUnknownAddress, "module account %s does not exist", module))
	}
	return acc.GetAddress()
}

// emitSend emits the events of a send, as x/bank's SendCoins does.
func emitSend(ctx context.Context, from, to sdk.AccAddress, amt sdk.Coins) {
	sdk.UnwrapSDKContext(ctx).EventManager().EmitEvents(sdk.Events{
		banktypes.NewCoinSpentEvent(from, amt),
		banktypes.NewCoinReceivedEvent(to, amt),
		sdk.NewEvent(banktypes.EventTypeTransfer,
			sdk.NewAttribute(banktypes.AttributeKeyRecipient, to.String()),
			sdk.NewAttribute(banktypes.AttributeKeySender, from.String()),
			sdk.NewAttribute(sdk.AttributeKeyAmount, amt.String())),
		sdk.NewEvent(sdk.EventTypeMessage, sdk.NewAttribute(banktypes.AttributeKeySender, from.String())),
	})
}

// tableCoin is one entry of the table a bank pages: its key, its coin, and whether the
// listing shows it.
type tableCoin struct {
	key    []byte
	coin   sdk.Coin
	listed bool
}

// page cuts a page out of a table's coins as the SDK's filtered collection pagination does
// over the table's entries: by key, or by offset (counted in entries, listed or not) with the
// total counted when asked or when no limit is given (100 then); next_key is the table key of
// the entry after the page. The page is sorted by denom, as Initia's bank sorts it.
func page(entries []tableCoin, preq *query.PageRequest) (sdk.Coins, *query.PageResponse, error) {
	var req query.PageRequest
	if preq != nil {
		req = *preq
	}
	if req.Limit == 0 {
		req.Limit, req.CountTotal = query.DefaultLimit, true
	}
	if len(req.Key) > 0 && req.Offset > 0 {
		return nil, nil, status.Error(codes.InvalidArgument, "invalid request, either offset or key is expected, got both")
	}
	if req.Reverse {
		entries = slices.Clone(entries)
		slices.Reverse(entries)
	}
	out, res := sdk.Coins{}, &query.PageResponse{}
	if len(req.Key) > 0 {
		start := slices.IndexFunc(entries, func(e tableCoin) bool {
			if req.Reverse {
				return bytes.Compare(e.key, req.Key) <= 0
			}
			return bytes.Compare(e.key, req.Key) >= 0
		})
		if start < 0 {
			start = len(entries)
		}
		for _, e := range entries[start:] {
			if !e.listed {
				continue
			}
			if uint64(len(out)) == req.Limit {
				res.NextKey = e.key
				break
			}
			out = append(out, e.coin)
		}
		return out.Sort(), res, nil
	}
	if req.Offset > uint64(len(entries)) {
		return nil, nil, status.Error(codes.InvalidArgument, "invalid iterator")
	}
	count := uint64(0)
	for _, e := range entries[req.Offset:] {
		// As the SDK's: at the limit every entry sets next_key until one more is listed.
		if count == req.Limit {
			res.NextKey = e.key
			if !req.CountTotal {
				break
			}
		}
		if e.listed {
			if count < req.Limit {
				out = append(out, e.coin)
			}
			count++
		}
	}
	if req.CountTotal {
		res.Total = count + req.Offset
	}
	return out.Sort(), res, nil
}

// vmBankModule is x/bank with the VM's bank behind its messages, its balance and
// supply queries and its genesis balances.
type vmBankModule struct {
	bank.AppModule
	b vmBank
}

// RegisterServices registers the bank's services over the VM's bank (x/bank's store
// migrations are not registered: these balances never were x/bank's).
func (m vmBankModule) RegisterServices(cfg module.Configurator) {
	banktypes.RegisterMsgServer(cfg.MsgServer(), vmBankMsgs{MsgServer: bankkeeper.NewMsgServerImpl(m.b.bankKeeper()), b: m.b})
	banktypes.RegisterQueryServer(cfg.QueryServer(), vmBankQueries{QueryServer: m.b.bankKeeper(), b: m.b})
}

// InitGenesis gives x/bank its params, flags and metadata, and mints the genesis balances
// through the VM (Initia's banks initialize balances through x/move and x/evm).
func (m vmBankModule) InitGenesis(ctx sdk.Context, cdc codec.JSONCodec, data json.RawMessage) {
	var gs banktypes.GenesisState
	cdc.MustUnmarshalJSON(data, &gs)
	balances := gs.Balances
	gs.Balances, gs.Supply = nil, nil
	m.b.bankKeeper().InitGenesis(ctx, &gs)
	for _, bal := range balances {
		addr, err := sdk.AccAddressFromBech32(bal.Address)
		if err != nil {
			panic(fmt.Errorf("bank genesis: %w", err))
		}
		if err := m.b.mint(ctx, addr, bal.Coins); err != nil {
			panic(fmt.Errorf("bank genesis: %w", err))
		}
	}
}

// vmBankMsgs is cosmos.bank.v1beta1.Msg with sends through the VM's bank, checked
// as x/bank checks them; the rest is x/bank's.
type vmBankMsgs struct {
	banktypes.MsgServer
	b vmBank
}

func (s vmBankMsgs) Send(goCtx context.Context, msg *banktypes.MsgSend) (*banktypes.MsgSendResponse, error) {
	from, err := s.b.accountKeeper().AddressCodec().StringToBytes(msg.FromAddress)
	if err != nil {
		return nil, sdkerrors.ErrInvalidAddress.Wrapf("invalid from address: %s", err)
	}
	to, err := s.b.accountKeeper().AddressCodec().StringToBytes(msg.ToAddress)
	if err != nil {
		return nil, sdkerrors.ErrInvalidAddress.Wrapf("invalid to address: %s", err)
	}
	if !msg.Amount.IsValid() || !msg.Amount.IsAllPositive() {
		return nil, errorsmod.Wrap(sdkerrors.ErrInvalidCoins, msg.Amount.String())
	}
	if err := s.b.IsSendEnabledCoins(goCtx, msg.Amount...); err != nil {
		return nil, err
	}
	if s.b.bankKeeper().BlockedAddr(to) {
		return nil, errorsmod.Wrapf(sdkerrors.ErrUnauthorized, "%s is not allowed to receive funds", msg.ToAddress)
	}
	if err := s.b.SendCoins(goCtx, from, to, msg.Amount); err != nil {
		return nil, err
	}
	return &banktypes.MsgSendResponse{}, nil
}

func (s vmBankMsgs) MultiSend(goCtx context.Context, msg *banktypes.MsgMultiSend) (*banktypes.MsgMultiSendResponse, error) {
	if len(msg.Inputs) == 0 {
		return nil, banktypes.ErrNoInputs
	}
	if len(msg.Inputs) != 1 {
		return nil, banktypes.ErrMultipleSenders
	}
	if len(msg.Outputs) == 0 {
		return nil, banktypes.ErrNoOutputs
	}
	if err := banktypes.ValidateInputOutputs(msg.Inputs[0], msg.Outputs); err != nil {
		return nil, err
	}
	if err := s.b.IsSendEnabledCoins(goCtx, msg.Inputs[0].Coins...); err != nil {
		return nil, err
	}
	from, err := s.b.accountKeeper().AddressCodec().StringToBytes(msg.Inputs[0].Address)
	if err != nil {
		return nil, sdkerrors.ErrInvalidAddress.Wrapf("invalid input address: %s", err)
	}
	for _, out := range msg.Outputs {
		to, err := s.b.accountKeeper().AddressCodec().StringToBytes(out.Address)
		if err != nil {
			return nil, sdkerrors.ErrInvalidAddress.Wrapf("invalid output address: %s", err)
		}
		if s.b.bankKeeper().BlockedAddr(to) {
			return nil, errorsmod.Wrapf(sdkerrors.ErrUnauthorized, "%s is not allowed to receive funds", out.Address)
		}
		if err := s.b.SendCoins(goCtx, from, to, out.Coins); err != nil {
			return nil, err
		}
	}
	return &banktypes.MsgMultiSendResponse{}, nil
}

// vmBankQueries is cosmos.bank.v1beta1.Query with balances and supply read from the VM
// coin stores, in x/bank's words for bad requests; the rest is x/bank's.
type vmBankQueries struct {
	banktypes.QueryServer
	b vmBank
}

func (q vmBankQueries) address(s string) (sdk.AccAddress, error) {
	a, err := q.b.accountKeeper().AddressCodec().StringToBytes(s)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "invalid address: %s", err.Error())
	}
	return a, nil
}

func (q vmBankQueries) Balance(ctx context.Context, req *banktypes.QueryBalanceRequest) (*banktypes.QueryBalanceResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	if err := sdk.ValidateDenom(req.Denom); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	addr, err := q.address(req.Address)
	if err != nil {
		return nil, err
	}
	n, err := q.b.balance(ctx, addr, req.Denom)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	c := sdk.NewCoin(req.Denom, n)
	return &banktypes.QueryBalanceResponse{Balance: &c}, nil
}

func (q vmBankQueries) AllBalances(ctx context.Context, req *banktypes.QueryAllBalancesRequest) (*banktypes.QueryAllBalancesResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := q.address(req.Address)
	if err != nil {
		return nil, err
	}
	held, err := q.b.held(ctx, addr)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	coins, res, err := page(held, req.Pagination)
	if err != nil {
		return nil, err
	}
	return &banktypes.QueryAllBalancesResponse{Balances: coins, Pagination: res}, nil
}

// Spendable balances are the balances: a VM's coin store has no vesting lock.
func (q vmBankQueries) SpendableBalances(ctx context.Context, req *banktypes.QuerySpendableBalancesRequest) (*banktypes.QuerySpendableBalancesResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	res, err := q.AllBalances(ctx, &banktypes.QueryAllBalancesRequest{Address: req.Address, Pagination: req.Pagination})
	if err != nil {
		return nil, err
	}
	return &banktypes.QuerySpendableBalancesResponse{Balances: res.Balances, Pagination: res.Pagination}, nil
}

func (q vmBankQueries) SpendableBalanceByDenom(ctx context.Context, req *banktypes.QuerySpendableBalanceByDenomRequest) (*banktypes.QuerySpendableBalanceByDenomResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	res, err := q.Balance(ctx, &banktypes.QueryBalanceRequest{Address: req.Address, Denom: req.Denom})
	if err != nil {
		return nil, err
	}
	return &banktypes.QuerySpendableBalanceByDenomResponse{Balance: res.Balance}, nil
}

func (q vmBankQueries) TotalSupply(ctx context.Context, req *banktypes.QueryTotalSupplyRequest) (*banktypes.QueryTotalSupplyResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	issued, err := q.b.issued(ctx)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	supply, res, err := page(issued, req.Pagination)
	if err != nil {
		return nil, err
	}
	return &banktypes.QueryTotalSupplyResponse{Supply: supply, Pagination: res}, nil
}

func (q vmBankQueries) SupplyOf(ctx context.Context, req *banktypes.QuerySupplyOfRequest) (*banktypes.QuerySupplyOfResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	if err := sdk.ValidateDenom(req.Denom); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	n, err := q.b.supply(ctx, req.Denom)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &banktypes.QuerySupplyOfResponse{Amount: sdk.NewCoin(req.Denom, n)}, nil
}
