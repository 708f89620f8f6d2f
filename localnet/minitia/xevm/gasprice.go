package xevm

import (
	"math/big"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
)

// A minievm's EVM sees two prices: GASPRICE is the price the tx pays (its fee over its gas,
// kept in the context by the ante handler), BASEFEE the chain's minimum gas price of the fee
// denom (opchild's params, read for every EVM call). Both are whole wei: the fee denom has
// 18 decimals, and a minievm truncates.

type gasPricesKey struct{}

// GasPricesDecorator is minievm's: a delivered or checked tx with no gas is refused in its
// words, and the tx's gas prices (fee / gas) are left in the context.
type GasPricesDecorator struct{}

// AnteHandle implements sdk.AnteDecorator.
func (GasPricesDecorator) AnteHandle(ctx sdk.Context, tx sdk.Tx, simulate bool, next sdk.AnteHandler) (sdk.Context, error) {
	feeTx, ok := tx.(sdk.FeeTx)
	if !ok {
		return ctx, errorsmod.Wrap(sdkerrors.ErrTxDecode, "Tx must be a FeeTx")
	}
	if !simulate {
		gas := feeTx.GetGas()
		if gas == 0 {
			return ctx, errorsmod.Wrap(sdkerrors.ErrOutOfGas, "Transaction gas cannot be zero.")
		}
		prices := sdk.NewDecCoinsFromCoins(feeTx.GetFee()...).QuoDecTruncate(sdkmath.LegacyNewDec(int64(gas)))
		ctx = ctx.WithValue(gasPricesKey{}, prices)
	}
	return next(ctx, tx, simulate)
}

// GasPrices are the tx's gas prices a GasPricesDecorator left in ctx (none in a simulation
// or a query).
func GasPrices(ctx sdk.Context) (sdk.DecCoins, bool) {
	p, ok := ctx.Value(gasPricesKey{}).(sdk.DecCoins)
	return p, ok
}

// MinGasPrice reads the chain's minimum gas price of the fee denom (on ctx's gas).
type MinGasPrice func(ctx sdk.Context) (sdkmath.LegacyDec, error)

// txGasPrice is GASPRICE: the fee denom's price the tx pays, in whole wei.
func (k *Keeper) txGasPrice(ctx sdk.Context) *big.Int {
	p, ok := GasPrices(ctx)
	if !ok {
		return new(big.Int)
	}
	return wei(p.AmountOf(k.denom))
}

// baseFee is BASEFEE: the chain's minimum gas price, in whole wei (0 without a reader).
func (k *Keeper) baseFee(ctx sdk.Context) (*big.Int, error) {
	if k.minGasPrice == nil {
		return new(big.Int), nil
	}
	p, err := k.minGasPrice(ctx)
	if err != nil {
		return nil, err
	}
	return wei(p), nil
}

func wei(d sdkmath.LegacyDec) *big.Int {
	if !d.IsPositive() {
		return new(big.Int)
	}
	return d.TruncateInt().BigInt()
}
