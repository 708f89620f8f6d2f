package devnode

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	"cosmossdk.io/store/gaskv"
	"cosmossdk.io/store/prefix"
	storetypes "cosmossdk.io/store/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
)

// Store namespaces of the core modules. Executors name theirs after their module.
const (
	authModule = "acc"
	bankModule = "bank"
)

// Keys inside the auth and bank namespaces (the SDK's key prefixes).
var (
	nextAccountNumberKey = []byte{0x00}
	accountPrefix        = []byte{0x01}
	balancePrefix        = []byte{0x02}
)

// feeCollector is the fee collector module account's address.
var feeCollector = authtypes.NewModuleAddress(authtypes.FeeCollectorName)

// moduleStore opens a module's namespace of a store.
func moduleStore(parent storetypes.KVStore, module string) storetypes.KVStore {
	return prefix.NewStore(parent, []byte(module+"/"))
}

// gasStore charges the SDK's KV gas for every access to meter (nil: no charge).
func gasStore(kv storetypes.KVStore, meter storetypes.GasMeter) storetypes.KVStore {
	if meter == nil {
		return kv
	}
	return gaskv.NewStore(kv, meter, storetypes.KVGasConfig())
}

// coreStores are the auth and bank namespaces of one view of the state.
type coreStores struct{ auth, bank storetypes.KVStore }

func openCore(kv storetypes.KVStore, meter storetypes.GasMeter) coreStores {
	return coreStores{auth: gasStore(moduleStore(kv, authModule), meter), bank: gasStore(moduleStore(kv, bankModule), meter)}
}

// rootStore is the committed state. It records every write into a hash so the app hash after
// a block is sha256(previous app hash || the block's writes in order). Cache stores flush their
// writes sorted by key, so the same txs always give the same app hash.
type rootStore struct {
	storetypes.KVStore
	writes hash.Hash
	dirty  bool
}

func newRootStore(kv storetypes.KVStore) *rootStore {
	return &rootStore{KVStore: kv, writes: sha256.New()}
}

func (s *rootStore) record(op byte, key, value []byte) {
	var n [binary.MaxVarintLen64]byte
	s.writes.Write([]byte{op})
	s.writes.Write(n[:binary.PutUvarint(n[:], uint64(len(key)))])
	s.writes.Write(key)
	s.writes.Write(n[:binary.PutUvarint(n[:], uint64(len(value)))])
	s.writes.Write(value)
	s.dirty = true
}

// Set writes and records.
func (s *rootStore) Set(key, value []byte) {
	s.record(1, key, value)
	s.KVStore.Set(key, value)
}

// Delete removes and records.
func (s *rootStore) Delete(key []byte) {
	s.record(2, key, nil)
	s.KVStore.Delete(key)
}

// commit folds the recorded writes into the app hash.
func (s *rootStore) commit(prev []byte) []byte {
	h := sha256.New()
	h.Write(prev)
	h.Write(s.writes.Sum(nil))
	s.writes.Reset()
	s.dirty = false
	return h.Sum(nil)
}

// --- accounts ---

func accountKey(addr []byte) []byte { return append(bytes.Clone(accountPrefix), addr...) }

// getAccount loads an account or returns nil.
func (n *Node) getAccount(st coreStores, addr []byte) *authtypes.BaseAccount {
	bz := st.auth.Get(accountKey(addr))
	if bz == nil {
		return nil
	}
	var acc authtypes.BaseAccount
	if err := n.enc.Codec.Unmarshal(bz, &acc); err != nil {
		panic(errorsmod.Wrapf(sdkerrors.ErrLogic, "decode account %X: %v", addr, err))
	}
	return &acc
}

func (n *Node) setAccount(st coreStores, addr []byte, acc *authtypes.BaseAccount) {
	bz, err := n.enc.Codec.Marshal(acc)
	if err != nil {
		panic(errorsmod.Wrapf(sdkerrors.ErrLogic, "encode account: %v", err))
	}
	st.auth.Set(accountKey(addr), bz)
}

// newAccount creates (but does not store) an account with the next account number.
func (n *Node) newAccount(st coreStores, addr []byte) *authtypes.BaseAccount {
	var num uint64
	if bz := st.auth.Get(nextAccountNumberKey); bz != nil {
		num = binary.BigEndian.Uint64(bz)
	}
	st.auth.Set(nextAccountNumberKey, binary.BigEndian.AppendUint64(nil, num+1))
	return &authtypes.BaseAccount{Address: n.enc.MustAddr(addr), AccountNumber: num}
}

// ensureAccount returns the account at addr, creating it if needed.
func (n *Node) ensureAccount(st coreStores, addr []byte) *authtypes.BaseAccount {
	if acc := n.getAccount(st, addr); acc != nil {
		return acc
	}
	acc := n.newAccount(st, addr)
	n.setAccount(st, addr, acc)
	return acc
}

// --- balances ---

func balanceKey(addr []byte, denom string) []byte {
	k := append(bytes.Clone(balancePrefix), byte(len(addr)))
	k = append(k, addr...)
	return append(k, denom...)
}

func getBalance(st coreStores, addr []byte, denom string) sdkmath.Int {
	bz := st.bank.Get(balanceKey(addr, denom))
	if bz == nil {
		return sdkmath.ZeroInt()
	}
	var amt sdkmath.Int
	if err := amt.Unmarshal(bz); err != nil {
		panic(errorsmod.Wrapf(sdkerrors.ErrLogic, "decode balance: %v", err))
	}
	return amt
}

func setBalance(st coreStores, addr []byte, denom string, amt sdkmath.Int) {
	store := st.bank
	if amt.IsZero() {
		store.Delete(balanceKey(addr, denom))
		return
	}
	bz, err := amt.Marshal()
	if err != nil {
		panic(errorsmod.Wrapf(sdkerrors.ErrLogic, "encode balance: %v", err))
	}
	store.Set(balanceKey(addr, denom), bz)
}

// allBalances lists an address's coins sorted by denom.
func allBalances(st coreStores, addr []byte) sdk.Coins {
	start := balanceKey(addr, "")
	it := storetypes.KVStorePrefixIterator(st.bank, start)
	defer it.Close()
	var coins sdk.Coins
	for ; it.Valid(); it.Next() {
		var amt sdkmath.Int
		if err := amt.Unmarshal(it.Value()); err != nil {
			panic(errorsmod.Wrapf(sdkerrors.ErrLogic, "decode balance: %v", err))
		}
		coins = append(coins, sdk.NewCoin(string(it.Key()[len(start):]), amt))
	}
	return coins
}

// sendCoins moves coins like the SDK's bank keeper, emitting its events.
func (n *Node) sendCoins(st coreStores, em *sdk.EventManager, from, to []byte, coins sdk.Coins) error {
	for _, c := range coins {
		bal := getBalance(st, from, c.Denom)
		if bal.LT(c.Amount) {
			return errorsmod.Wrapf(sdkerrors.ErrInsufficientFunds, "spendable balance %s is smaller than %s", sdk.NewCoin(c.Denom, bal), c)
		}
		setBalance(st, from, c.Denom, bal.Sub(c.Amount))
	}
	fromStr, toStr := n.enc.MustAddr(from), n.enc.MustAddr(to)
	em.EmitEvent(sdk.NewEvent(banktypes.EventTypeCoinSpent,
		sdk.NewAttribute(banktypes.AttributeKeySpender, fromStr),
		sdk.NewAttribute(sdk.AttributeKeyAmount, coins.String())))
	for _, c := range coins {
		setBalance(st, to, c.Denom, getBalance(st, to, c.Denom).Add(c.Amount))
	}
	n.ensureAccount(st, to)
	em.EmitEvents(sdk.Events{
		sdk.NewEvent(banktypes.EventTypeCoinReceived,
			sdk.NewAttribute(banktypes.AttributeKeyReceiver, toStr),
			sdk.NewAttribute(sdk.AttributeKeyAmount, coins.String())),
		sdk.NewEvent(banktypes.EventTypeTransfer,
			sdk.NewAttribute(banktypes.AttributeKeyRecipient, toStr),
			sdk.NewAttribute(banktypes.AttributeKeySender, fromStr),
			sdk.NewAttribute(sdk.AttributeKeyAmount, coins.String())),
		sdk.NewEvent(sdk.EventTypeMessage, sdk.NewAttribute(banktypes.AttributeKeySender, fromStr)),
	})
	return nil
}
