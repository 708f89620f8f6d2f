package minitia

import (
	"context"
	"fmt"
	"slices"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	storetypes "cosmossdk.io/store/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/vipharness/vipharness/localnet/minitia/xevm"
)

// evmBank is a minievm's bank: the fee denom is an ERC-20 that x/evm deploys at genesis, so
// its balances and supply are the token's storage and a send is the token's sudoTransfer,
// an EVM call with its gas and Transfer log. The other denoms stay x/bank's here (a minievm
// makes every denom an ERC-20; only the fee denom is used on a VIP rollup's path).
type evmBank struct {
	sdkKeepers
	evm      *xevm.Keeper
	feeDenom string
}

var _ vmBank = evmBank{}

// split separates the fee denom's amount from the other coins.
func (b evmBank) split(amt sdk.Coins) (sdkmath.Int, sdk.Coins) {
	fee := amt.AmountOf(b.feeDenom)
	return fee, slices.DeleteFunc(slices.Clone(amt), func(c sdk.Coin) bool { return c.Denom == b.feeDenom })
}

// SendCoins moves the fee denom through the token and the rest through x/bank, with the
// bank's events, creating the recipient's account as a minievm's store registration does.
func (b evmBank) SendCoins(ctx context.Context, from, to sdk.AccAddress, amt sdk.Coins) error {
	fee, rest := b.split(amt)
	if !rest.IsZero() {
		if err := b.base.SendCoins(ctx, from, to, rest); err != nil {
			return err
		}
	}
	if !fee.IsPositive() {
		return nil
	}
	sctx := sdk.UnwrapSDKContext(ctx)
	if !b.acc.HasAccount(ctx, to) {
		b.acc.SetAccount(ctx, b.acc.NewAccountWithAddress(ctx, to))
	}
	if err := b.evm.FeeTransfer(sctx, from, to, fee); err != nil {
		return err
	}
	emitSend(ctx, from, to, sdk.NewCoins(sdk.NewCoin(b.feeDenom, fee)))
	return nil
}

// SendCoinsFromAccountToModule pays a module account (the fee collector, for fees).
func (b evmBank) SendCoinsFromAccountToModule(ctx context.Context, from sdk.AccAddress, module string, amt sdk.Coins) error {
	return b.SendCoins(ctx, from, b.moduleAddress(ctx, module), amt)
}

// mint issues the fee denom through the token, and the rest through x/evm's module account.
func (b evmBank) mint(ctx context.Context, addr sdk.AccAddress, coins sdk.Coins) error {
	fee, rest := b.split(coins)
	if fee.IsPositive() {
		if err := b.evm.FeeMint(sdk.UnwrapSDKContext(ctx), addr, fee); err != nil {
			return fmt.Errorf("mint %s%s to %s: %w", fee, b.feeDenom, addr, err)
		}
	}
	if rest.IsZero() {
		return nil
	}
	if err := b.base.MintCoins(ctx, xevm.ModuleName, rest); err != nil {
		return err
	}
	return b.base.SendCoinsFromModuleToAccount(ctx, xevm.ModuleName, addr, rest)
}

func (b evmBank) balance(ctx context.Context, addr sdk.AccAddress, denom string) (sdkmath.Int, error) {
	if denom == b.feeDenom {
		return b.evm.FeeBalance(sdk.UnwrapSDKContext(ctx), addr), nil
	}
	return b.base.GetBalance(ctx, addr, denom).Amount, nil
}

func (b evmBank) held(ctx context.Context, addr sdk.AccAddress) ([]tableCoin, error) {
	coins := b.base.GetAllBalances(ctx, addr)
	if fee := b.evm.FeeBalance(sdk.UnwrapSDKContext(ctx), addr); fee.IsPositive() {
		coins = coins.Add(sdk.NewCoin(b.feeDenom, fee))
	}
	return listed(coins), nil
}

func (b evmBank) issued(ctx context.Context) ([]tableCoin, error) {
	var coins sdk.Coins
	b.base.IterateTotalSupply(ctx, func(c sdk.Coin) bool {
		coins = append(coins, c)
		return false
	})
	if fee := b.evm.FeeSupply(sdk.UnwrapSDKContext(ctx)); fee.IsPositive() {
		coins = coins.Add(sdk.NewCoin(b.feeDenom, fee))
	}
	return listed(coins.Sort()), nil
}

// supply refuses a denom no coin of the chain has ever had, in minievm's words: a minievm
// keeps each denom's supply in the denom's ERC-20, so a denom with none is a store miss.
func (b evmBank) supply(ctx context.Context, denom string) (sdkmath.Int, error) {
	if denom == b.feeDenom {
		return b.evm.FeeSupply(sdk.UnwrapSDKContext(ctx)), nil
	}
	if n := b.base.GetSupply(ctx, denom).Amount; n.IsPositive() {
		return n, nil
	}
	return sdkmath.Int{}, fmt.Errorf("collections: not found: key '%s' of type bytes", denom)
}

// listed is coins as the entries of a table keyed by denom.
func listed(coins sdk.Coins) []tableCoin {
	out := make([]tableCoin, len(coins))
	for i, c := range coins {
		out[i] = tableCoin{key: []byte(c.Denom), coin: c, listed: true}
	}
	return out
}

// gasFreeFee runs the SDK's fee deduction on a meter of its own when the fee is in the fee
// denom alone, as minievm's GasFreeFeeDecorator does: the token transfer that pays it is not
// charged to the tx.
type gasFreeFee struct {
	inner    sdk.AnteDecorator
	feeDenom string
}

// feeDeductionGas is the meter minievm gives a fee's payment.
const feeDeductionGas = 1_000_000

func (d gasFreeFee) AnteHandle(ctx sdk.Context, tx sdk.Tx, simulate bool, next sdk.AnteHandler) (sdk.Context, error) {
	feeTx, ok := tx.(sdk.FeeTx)
	if !ok {
		return ctx, errorsmod.Wrap(sdkerrors.ErrTxDecode, "Tx must be a FeeTx")
	}
	fees := feeTx.GetFee()
	if len(fees) != 1 || fees[0].Denom != d.feeDenom {
		return d.inner.AnteHandle(ctx, tx, simulate, next)
	}
	meter := ctx.GasMeter()
	ctx, err := d.inner.AnteHandle(ctx.WithGasMeter(storetypes.NewGasMeter(feeDeductionGas)), tx, simulate,
		func(ctx sdk.Context, _ sdk.Tx, _ bool) (sdk.Context, error) { return ctx, nil })
	ctx = ctx.WithGasMeter(meter)
	if err != nil {
		return ctx, err
	}
	return next(ctx, tx, simulate)
}

// gasRefund returns part of an Ethereum tx's unused gas to its payer once it succeeds, as
// minievm's GasRefundDecorator does: its share (x/evm's gas_refund_ratio, 0.5 by default) of
// the gas left, at the prices the ante handler kept (xevm.GasPricesDecorator), from the fee
// collector, on a meter of its own.
type gasRefund struct {
	bank evmBank
}

const gasRefundGas = 1_000_000

func (d gasRefund) PostHandle(ctx sdk.Context, tx sdk.Tx, simulate, success bool, next sdk.PostHandler) (sdk.Context, error) {
	if !success || ctx.ExecMode() != sdk.ExecModeFinalize || !xevm.IsEthereumTx(ctx) {
		return next(ctx, tx, simulate, success)
	}
	feeTx, ok := tx.(sdk.FeeTx)
	if !ok {
		return ctx, errorsmod.Wrap(sdkerrors.ErrTxDecode, "Tx must be a FeeTx")
	}
	prices, ok := xevm.GasPrices(ctx)
	if !ok {
		return next(ctx, tx, simulate, success)
	}
	params, err := d.bank.evm.Params(ctx) // the refund ratio, read on the tx's gas as there
	if err != nil {
		return ctx, err
	}
	left := ctx.GasMeter().Limit() - ctx.GasMeter().GasConsumedToLimit()
	refundGas := params.GasRefundRatio.MulInt64(int64(left)).TruncateInt().Uint64()
	coins, _ := prices.MulDec(sdkmath.LegacyNewDecFromInt(sdkmath.NewIntFromUint64(refundGas))).TruncateDecimal()
	if coins.IsZero() {
		return next(ctx, tx, simulate, success)
	}
	payer := feeTx.FeePayer()
	if granter := feeTx.FeeGranter(); granter != nil {
		payer = granter
	}
	ctx.EventManager().EmitEvent(sdk.NewEvent("gas_refund",
		sdk.NewAttribute("gas", fmt.Sprint(refundGas)), sdk.NewAttribute("coins", coins.String())))
	d.refund(ctx, payer, coins)
	return next(ctx, tx, simulate, success)
}

// refund pays back from the fee collector; like minievm's, a refund that fails is dropped,
// not the tx.
func (d gasRefund) refund(ctx sdk.Context, payer sdk.AccAddress, coins sdk.Coins) {
	cache, write := ctx.CacheContext()
	cache = cache.WithGasMeter(storetypes.NewGasMeter(gasRefundGas))
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(storetypes.ErrorOutOfGas); !ok {
				panic(r)
			}
		}
	}()
	if err := d.bank.SendCoins(cache, authtypes.NewModuleAddress(authtypes.FeeCollectorName), payer, coins); err != nil {
		return
	}
	write()
}
