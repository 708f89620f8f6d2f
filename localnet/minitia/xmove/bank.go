package xmove

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	storetypes "cosmossdk.io/store/types"
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

// TableEntry is the value (BCS) of the entry of table handle whose key's BCS is key, or
// false when there is none. Queries use it; it is not metered.
func (k *Keeper) TableEntry(ctx context.Context, handle movebcs.Address, key []byte) ([]byte, bool) {
	v := moveCtx{Context: sdk.UnwrapSDKContext(ctx), k: k}.Store().Get(movebcs.TableItemKey(handle, key))
	return v, v != nil
}

// WalkTable calls f with each entry of table handle in key order (the key's and the value's
// BCS) until f says stop. Queries use it; it is not metered. The entries are read and the
// iterator closed before f runs: f reads the store too, and a read made while an iterator of
// the committed tree is open can wait for ever behind a commit that waits for the iterator.
func (k *Keeper) WalkTable(ctx context.Context, handle movebcs.Address, f func(key, value []byte) (stop bool, err error)) error {
	store := moveCtx{Context: sdk.UnwrapSDKContext(ctx), k: k}.Store()
	prefix := movebcs.TableItemKey(handle, nil)
	type entry struct{ key, value []byte }
	var entries []entry
	it := store.Iterator(prefix, storetypes.PrefixEndBytes(prefix))
	for ; it.Valid(); it.Next() {
		entries = append(entries, entry{bytes.Clone(it.Key()[len(prefix):]), bytes.Clone(it.Value())})
	}
	if err := it.Close(); err != nil {
		return err
	}
	for _, e := range entries {
		stop, err := f(e.key, e.value)
		if err != nil || stop {
			return err
		}
	}
	return nil
}

// DenomOf names the coin whose fungible asset metadata is at metadata as x/move does: its
// symbol when metadata is the object 0x1 names by that symbol (a coin the bank issued), else
// "move/" and the address in hex. ok is false when no metadata is there.
func (k *Keeper) DenomOf(ctx context.Context, metadata movebcs.Address) (denom string, ok bool, err error) {
	raw, err := k.ResourceBytes(ctx, metadata, "0x1::fungible_asset::Metadata")
	if errors.Is(err, ErrNoResource) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	// Metadata begins with its name and its symbol, each a BCS string.
	r := movebcs.NewReader(raw)
	r.Str()
	symbol := r.Str()
	if r.Err() != nil {
		return "", false, fmt.Errorf("fungible asset metadata at %s: %w", metadata, r.Err())
	}
	if NamedObjectAddress(StdAddress, symbol) == metadata {
		return symbol, true, nil
	}
	return movePrefix + strings.TrimPrefix(metadata.String(), "0x"), true, nil
}
