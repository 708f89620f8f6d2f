package minitia

import (
	"encoding/binary"
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

// Where opchild keeps its params (its ParamsKey), its bridge info (BridgeInfoKey) and the
// next L1 sequence (NextL1SequenceKey, a collections sequence: uint64 big-endian).
var (
	opchildParamsKey         = []byte{0x11}
	opchildBridgeInfoKey     = []byte{0x13}
	opchildNextL1SequenceKey = []byte{0x14}
)

// opchildGenesis is the opchild state a rollup's genesis carries (under "opchild"): the
// bridge it is registered under, in opchild's encoding, and its bridge executor.
type opchildGenesis struct {
	BridgeInfo []byte `json:"bridge_info,omitempty"`
	Executor   string `json:"executor,omitempty"`
}

// genesisOpchildParams are the rollup's genesis params in opchild's encoding: opchild's
// defaults with the chain's minimum gas prices (feeroutes.NewParams), and a bridged
// rollup's executor as its bridge executor and admin.
func (a *App) genesisOpchildParams(executor string) ([]byte, error) {
	p := feeroutes.NewParams(a.cfg.MinGasPrices())
	if executor != "" {
		p.BridgeExecutors, p.Admin = []string{executor}, executor
	}
	return p.Marshal()
}

// opchildParams are the params in ctx's state (the read a minitia's fee checker makes), or
// the genesis ones in a chain kept by an earlier version of the app before its first block
// under this one writes them (ensureOpchild).
func (a *App) opchildParams(ctx sdk.Context) ([]byte, error) {
	if b := ctx.KVStore(a.keys[opchildStoreKey]).Get(opchildParamsKey); b != nil {
		return b, nil
	}
	return a.genesisOpchildParams("")
}

// minGasPrice is the fee denom's minimum gas price in opchild's params in ctx's state (the
// read a minievm's x/evm makes for its base fee).
func (a *App) minGasPrice(ctx sdk.Context) (sdkmath.LegacyDec, error) {
	b, err := a.opchildParams(ctx)
	if err != nil {
		return sdkmath.LegacyDec{}, err
	}
	params, err := feeroutes.UnmarshalParams(b)
	if err != nil {
		return sdkmath.LegacyDec{}, err
	}
	return params.MinGasPrices.AmountOf(a.cfg.FeeDenom), nil
}

// initOpchild writes opchild's genesis state that the rollup keeps: its params and the
// next L1 sequence (opchild's start: no deposit has come, the rollup has no bridge), each
// unless present, so that a chain kept by an earlier version of the app (whose opchild
// store addingStores adds empty, or which kept only the params) gains them before its
// first block under this one.
func (a *App) initOpchild(ctx sdk.Context, gen opchildGenesis) error {
	store := ctx.KVStore(a.keys[opchildStoreKey])
	if !store.Has(opchildParamsKey) {
		b, err := a.genesisOpchildParams(gen.Executor)
		if err != nil {
			return err
		}
		store.Set(opchildParamsKey, b)
	}
	if len(gen.BridgeInfo) > 0 {
		store.Set(opchildBridgeInfoKey, gen.BridgeInfo)
	}
	if !store.Has(opchildNextL1SequenceKey) {
		store.Set(opchildNextL1SequenceKey, binary.BigEndian.AppendUint64(nil, feeroutes.L1SequenceStart))
	}
	return nil
}

// ensureOpchild runs initOpchild on a rollup before each block.
func (a *App) ensureOpchild(ctx sdk.Context) error {
	if !a.rollup() {
		return nil
	}
	return a.initOpchild(ctx, opchildGenesis{})
}

// bridgeInfo is opchild's bridge info in ctx's state, in its encoding (nil: no bridge).
func (a *App) bridgeInfo(ctx sdk.Context) []byte {
	return ctx.KVStore(a.keys[opchildStoreKey]).Get(opchildBridgeInfoKey)
}

// nextL1Sequence is opchild's next L1 sequence in ctx's state (its start before a kept
// chain's first block under this app writes it).
func (a *App) nextL1Sequence(ctx sdk.Context) uint64 {
	if b := ctx.KVStore(a.keys[opchildStoreKey]).Get(opchildNextL1SequenceKey); len(b) == 8 {
		return binary.BigEndian.Uint64(b)
	}
	return feeroutes.L1SequenceStart
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
