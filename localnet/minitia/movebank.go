package minitia

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	"github.com/cosmos/cosmos-sdk/codec"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/cosmos-sdk/types/module"
	"github.com/cosmos/cosmos-sdk/types/query"
	authkeeper "github.com/cosmos/cosmos-sdk/x/auth/keeper"
	"github.com/cosmos/cosmos-sdk/x/bank"
	bankkeeper "github.com/cosmos/cosmos-sdk/x/bank/keeper"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/localnet/minitia/xmove"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// moveBank is a minimove's bank (Initia's x/bank over x/move's MoveBankKeeper): balances are
// Move fungible assets in primary fungible stores, and coins move by 0x1::coin::sudo_transfer
// in the MoveVM, signed by 0x1 and the owner, so a send or a fee's payment costs the VM gas
// it costs there and fails as it fails there (an amount above u64 panics converting it, a
// balance too small aborts in 0x1::fungible_asset). x/bank keeps what is not a balance:
// params, send-enabled flags, denom metadata and the blocked addresses.
type moveBank struct {
	base bankkeeper.BaseKeeper
	acc  authkeeper.AccountKeeper
	move *xmove.Keeper
}

// Resources and entry functions of the MinitiaStdlib the bank uses.
const (
	fungibleStoreTag         = "0x1::fungible_asset::FungibleStore"
	supplyTag                = "0x1::fungible_asset::Supply"
	metadataTag              = "0x1::fungible_asset::Metadata"
	dispatchFunctionStoreTag = "0x1::fungible_asset::DispatchFunctionStore"
	// moduleStoreTag is primary_fungible_store's record for the Cosmos side: every coin's
	// issuer and every owner's primary stores, the tables the bank walks.
	moduleStoreTag = "0x1::primary_fungible_store::ModuleStore"
)

// SendCoins moves amt from one account to another through the Move coin module, then emits
// the bank's events and creates the recipient's account if it has none, as Initia's bank
// does.
func (b moveBank) SendCoins(ctx context.Context, from, to sdk.AccAddress, amt sdk.Coins) error {
	// The send restriction of IBC forwarding (which minimove runs and this app does not)
	// reads the recipient's account: no account here forwards, so only the read is made.
	b.acc.GetAccount(ctx, to)
	for _, c := range amt {
		if err := b.sendCoin(ctx, from, to, c); err != nil {
			return err
		}
	}
	sctx := sdk.UnwrapSDKContext(ctx)
	sctx.EventManager().EmitEvent(banktypes.NewCoinSpentEvent(from, amt))
	sctx.EventManager().EmitEvent(banktypes.NewCoinReceivedEvent(to, amt))
	if !b.acc.HasAccount(ctx, to) {
		b.acc.SetAccount(ctx, b.acc.NewAccountWithAddress(ctx, to))
	}
	sctx.EventManager().EmitEvents(sdk.Events{
		sdk.NewEvent(banktypes.EventTypeTransfer,
			sdk.NewAttribute(banktypes.AttributeKeyRecipient, to.String()),
			sdk.NewAttribute(banktypes.AttributeKeySender, from.String()),
			sdk.NewAttribute(sdk.AttributeKeyAmount, amt.String())),
		sdk.NewEvent(sdk.EventTypeMessage, sdk.NewAttribute(banktypes.AttributeKeySender, from.String())),
	})
	return nil
}

func (b moveBank) sendCoin(ctx context.Context, from, to sdk.AccAddress, c sdk.Coin) error {
	metadata, err := xmove.MetadataOf(c.Denom)
	if err != nil {
		return errorsmod.Wrap(sdkerrors.ErrInvalidCoins, err.Error())
	}
	dispatchable, err := b.move.HasResource(ctx, metadata, dispatchFunctionStoreTag)
	if err != nil {
		return err
	}
	if dispatchable {
		return errorsmod.Wrap(xmove.ErrInvalidRequest, "dispatchable fungible asset is not allowed in this context")
	}
	// Uint64 panics above u64, before anything moves, as x/move's conversion does; BaseApp
	// answers the recovered panic.
	amount := c.Amount.Uint64()
	return b.move.ExecuteAs(ctx, []movebcs.Address{xmove.StdAddress, movebcs.AccountAddress(from)}, movevm.Function{
		Module:   movevm.ModuleID{Address: xmove.StdAddress, Name: "coin"},
		Function: "sudo_transfer",
		Args:     [][]byte{addressArg(to), metadata[:], movebcs.ArgU64(amount)},
	})
}

func addressArg(a sdk.AccAddress) []byte {
	addr := movebcs.AccountAddress(a)
	return addr[:]
}

// SendCoinsFromAccountToModule pays a module account (the fee collector, for fees).
func (b moveBank) SendCoinsFromAccountToModule(ctx context.Context, from sdk.AccAddress, module string, amt sdk.Coins) error {
	acc := b.acc.GetModuleAccount(ctx, module)
	if acc == nil {
		panic(errorsmod.Wrapf(sdkerrors.ErrUnknownAddress, "module account %s does not exist", module))
	}
	return b.SendCoins(ctx, from, acc.GetAddress(), amt)
}

// IsSendEnabledCoins is x/bank's check of its send-enabled flags.
func (b moveBank) IsSendEnabledCoins(ctx context.Context, coins ...sdk.Coin) error {
	return b.base.IsSendEnabledCoins(ctx, coins...)
}

// mint issues coins to addr at genesis: the coin is initialized as a managed coin of 0x1
// when its metadata is missing, then minted into addr's primary store (x/move's MintCoins).
func (b moveBank) mint(ctx context.Context, addr sdk.AccAddress, coins sdk.Coins) error {
	for _, c := range coins {
		metadata, err := xmove.MetadataOf(c.Denom)
		if err != nil {
			return err
		}
		exists, err := b.move.HasResource(ctx, metadata, metadataTag)
		if err != nil {
			return err
		}
		if !exists {
			if err := b.move.ExecuteAs(ctx, []movebcs.Address{xmove.StdAddress}, movevm.Function{
				Module: movevm.ModuleID{Address: xmove.StdAddress, Name: "managed_coin"}, Function: "initialize",
				// no maximum supply, name, symbol, 0 decimals, no icon or project URI
				Args: [][]byte{{0}, movebcs.ArgString(c.Denom + " Coin"), movebcs.ArgString(c.Denom), {0}, {0}, {0}},
			}); err != nil {
				return fmt.Errorf("initialize coin %s: %w", c.Denom, err)
			}
		}
		if err := b.move.ExecuteAs(ctx, []movebcs.Address{xmove.StdAddress}, movevm.Function{
			Module: movevm.ModuleID{Address: xmove.StdAddress, Name: "managed_coin"}, Function: "sudo_mint",
			Args: [][]byte{addressArg(addr), metadata[:], movebcs.ArgU64(c.Amount.Uint64())},
		}); err != nil {
			return fmt.Errorf("mint %s to %s: %w", c, addr, err)
		}
	}
	return nil
}

// balance reads addr's primary store of denom (zero when it has none). A FungibleStore
// begins with its metadata object's address, then the balance (u64).
func (b moveBank) balance(ctx context.Context, addr sdk.AccAddress, denom string) (sdkmath.Int, error) {
	metadata, err := xmove.MetadataOf(denom)
	if err != nil {
		return sdkmath.Int{}, err
	}
	raw, err := b.move.ResourceBytes(ctx, xmove.PrimaryStoreAddress(movebcs.AccountAddress(addr), metadata), fungibleStoreTag)
	if errors.Is(err, xmove.ErrNoResource) {
		return sdkmath.ZeroInt(), nil
	}
	if err != nil {
		return sdkmath.Int{}, err
	}
	if len(raw) < 40 {
		return sdkmath.Int{}, fmt.Errorf("%s's store of %s: %d bytes", addr, denom, len(raw))
	}
	return sdkmath.NewIntFromUint64(binary.LittleEndian.Uint64(raw[32:40])), nil
}

// supply reads denom's current supply (zero when the coin was never issued).
func (b moveBank) supply(ctx context.Context, denom string) (sdkmath.Int, error) {
	metadata, err := xmove.MetadataOf(denom)
	if err != nil {
		return sdkmath.Int{}, err
	}
	return b.supplyAt(ctx, metadata)
}

// supplyAt reads the current supply of the coin whose metadata is at metadata: a Supply
// begins with it (u128).
func (b moveBank) supplyAt(ctx context.Context, metadata movebcs.Address) (sdkmath.Int, error) {
	raw, err := b.move.ResourceBytes(ctx, metadata, supplyTag)
	if errors.Is(err, xmove.ErrNoResource) {
		return sdkmath.ZeroInt(), nil
	}
	if err != nil {
		return sdkmath.Int{}, err
	}
	if len(raw) < 16 {
		return sdkmath.Int{}, fmt.Errorf("supply at %s: %d bytes", metadata, len(raw))
	}
	lo, hi := binary.LittleEndian.Uint64(raw[0:8]), binary.LittleEndian.Uint64(raw[8:16])
	n := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
	return sdkmath.NewIntFromBigInt(n.Or(n, new(big.Int).SetUint64(lo))), nil
}

// storeTables reads the handles of primary_fungible_store's two tables: issuers (metadata
// to issuer) and user_stores (owner to a table of metadata to store). Each is a Table:
// its handle, then its length.
func (b moveBank) storeTables(ctx context.Context) (issuers, users movebcs.Address, err error) {
	raw, err := b.move.ResourceBytes(ctx, xmove.StdAddress, moduleStoreTag)
	if err != nil {
		return issuers, users, fmt.Errorf("primary fungible store's tables: %w", err)
	}
	r := movebcs.NewReader(raw)
	issuers = r.Address()
	r.U64()
	users = r.Address()
	r.U64()
	if err := r.Done(); err != nil {
		return issuers, users, fmt.Errorf("primary fungible store's tables: %w", err)
	}
	return issuers, users, nil
}

// tableCoin is a coin read from an entry of a Move table, with the entry's key (BCS, the
// coin's metadata address), which pages are cut by; listed says the entry counts (its
// amount is positive).
type tableCoin struct {
	key    []byte
	coin   sdk.Coin
	listed bool
}

// held lists addr's positive balances as a minimove's bank does: from addr's table of
// primary stores, in the table's key order.
func (b moveBank) held(ctx context.Context, addr sdk.AccAddress) ([]tableCoin, error) {
	_, users, err := b.storeTables(ctx)
	if err != nil {
		return nil, err
	}
	owner := movebcs.AccountAddress(addr)
	entry, ok := b.move.TableEntry(ctx, users, owner[:])
	if !ok {
		return nil, nil
	}
	stores := movebcs.NewReader(entry).Address()
	var out []tableCoin
	err = b.move.WalkTable(ctx, stores, func(key, value []byte) (bool, error) {
		store := movebcs.NewReader(value).Address()
		raw, err := b.move.ResourceBytes(ctx, store, fungibleStoreTag)
		if err != nil {
			return true, fmt.Errorf("%s's store %s: %w", addr, store, err)
		}
		// A FungibleStore begins with its metadata object's address, then the balance (u64).
		if len(raw) < 40 {
			return true, fmt.Errorf("%s's store %s: %d bytes", addr, store, len(raw))
		}
		amount := binary.LittleEndian.Uint64(raw[32:40])
		c := tableCoin{key: key, listed: amount > 0}
		if c.listed {
			denom, err := b.denomAt(ctx, movebcs.Address(raw[0:32]))
			if err != nil {
				return true, err
			}
			c.coin = sdk.NewCoin(denom, sdkmath.NewIntFromUint64(amount))
		}
		out = append(out, c)
		return false, nil
	})
	return out, err
}

// issued lists every coin's positive supply as a minimove's bank does: from the issuers
// table, in its key order.
func (b moveBank) issued(ctx context.Context) ([]tableCoin, error) {
	issuers, _, err := b.storeTables(ctx)
	if err != nil {
		return nil, err
	}
	var out []tableCoin
	err = b.move.WalkTable(ctx, issuers, func(key, _ []byte) (bool, error) {
		metadata := movebcs.NewReader(key).Address()
		n, err := b.supplyAt(ctx, metadata)
		if err != nil {
			return true, err
		}
		c := tableCoin{key: key, listed: n.IsPositive()}
		if c.listed {
			denom, err := b.denomAt(ctx, metadata)
			if err != nil {
				return true, err
			}
			c.coin = sdk.NewCoin(denom, n)
		}
		out = append(out, c)
		return false, nil
	})
	return out, err
}

func (b moveBank) denomAt(ctx context.Context, metadata movebcs.Address) (string, error) {
	denom, ok, err := b.move.DenomOf(ctx, metadata)
	if err == nil && !ok {
		err = fmt.Errorf("no fungible asset metadata at %s", metadata)
	}
	return denom, err
}

// IterateTotalSupply walks every coin's supply (x/move's denom query names a metadata
// address by it where the framework keeps no metadata).
func (b moveBank) IterateTotalSupply(ctx context.Context, cb func(sdk.Coin) bool) {
	coins, err := b.issued(ctx)
	if err != nil {
		return
	}
	for _, c := range coins {
		if c.listed && cb(c.coin) {
			return
		}
	}
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

// moveBankModule is x/bank with the Move-backed bank behind its messages, its balance and
// supply queries and its genesis balances.
type moveBankModule struct {
	bank.AppModule
	b moveBank
}

// RegisterServices registers the bank's services over the Move-backed bank (x/bank's
// store migrations are not registered: this bank's balances never were x/bank's).
func (m moveBankModule) RegisterServices(cfg module.Configurator) {
	banktypes.RegisterMsgServer(cfg.MsgServer(), moveBankMsgs{MsgServer: bankkeeper.NewMsgServerImpl(m.b.base), b: m.b})
	banktypes.RegisterQueryServer(cfg.QueryServer(), moveBankQueries{QueryServer: m.b.base, b: m.b})
}

// InitGenesis gives x/bank its params, flags and metadata, and mints the genesis balances
// as Move coins (Initia's bank initializes balances through x/move).
func (m moveBankModule) InitGenesis(ctx sdk.Context, cdc codec.JSONCodec, data json.RawMessage) {
	var gs banktypes.GenesisState
	cdc.MustUnmarshalJSON(data, &gs)
	balances := gs.Balances
	gs.Balances, gs.Supply = nil, nil
	m.b.base.InitGenesis(ctx, &gs)
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

// moveBankMsgs is cosmos.bank.v1beta1.Msg with sends through the Move-backed bank, checked
// as x/bank checks them; the rest is x/bank's.
type moveBankMsgs struct {
	banktypes.MsgServer
	b moveBank
}

func (s moveBankMsgs) Send(goCtx context.Context, msg *banktypes.MsgSend) (*banktypes.MsgSendResponse, error) {
	from, err := s.b.acc.AddressCodec().StringToBytes(msg.FromAddress)
	if err != nil {
		return nil, sdkerrors.ErrInvalidAddress.Wrapf("invalid from address: %s", err)
	}
	to, err := s.b.acc.AddressCodec().StringToBytes(msg.ToAddress)
	if err != nil {
		return nil, sdkerrors.ErrInvalidAddress.Wrapf("invalid to address: %s", err)
	}
	if !msg.Amount.IsValid() || !msg.Amount.IsAllPositive() {
		return nil, errorsmod.Wrap(sdkerrors.ErrInvalidCoins, msg.Amount.String())
	}
	if err := s.b.IsSendEnabledCoins(goCtx, msg.Amount...); err != nil {
		return nil, err
	}
	if s.b.base.BlockedAddr(to) {
		return nil, errorsmod.Wrapf(sdkerrors.ErrUnauthorized, "%s is not allowed to receive funds", msg.ToAddress)
	}
	if err := s.b.SendCoins(goCtx, from, to, msg.Amount); err != nil {
		return nil, err
	}
	return &banktypes.MsgSendResponse{}, nil
}

func (s moveBankMsgs) MultiSend(goCtx context.Context, msg *banktypes.MsgMultiSend) (*banktypes.MsgMultiSendResponse, error) {
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
	from, err := s.b.acc.AddressCodec().StringToBytes(msg.Inputs[0].Address)
	if err != nil {
		return nil, sdkerrors.ErrInvalidAddress.Wrapf("invalid input address: %s", err)
	}
	for _, out := range msg.Outputs {
		to, err := s.b.acc.AddressCodec().StringToBytes(out.Address)
		if err != nil {
			return nil, sdkerrors.ErrInvalidAddress.Wrapf("invalid output address: %s", err)
		}
		if s.b.base.BlockedAddr(to) {
			return nil, errorsmod.Wrapf(sdkerrors.ErrUnauthorized, "%s is not allowed to receive funds", out.Address)
		}
		if err := s.b.SendCoins(goCtx, from, to, out.Coins); err != nil {
			return nil, err
		}
	}
	return &banktypes.MsgMultiSendResponse{}, nil
}

// moveBankQueries is cosmos.bank.v1beta1.Query with balances and supply read from the Move
// coin stores, in x/bank's words for bad requests; the rest is x/bank's.
type moveBankQueries struct {
	banktypes.QueryServer
	b moveBank
}

func (q moveBankQueries) address(s string) (sdk.AccAddress, error) {
	a, err := q.b.acc.AddressCodec().StringToBytes(s)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "invalid address: %s", err.Error())
	}
	return a, nil
}

func (q moveBankQueries) Balance(ctx context.Context, req *banktypes.QueryBalanceRequest) (*banktypes.QueryBalanceResponse, error) {
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

func (q moveBankQueries) AllBalances(ctx context.Context, req *banktypes.QueryAllBalancesRequest) (*banktypes.QueryAllBalancesResponse, error) {
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

// Spendable balances are the balances: a Move coin store has no vesting lock.
func (q moveBankQueries) SpendableBalances(ctx context.Context, req *banktypes.QuerySpendableBalancesRequest) (*banktypes.QuerySpendableBalancesResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	res, err := q.AllBalances(ctx, &banktypes.QueryAllBalancesRequest{Address: req.Address, Pagination: req.Pagination})
	if err != nil {
		return nil, err
	}
	return &banktypes.QuerySpendableBalancesResponse{Balances: res.Balances, Pagination: res.Pagination}, nil
}

func (q moveBankQueries) SpendableBalanceByDenom(ctx context.Context, req *banktypes.QuerySpendableBalanceByDenomRequest) (*banktypes.QuerySpendableBalanceByDenomResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	res, err := q.Balance(ctx, &banktypes.QueryBalanceRequest{Address: req.Address, Denom: req.Denom})
	if err != nil {
		return nil, err
	}
	return &banktypes.QuerySpendableBalanceByDenomResponse{Balance: res.Balance}, nil
}

func (q moveBankQueries) TotalSupply(ctx context.Context, req *banktypes.QueryTotalSupplyRequest) (*banktypes.QueryTotalSupplyResponse, error) {
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

func (q moveBankQueries) SupplyOf(ctx context.Context, req *banktypes.QuerySupplyOfRequest) (*banktypes.QuerySupplyOfResponse, error) {
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
