package minitia

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"

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
var _ vmBank = moveBank{}

type moveBank struct {
	sdkKeepers
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
	if !b.acc.HasAccount(ctx, to) {
		b.acc.SetAccount(ctx, b.acc.NewAccountWithAddress(ctx, to))
	}
	emitSend(ctx, from, to, amt)
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
	return b.SendCoins(ctx, from, b.moduleAddress(ctx, module), amt)
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
