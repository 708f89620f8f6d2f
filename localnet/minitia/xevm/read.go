package xevm

import (
	storetypes "cosmossdk.io/store/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// What the chain's Ethereum face reads of a state (a query context at some height).

// Balance is addr's balance of the fee denom, in wei.
func (k *Keeper) Balance(ctx sdk.Context, addr common.Address) *uint256.Int {
	v, _ := uint256.FromBig(k.FeeBalance(ctx.WithGasMeter(storetypes.NewInfiniteGasMeter()), addr.Bytes()).BigInt())
	return v
}

// HasAccount reports whether addr has an account.
func (k *Keeper) HasAccount(ctx sdk.Context, addr common.Address) bool {
	return k.accounts.GetAccount(ctx, sdk.AccAddress(addr.Bytes())) != nil
}

// Nonce is addr's nonce: its account's sequence.
func (k *Keeper) Nonce(ctx sdk.Context, addr common.Address) uint64 {
	return newStateDB(k, ctx).GetNonce(addr)
}

// Code is the code deployed at addr.
func (k *Keeper) Code(ctx sdk.Context, addr common.Address) []byte {
	return newStateDB(k, ctx).GetCode(addr)
}

// StorageAt is one storage slot of addr.
func (k *Keeper) StorageAt(ctx sdk.Context, addr common.Address, slot common.Hash) common.Hash {
	return newStateDB(k, ctx).GetState(addr, slot)
}

// Call runs a call (to nil: a create) against ctx's state with gas, keeping nothing, and
// returns what it returned and the EVM gas it used.
func (k *Keeper) Call(ctx sdk.Context, from common.Address, to *common.Address, input []byte, value *uint256.Int,
	list types.AccessList, gas uint64) ([]byte, uint64, error) {
	ctx, _ = ctx.CacheContext()
	ctx = ctx.WithGasMeter(storetypes.NewGasMeter(gas))
	out, err := k.execute(ctx, from, to, input, value, list, false)
	return out.ret, out.gasUsed, err
}
