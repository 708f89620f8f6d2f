package minitia

import (
	"math"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"

	"github.com/vipharness/vipharness/localnet/feeroutes"
)

// A rollup keeps opchild's params in its state, as a minitia's OPinit child module does: the
// minimum gas prices are consensus state there, and its fee checker reads them on every tx,
// delivered or checked (not simulated), which every tx's gas shows.
const opchildStoreKey = "opchild"

// opchildParamsKey is where opchild keeps its params (its ParamsKey).
var opchildParamsKey = []byte{0x11}

// genesisOpchildParams are the rollup's genesis params in opchild's encoding: opchild's
// defaults with the chain's minimum gas prices, what its REST route serves
// (feeroutes.NewParams).
func (a *App) genesisOpchildParams() ([]byte, error) {
	return feeroutes.NewParams(a.cfg.MinGasPrices()).Marshal()
}

// opchildParams are the params in ctx's state (the read a minitia's fee checker makes), or
// the genesis ones in a chain kept by an earlier version of the app before its first block
// under this one writes them (ensureOpchildParams).
func (a *App) opchildParams(ctx sdk.Context) ([]byte, error) {
	if b := ctx.KVStore(a.keys[opchildStoreKey]).Get(opchildParamsKey); b != nil {
		return b, nil
	}
	return a.genesisOpchildParams()
}

// initOpchildParams writes the rollup's genesis params.
func (a *App) initOpchildParams(ctx sdk.Context) error {
	b, err := a.genesisOpchildParams()
	if err != nil {
		return err
	}
	ctx.KVStore(a.keys[opchildStoreKey]).Set(opchildParamsKey, b)
	return nil
}

// ensureOpchildParams writes the genesis params into a chain kept by an earlier version of
// the app, which had no opchild store (addingStores adds it empty), before its first block.
func (a *App) ensureOpchildParams(ctx sdk.Context) error {
	if !a.rollup() || ctx.KVStore(a.keys[opchildStoreKey]).Has(opchildParamsKey) {
		return nil
	}
	return a.initOpchildParams(ctx)
}

// opchildFeeChecker is the SDK's fee check with the minimum gas prices read from opchild's
// params in state instead of the node's config: in CheckTx a fee below gas x price is
// refused in the SDK's words; the priority is the SDK's (the lowest gas price paid).
func (a *App) opchildFeeChecker(ctx sdk.Context, tx sdk.Tx) (sdk.Coins, int64, error) {
	feeTx, ok := tx.(sdk.FeeTx)
	if !ok {
		return nil, 0, errorsmod.Wrap(sdkerrors.ErrTxDecode, "tx must be a FeeTx")
	}
	b, err := a.opchildParams(ctx)
	if err != nil {
		return nil, 0, err
	}
	params, err := feeroutes.UnmarshalParams(b)
	if err != nil {
		return nil, 0, err
	}
	fee, gas := feeTx.GetFee(), feeTx.GetGas()
	if ctx.IsCheckTx() && !params.MinGasPrices.IsZero() {
		required := make(sdk.Coins, len(params.MinGasPrices))
		limit := sdkmath.LegacyNewDec(int64(gas))
		for i, p := range params.MinGasPrices {
			required[i] = sdk.NewCoin(p.Denom, p.Amount.Mul(limit).Ceil().RoundInt())
		}
		if !fee.IsAnyGTE(required) {
			return nil, 0, errorsmod.Wrapf(sdkerrors.ErrInsufficientFee, "insufficient fees; got: %s required: %s", fee, required)
		}
	}
	return fee, txPriority(fee, gas), nil
}

// txPriority is the lowest gas price a fee pays, the SDK's priority for a fee tx (its
// unexported getTxPriority, to the letter).
func txPriority(fee sdk.Coins, gas uint64) int64 {
	if gas == 0 {
		return 0
	}
	var priority int64
	for _, c := range fee {
		p := int64(math.MaxInt64)
		if q := c.Amount.QuoRaw(int64(gas)); q.IsInt64() {
			p = q.Int64()
		}
		if priority == 0 || p < priority {
			priority = p
		}
	}
	return priority
}
