package xevm

import (
	"fmt"
	"math"
	"math/big"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	storetypes "cosmossdk.io/store/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/vipharness/vipharness/contracts/evm/feetoken"
)

// The fee denom is an ERC-20, as on a minievm: its balances and supply are the token's
// storage, and the chain moves them by calling the token's sudo functions from the chain
// address. So a fee's payment, a bank send and an EVM value transfer leave the token's
// Transfer logs, and each costs the EVM gas it costs there:
//   - a Cosmos-side call (the bank's) is a whole EVM call, intrinsic gas included, on the
//     caller's meter, preceded (as every EVM call on a minievm is) by a decimals() read of the
//     fee token;
//   - inside the EVM, a balance read or change is a nested call with its own gas, which the
//     running call does not pay for.

var (
	// ChainAddress calls the fee token's sudo functions (minievm's StdAddress).
	ChainAddress = common.BytesToAddress([]byte{1})
	feeABI       = feetoken.ABI()
)

// Gas budgets as minievm's: a nested balance call inside the EVM, a Cosmos-side read on an
// unbounded meter, and a Cosmos-side transfer on an unbounded meter.
const (
	nestedCallGas = 100_000
	staticReadGas = 100_000
	chainWriteGas = 1_000_000
)

// feeTokenKey records a denom's ERC-20 where a minievm does (its
// ERC20ContractAddrsByDenomPrefix, then the denom), so a read costs what it costs there.
func feeTokenKey(denom string) []byte { return append([]byte{0x34}, denom...) }

// FeeToken is the fee denom's ERC-20, if the chain has made it (a read on ctx's gas, as a
// minievm's DenomToContractAddr).
func (k *Keeper) FeeToken(ctx sdk.Context) (common.Address, bool) {
	return FeeTokenIn(ctx.KVStore(k.key), k.denom)
}

// FeeTokenIn is denom's ERC-20 recorded in x/evm's store, if any.
func FeeTokenIn(store storetypes.KVStore, denom string) (common.Address, bool) {
	bz := store.Get(feeTokenKey(denom))
	if bz == nil {
		return common.Address{}, false
	}
	return common.BytesToAddress(bz), true
}

// InitFeeToken deploys the fee denom's ERC-20 from the chain address (at genesis, before any
// balance is minted) with the given decimals.
func (k *Keeper) InitFeeToken(ctx sdk.Context, decimals uint8) (common.Address, error) {
	if addr, ok := k.FeeToken(ctx); ok {
		return addr, nil
	}
	ctx = ctx.WithGasMeter(storetypes.NewInfiniteGasMeter())
	out, err := k.execute(ctx, ChainAddress, nil, feetoken.DeployInput(k.denom, k.denom, decimals), uint256.NewInt(0), nil, true)
	if err != nil {
		return common.Address{}, fmt.Errorf("xevm: deploy the fee token: %w", err)
	}
	ctx.KVStore(k.key).Set(feeTokenKey(k.denom), out.contract.Bytes())
	return out.contract, nil
}

type loadingDecimalsKey struct{}

// prepare makes the reads a minievm's CreateEVM makes before every EVM call, on ctx's gas:
// x/evm's params, the fee token, its decimals (an EVM call of its own, unless this call is
// that read) and the base fee.
func (k *Keeper) prepare(ctx sdk.Context) (token common.Address, hasToken bool, baseFee *big.Int, err error) {
	if _, err := k.Params(ctx); err != nil {
		return token, false, nil, err
	}
	token, hasToken = k.FeeToken(ctx)
	if hasToken && ctx.Value(loadingDecimalsKey{}) == nil {
		k.decimalsOf(ctx, token)
	}
	baseFee, err = k.baseFee(ctx)
	return token, hasToken, baseFee, err
}

// FeeDecimals is the fee token's decimals() as a minievm reads it for an Ethereum tx's fee
// check: its params, then the token (GetDecimals), each on ctx's gas (out of gas reads 0).
func (k *Keeper) FeeDecimals(ctx sdk.Context) uint8 {
	if _, err := k.Params(ctx); err != nil {
		return 0
	}
	token, ok := k.FeeToken(ctx)
	if !ok {
		return 0
	}
	return k.decimalsOf(ctx, token)
}

func (k *Keeper) decimalsOf(ctx sdk.Context, token common.Address) uint8 {
	ret, err := k.read(ctx.WithValue(loadingDecimalsKey{}, true), token, "decimals")
	if err != nil || len(ret) != 1 {
		return 0
	}
	d, _ := ret[0].(uint8)
	return d
}

// FeeBalance is addr's balance of the fee denom (zero when the read fails, as on a minievm).
func (k *Keeper) FeeBalance(ctx sdk.Context, addr sdk.AccAddress) sdkmath.Int {
	return k.tokenAmount(ctx, "balanceOf", common.BytesToAddress(addr))
}

// FeeSupply is the fee denom's total supply.
func (k *Keeper) FeeSupply(ctx sdk.Context) sdkmath.Int { return k.tokenAmount(ctx, "totalSupply") }

func (k *Keeper) tokenAmount(ctx sdk.Context, method string, args ...any) sdkmath.Int {
	token, ok := k.FeeToken(ctx)
	if !ok {
		return sdkmath.ZeroInt()
	}
	ret, err := k.read(ctx, token, method, args...)
	if err != nil || len(ret) != 1 {
		return sdkmath.ZeroInt()
	}
	v, ok := ret[0].(*big.Int)
	if !ok {
		return sdkmath.ZeroInt()
	}
	return sdkmath.NewIntFromBigInt(v)
}

// FeeTransfer moves amt of the fee denom (sudoTransfer).
func (k *Keeper) FeeTransfer(ctx sdk.Context, from, to sdk.AccAddress, amt sdkmath.Int) error {
	return k.sudo(ctx, "sudoTransfer", common.BytesToAddress(from), common.BytesToAddress(to), amt.BigInt())
}

// FeeMint issues amt of the fee denom to addr (sudoMint).
func (k *Keeper) FeeMint(ctx sdk.Context, to sdk.AccAddress, amt sdkmath.Int) error {
	return k.sudo(ctx, "sudoMint", common.BytesToAddress(to), amt.BigInt())
}

// read calls a view function of the token from the null address, keeping nothing, paid from
// ctx's meter (on an unbounded meter, from a bounded one of staticReadGas).
func (k *Keeper) read(ctx sdk.Context, token common.Address, method string, args ...any) ([]any, error) {
	input, err := feeABI.Pack(method, args...)
	if err != nil {
		return nil, err
	}
	var out outcome
	err = bounded(ctx, staticReadGas, "fee token "+method, func(ctx sdk.Context) error {
		var err error
		out, err = k.execute(ctx, common.Address{}, &token, input, uint256.NewInt(0), nil, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	return feeABI.Unpack(method, out.ret)
}

// sudo calls one of the token's sudo functions from the chain address and keeps its effect
// and events, paid from ctx's meter (on an unbounded one, from a bounded one of
// chainWriteGas).
func (k *Keeper) sudo(ctx sdk.Context, method string, args ...any) error {
	token, ok := k.FeeToken(ctx)
	if !ok {
		return errorsmod.Wrapf(ErrEVMCallFailed, "%s: the chain has no fee token", method)
	}
	input, err := feeABI.Pack(method, args...)
	if err != nil {
		return errorsmod.Wrapf(ErrEVMCallFailed, "%s: %v", method, err)
	}
	return bounded(ctx, chainWriteGas, "fee token "+method, func(ctx sdk.Context) error {
		out, err := k.execute(ctx, ChainAddress, &token, input, uint256.NewInt(0), nil, true)
		if err != nil {
			return err // minievm's words: a refusal is the token's revert
		}
		k.emit(ctx, "call", out)
		return nil
	})
}

// bounded runs f on ctx, or, when ctx's meter is unbounded, on a meter of limit whose use is
// then charged to ctx's, as minievm bounds its token calls; an out-of-gas panic is f's error.
func bounded(ctx sdk.Context, limit uint64, what string, f func(sdk.Context) error) (err error) {
	outer := ctx.GasMeter()
	if outer.Limit() != math.MaxUint64 {
		return f(ctx)
	}
	meter := storetypes.NewGasMeter(limit)
	defer func() {
		if r := recover(); r != nil {
			oog, ok := r.(storetypes.ErrorOutOfGas)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("%s: out of gas in %s", what, oog.Descriptor)
		}
		outer.ConsumeGas(meter.GasConsumedToLimit(), what)
	}()
	return f(ctx.WithGasMeter(meter))
}

// The EVM's own balances: nested calls into the token inside the running EVM, each with
// its own gas, as minievm's StateDB and block context make them.

func (s *stateDB) nested(from common.Address, method string, static bool, args ...any) []byte {
	input, err := feeABI.Pack(method, args...)
	if err != nil {
		panic(err)
	}
	budget := vm.NewGasBudget(nestedCallGas, 0)
	var ret []byte
	if static {
		ret, _, err = s.evm.StaticCall(from, s.feeToken, input, budget)
	} else {
		ret, _, err = s.evm.Call(from, s.feeToken, input, budget, uint256.NewInt(0))
	}
	if err != nil {
		panic(fmt.Sprintf("xevm: fee token %s: %v", method, err))
	}
	return ret
}

func (s *stateDB) GetBalance(addr common.Address) *uint256.Int {
	if !s.hasFeeToken {
		return uint256.NewInt(0)
	}
	ret := s.nested(common.Address{}, "balanceOf", true, addr)
	v, overflow := uint256.FromBig(new(big.Int).SetBytes(ret))
	if overflow || len(ret) != 32 {
		panic(fmt.Sprintf("xevm: fee token balance of %s: %x", addr, ret))
	}
	return v
}

// AddBalance mints (a self-destruct's beneficiary is credited before the burn).
func (s *stateDB) AddBalance(addr common.Address, amount *uint256.Int, _ tracing.BalanceChangeReason) uint256.Int {
	if amount.IsZero() {
		return uint256.Int{}
	}
	s.ensureAccount(addr)
	s.nested(ChainAddress, "sudoMint", false, addr, amount.ToBig())
	return uint256.Int{}
}

// SubBalance burns.
func (s *stateDB) SubBalance(addr common.Address, amount *uint256.Int, _ tracing.BalanceChangeReason) uint256.Int {
	if amount.IsZero() {
		return uint256.Int{}
	}
	s.nested(ChainAddress, "sudoBurn", false, addr, amount.ToBig())
	return uint256.Int{}
}

// canTransfer and transfer are the block context's: a value transfer is the sender's own
// ERC-20 transfer of the fee token.
func canTransfer(db vm.StateDB, addr common.Address, amount *uint256.Int) bool {
	return amount.IsZero() || db.GetBalance(addr).Cmp(amount) >= 0
}

func transfer(db vm.StateDB, from, to common.Address, amount *uint256.Int, _ *params.Rules) {
	if amount.IsZero() {
		return
	}
	s := db.(*stateDB)
	s.ensureAccount(to)
	s.nested(from, "transfer", false, to, amount.ToBig())
}
