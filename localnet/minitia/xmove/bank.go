package xmove

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// What a Move-backed bank asks of x/move: entry functions run for it under the framework's
// address, and resources read from the VM's store.

// ExecuteAs runs fn signed by senders (the bank signs as 0x1 beside the coins' owner), as
// x/move runs the bank's transfers and mints: VM gas on the tx's meter, the "execute" event
// and the Move events, the accounts the VM made written.
func (k *Keeper) ExecuteAs(ctx context.Context, senders []movebcs.Address, fn movevm.Function) error {
	return k.exec.executeAs(moveCtx{Context: sdk.UnwrapSDKContext(ctx), k: k}, senders, fn)
}

// HasResource reports whether addr holds a resource of structTag, read through the tx's
// gas meter, as x/move's HasResource reads it.
func (k *Keeper) HasResource(ctx context.Context, addr movebcs.Address, structTag string) (bool, error) {
	tag, err := k.exec.rt.StructTagKey(structTag)
	if err != nil {
		return false, fmt.Errorf("struct tag %s: %w", structTag, err)
	}
	return sdk.UnwrapSDKContext(ctx).KVStore(k.key).Has(movebcs.ResourceKey(addr, tag)), nil
}

// ErrNoResource is ResourceBytes' answer for a resource that is not there.
var ErrNoResource = errors.New("no such resource")

// ResourceBytes is addr's resource of structTag as stored (BCS), or ErrNoResource. Queries
// use it; it is not metered.
func (k *Keeper) ResourceBytes(ctx context.Context, addr movebcs.Address, structTag string) ([]byte, error) {
	tag, err := k.exec.rt.StructTagKey(structTag)
	if err != nil {
		return nil, fmt.Errorf("struct tag %s: %w", structTag, err)
	}
	raw := moveCtx{Context: sdk.UnwrapSDKContext(ctx), k: k}.Store().Get(movebcs.ResourceKey(addr, tag))
	if raw == nil {
		return nil, ErrNoResource
	}
	return raw, nil
}
