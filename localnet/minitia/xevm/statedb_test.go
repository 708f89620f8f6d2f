package xevm

import (
	"context"
	"testing"

	storetypes "cosmossdk.io/store/types"
	"github.com/cosmos/cosmos-sdk/testutil"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// fakeAccounts keeps base accounts in a store of the context, as x/auth does, so that a
// snapshot's revert drops them: the state's tests need no x/auth keeper.
type fakeAccounts struct{ key *storetypes.KVStoreKey }

func (f fakeAccounts) GetAccount(ctx context.Context, a sdk.AccAddress) sdk.AccountI {
	bz := sdk.UnwrapSDKContext(ctx).KVStore(f.key).Get(a)
	if bz == nil {
		return nil
	}
	var acc authtypes.BaseAccount
	if err := acc.Unmarshal(bz); err != nil {
		panic(err)
	}
	return &acc
}

func (f fakeAccounts) NewAccountWithAddress(_ context.Context, a sdk.AccAddress) sdk.AccountI {
	return authtypes.NewBaseAccountWithAddress(a)
}

func (f fakeAccounts) SetAccount(ctx context.Context, acc sdk.AccountI) {
	bz, err := acc.(*authtypes.BaseAccount).Marshal()
	if err != nil {
		panic(err)
	}
	sdk.UnwrapSDKContext(ctx).KVStore(f.key).Set(acc.GetAddress(), bz)
}

func (f fakeAccounts) RemoveAccount(ctx context.Context, acc sdk.AccountI) {
	sdk.UnwrapSDKContext(ctx).KVStore(f.key).Delete(acc.GetAddress())
}

func newTestState(t *testing.T) *stateDB {
	t.Helper()
	keys := storetypes.NewKVStoreKeys(ModuleName, "acc")
	ctx := testutil.DefaultContextWithKeys(keys, nil, nil)
	return newStateDB(&Keeper{key: keys[ModuleName], accounts: fakeAccounts{keys["acc"]}, denom: "umin"}, ctx)
}

func TestSnapshotsUndoWhatCameAfterThem(t *testing.T) {
	a := common.HexToAddress("0xaa")
	slot, other := common.HexToHash("0x01"), common.HexToHash("0x02")
	one, two := common.HexToHash("0x11"), common.HexToHash("0x22")
	for _, tc := range []struct {
		name   string
		before func(s *stateDB)
		after  func(s *stateDB)
		check  func(t *testing.T, s *stateDB)
	}{
		{"storage written after a snapshot is dropped, before it kept",
			func(s *stateDB) { s.SetState(a, slot, one) },
			func(s *stateDB) { s.SetState(a, slot, two); s.SetState(a, other, two) },
			func(t *testing.T, s *stateDB) {
				if got := s.GetState(a, slot); got != one {
					t.Errorf("slot %s, want %s", got, one)
				}
				if got := s.GetState(a, other); got != (common.Hash{}) {
					t.Errorf("other slot %s, want empty", got)
				}
			}},
		{"code and nonce",
			func(s *stateDB) { s.SetNonce(a, 3, 0) },
			func(s *stateDB) { s.SetCode(a, []byte{0x60, 0x00}, 0); s.SetNonce(a, 4, 0) },
			func(t *testing.T, s *stateDB) {
				if s.GetCodeSize(a) != 0 || s.GetCodeHash(a) != types.EmptyCodeHash || s.GetNonce(a) != 3 {
					t.Errorf("code %x hash %s nonce %d, want none, the empty hash, 3", s.GetCode(a), s.GetCodeHash(a), s.GetNonce(a))
				}
			}},
		{"logs, refund, transient storage and access list",
			func(s *stateDB) { s.AddLog(&types.Log{Address: a}); s.AddRefund(10) },
			func(s *stateDB) {
				s.AddLog(&types.Log{Address: a})
				s.AddRefund(5)
				s.SetTransientState(a, slot, one)
				s.AddSlotToAccessList(a, slot)
			},
			func(t *testing.T, s *stateDB) {
				if len(s.logs) != 1 || s.GetRefund() != 10 || s.GetTransientState(a, slot) != (common.Hash{}) || s.AddressInAccessList(a) {
					t.Errorf("logs %d refund %d transient %s listed %v, want 1, 10, empty, false",
						len(s.logs), s.GetRefund(), s.GetTransientState(a, slot), s.AddressInAccessList(a))
				}
			}},
		{"a self-destruct and a new contract",
			func(s *stateDB) {},
			func(s *stateDB) { s.CreateContract(a); s.SelfDestruct(a) },
			func(t *testing.T, s *stateDB) {
				if s.IsNewContract(a) || s.HasSelfDestructed(a) {
					t.Errorf("new %v destructed %v, want neither", s.IsNewContract(a), s.HasSelfDestructed(a))
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestState(t)
			tc.before(s)
			id := s.Snapshot()
			tc.after(s)
			s.RevertToSnapshot(id)
			tc.check(t, s)
		})
	}
}

func TestCommittedStateIsWhatTheTxStartedWith(t *testing.T) {
	s := newTestState(t)
	a, slot := common.HexToAddress("0xaa"), common.HexToHash("0x01")
	s.layers[0].ctx.KVStore(s.k.key).Set(stateKey(a, slot), common.HexToHash("0x05").Bytes())
	s.SetState(a, slot, common.HexToHash("0x06"))
	s.Snapshot()
	s.SetState(a, slot, common.HexToHash("0x07"))
	cur, committed := s.GetStateAndCommittedState(a, slot)
	if cur != common.HexToHash("0x07") || committed != common.HexToHash("0x05") {
		t.Fatalf("current %s committed %s, want 0x07 and 0x05", cur, committed)
	}
	s.commit()
	if got := common.BytesToHash(s.layers[0].ctx.KVStore(s.k.key).Get(stateKey(a, slot))); got != common.HexToHash("0x07") {
		t.Fatalf("after commit the message's store holds %s, want 0x07", got)
	}
}

func TestAnEmptyAccountHasNoCodeHash(t *testing.T) {
	s := newTestState(t)
	a := common.HexToAddress("0xaa")
	if h := s.GetCodeHash(a); h != (common.Hash{}) {
		t.Fatalf("code hash of no account %s, want zero", h)
	}
	s.CreateAccount(a)
	if h := s.GetCodeHash(a); h != types.EmptyCodeHash {
		t.Fatalf("code hash of an account without code %s, want the empty code's", h)
	}
}
