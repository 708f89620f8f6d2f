package xevm

import (
	"bytes"
	"fmt"

	storetypes "cosmossdk.io/store/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// stateDB is the EVM's view of the chain during one message, kept as minievm keeps it:
// nonces are x/auth sequences, balances the fee denom's in x/bank, code and storage the
// module's store. Each snapshot is a cache context over the one below it, so a revert drops
// exactly the writes made since; what is not in a store (refund, logs, access list, transient
// storage) is undone by a journal.
type stateDB struct {
	k *Keeper
	// evm runs the nested calls into the fee token that balances are.
	evm         *vm.EVM
	feeToken    common.Address
	hasFeeToken bool
	// layers[0] is the message's context (what the tx had before the EVM ran: the committed
	// state of EIP-2200); layers[1] is the execution's first cache; each snapshot adds one.
	layers []layer
	undo   []func()
	snaps  []snapshot

	refund      uint64
	logs        []*types.Log
	txHash      common.Hash
	txIndex     int
	transient   map[common.Address]map[common.Hash]common.Hash
	accessAddrs map[common.Address]bool
	accessSlots map[common.Address]map[common.Hash]bool
	created     map[common.Address]bool
	destructed  map[common.Address]bool
}

type layer struct {
	ctx   sdk.Context
	write func()
}

type snapshot struct{ layers, undo int }

var _ vm.StateDB = (*stateDB)(nil)

func newStateDB(k *Keeper, ctx sdk.Context) *stateDB {
	// State reads and writes are paid for in EVM gas, as on minievm: the SDK meter is charged
	// the EVM's figure once the call ends.
	base := ctx.WithGasMeter(storetypes.NewInfiniteGasMeter())
	cc, write := base.CacheContext()
	return &stateDB{k: k, layers: []layer{{ctx: base}, {ctx: cc, write: write}},
		transient: map[common.Address]map[common.Hash]common.Hash{}, accessAddrs: map[common.Address]bool{},
		accessSlots: map[common.Address]map[common.Hash]bool{}, created: map[common.Address]bool{}, destructed: map[common.Address]bool{}}
}

func (s *stateDB) ctx() sdk.Context { return s.layers[len(s.layers)-1].ctx }

func (s *stateDB) store() storetypes.KVStore { return s.ctx().KVStore(s.k.key) }

// commit removes what self-destructed, then writes every layer down into the message's context.
func (s *stateDB) commit() {
	for addr := range s.destructed {
		s.destroy(addr)
	}
	for i := len(s.layers) - 1; i >= 1; i-- {
		s.layers[i].write()
	}
	s.layers = s.layers[:1]
}

func (s *stateDB) Snapshot() int {
	s.snaps = append(s.snaps, snapshot{layers: len(s.layers), undo: len(s.undo)})
	cc, write := s.ctx().CacheContext()
	s.layers = append(s.layers, layer{ctx: cc, write: write})
	return len(s.snaps) - 1
}

func (s *stateDB) RevertToSnapshot(id int) {
	if id < 0 || id >= len(s.snaps) {
		panic(fmt.Sprintf("xevm: revert to unknown snapshot %d", id))
	}
	snap := s.snaps[id]
	s.layers = s.layers[:snap.layers]
	for i := len(s.undo) - 1; i >= snap.undo; i-- {
		s.undo[i]()
	}
	s.undo = s.undo[:snap.undo]
	s.snaps = s.snaps[:id]
}

// Accounts.

func (s *stateDB) account(addr common.Address) sdk.AccountI {
	return s.k.accounts.GetAccount(s.ctx(), sdk.AccAddress(addr.Bytes()))
}

func (s *stateDB) ensureAccount(addr common.Address) sdk.AccountI {
	if acc := s.account(addr); acc != nil {
		return acc
	}
	acc := s.k.accounts.NewAccountWithAddress(s.ctx(), sdk.AccAddress(addr.Bytes()))
	s.k.accounts.SetAccount(s.ctx(), acc)
	return acc
}

func (s *stateDB) CreateAccount(addr common.Address) { s.ensureAccount(addr) }

func (s *stateDB) CreateContract(addr common.Address) {
	s.ensureAccount(addr)
	if !s.created[addr] {
		s.created[addr] = true
		s.undo = append(s.undo, func() { delete(s.created, addr) })
	}
}

func (s *stateDB) IsNewContract(addr common.Address) bool { return s.created[addr] }

func (s *stateDB) Exist(addr common.Address) bool {
	return s.destructed[addr] || s.account(addr) != nil
}

func (s *stateDB) Empty(addr common.Address) bool {
	h := s.GetCodeHash(addr)
	return s.GetNonce(addr) == 0 && s.GetBalance(addr).IsZero() && (h == common.Hash{} || h == types.EmptyCodeHash)
}

func (s *stateDB) Touch(common.Address) {}

func (s *stateDB) GetNonce(addr common.Address) uint64 {
	if acc := s.account(addr); acc != nil {
		return acc.GetSequence()
	}
	return 0
}

func (s *stateDB) SetNonce(addr common.Address, nonce uint64, _ tracing.NonceChangeReason) {
	acc := s.ensureAccount(addr)
	if err := acc.SetSequence(nonce); err != nil {
		panic(err)
	}
	s.k.accounts.SetAccount(s.ctx(), acc)
}

// Code.

func (s *stateDB) GetCode(addr common.Address) []byte { return s.store().Get(codeKey(addr)) }

func (s *stateDB) GetCodeSize(addr common.Address) int { return len(s.GetCode(addr)) }

func (s *stateDB) GetCodeHash(addr common.Address) common.Hash {
	if h := s.store().Get(codeHashKey(addr)); h != nil {
		return common.BytesToHash(h)
	}
	if s.account(addr) == nil {
		return common.Hash{}
	}
	return types.EmptyCodeHash
}

func (s *stateDB) SetCode(addr common.Address, code []byte, _ tracing.CodeChangeReason) []byte {
	prev := s.GetCode(addr)
	s.ensureAccount(addr)
	st := s.store()
	if len(code) == 0 {
		st.Delete(codeKey(addr))
		st.Delete(codeHashKey(addr))
		return prev
	}
	st.Set(codeKey(addr), bytes.Clone(code))
	st.Set(codeHashKey(addr), crypto.Keccak256(code))
	return prev
}

// Storage.

func (s *stateDB) GetState(addr common.Address, slot common.Hash) common.Hash {
	return common.BytesToHash(s.store().Get(stateKey(addr, slot)))
}

func (s *stateDB) GetStateAndCommittedState(addr common.Address, slot common.Hash) (common.Hash, common.Hash) {
	committed := common.BytesToHash(s.layers[0].ctx.KVStore(s.k.key).Get(stateKey(addr, slot)))
	return s.GetState(addr, slot), committed
}

func (s *stateDB) SetState(addr common.Address, slot, value common.Hash) common.Hash {
	prev := s.GetState(addr, slot)
	if value == (common.Hash{}) {
		s.store().Delete(stateKey(addr, slot))
	} else {
		s.store().Set(stateKey(addr, slot), value.Bytes())
	}
	return prev
}

func (s *stateDB) GetTransientState(addr common.Address, key common.Hash) common.Hash {
	return s.transient[addr][key]
}

func (s *stateDB) SetTransientState(addr common.Address, key, value common.Hash) {
	prev, had := s.transient[addr][key]
	s.setTransient(addr, key, value)
	s.undo = append(s.undo, func() {
		if had {
			s.setTransient(addr, key, prev)
		} else {
			delete(s.transient[addr], key)
		}
	})
}

func (s *stateDB) setTransient(addr common.Address, key, value common.Hash) {
	if s.transient[addr] == nil {
		s.transient[addr] = map[common.Hash]common.Hash{}
	}
	s.transient[addr][key] = value
}

// Self-destruct (EIP-6780: only a contract made in the same tx is removed, at the end).

func (s *stateDB) SelfDestruct(addr common.Address) {
	if !s.destructed[addr] {
		s.destructed[addr] = true
		s.undo = append(s.undo, func() { delete(s.destructed, addr) })
	}
}

func (s *stateDB) HasSelfDestructed(addr common.Address) bool { return s.destructed[addr] }

func (s *stateDB) destroy(addr common.Address) {
	st := s.store()
	st.Delete(codeKey(addr))
	st.Delete(codeHashKey(addr))
	it := storetypes.KVStorePrefixIterator(st, stateKeyPrefix(addr))
	var keys [][]byte
	for ; it.Valid(); it.Next() {
		keys = append(keys, bytes.Clone(it.Key()))
	}
	_ = it.Close()
	for _, key := range keys {
		st.Delete(key)
	}
	if acc := s.account(addr); acc != nil {
		s.k.accounts.RemoveAccount(s.ctx(), acc)
	}
}

// Refunds and logs.

func (s *stateDB) AddRefund(gas uint64) {
	prev := s.refund
	s.refund += gas
	s.undo = append(s.undo, func() { s.refund = prev })
}

func (s *stateDB) SubRefund(gas uint64) {
	if gas > s.refund {
		panic(fmt.Sprintf("xevm: refund below zero (%d - %d)", s.refund, gas))
	}
	prev := s.refund
	s.refund -= gas
	s.undo = append(s.undo, func() { s.refund = prev })
}

func (s *stateDB) GetRefund() uint64 { return s.refund }

func (s *stateDB) AddLog(l *types.Log) {
	l.TxHash, l.TxIndex, l.Index = s.txHash, uint(s.txIndex), uint(len(s.logs))
	s.logs = append(s.logs, l)
	s.undo = append(s.undo, func() { s.logs = s.logs[:len(s.logs)-1] })
}

func (s *stateDB) AddPreimage(common.Hash, []byte) {}

// Access lists (EIP-2929, EIP-2930).

func (s *stateDB) AddressInAccessList(addr common.Address) bool { return s.accessAddrs[addr] }

func (s *stateDB) SlotInAccessList(addr common.Address, slot common.Hash) (bool, bool) {
	return s.accessAddrs[addr], s.accessSlots[addr][slot]
}

func (s *stateDB) AddAddressToAccessList(addr common.Address) {
	if !s.accessAddrs[addr] {
		s.accessAddrs[addr] = true
		s.undo = append(s.undo, func() { delete(s.accessAddrs, addr) })
	}
}

func (s *stateDB) AddSlotToAccessList(addr common.Address, slot common.Hash) {
	s.AddAddressToAccessList(addr)
	if s.accessSlots[addr][slot] {
		return
	}
	if s.accessSlots[addr] == nil {
		s.accessSlots[addr] = map[common.Hash]bool{}
	}
	s.accessSlots[addr][slot] = true
	s.undo = append(s.undo, func() { delete(s.accessSlots[addr], slot) })
}

// Prepare starts a tx as go-ethereum's state does: a fresh access list holding the sender,
// the destination, the precompiles, the tx's own list and (from Shanghai) the coinbase, and
// empty transient storage.
func (s *stateDB) Prepare(rules params.Rules, sender, coinbase common.Address, dest *common.Address, precompiles []common.Address, list types.AccessList) {
	if rules.IsBerlin {
		s.accessAddrs = map[common.Address]bool{}
		s.accessSlots = map[common.Address]map[common.Hash]bool{}
		s.AddAddressToAccessList(sender)
		if dest != nil {
			s.AddAddressToAccessList(*dest)
		}
		for _, p := range precompiles {
			s.AddAddressToAccessList(p)
		}
		for _, t := range list {
			s.AddAddressToAccessList(t.Address)
			for _, key := range t.StorageKeys {
				s.AddSlotToAccessList(t.Address, key)
			}
		}
		if rules.IsShanghai {
			s.AddAddressToAccessList(coinbase)
		}
	}
	s.transient = map[common.Address]map[common.Hash]common.Hash{}
}

// What stateless and block-level-access-list execution need; the rollup runs neither.

func (s *stateDB) Witness() *stateless.Witness                            { return nil }
func (s *stateDB) AccessEvents() *state.AccessEvents                      { return nil }
func (s *stateDB) Finalise(params.Rules) *bal.ConstructionBlockAccessList { return nil }

func (s *stateDB) SetTxContext(thash common.Hash, ti int, _ uint32) { s.txHash, s.txIndex = thash, ti }
