package minitia

import (
	"strings"
	"testing"

	"cosmossdk.io/log"
	"cosmossdk.io/store/dbadapter"
	"cosmossdk.io/store/metrics"
	"cosmossdk.io/store/rootmulti"
	storetypes "cosmossdk.io/store/types"
	dbm "github.com/cosmos/cosmos-db"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/localnet/minitia/xmove"
)

// A chain kept by an earlier app, which mounted fewer stores, loads with the new stores
// added empty, its old stores' state kept; the SDK's plain load refuses it.
func TestAKeptChainGainsTheStoresItLacks(t *testing.T) {
	db := dbm.NewMemDB()
	keys := func(names ...string) map[string]*storetypes.KVStoreKey { return storetypes.NewKVStoreKeys(names...) }
	open := func(k map[string]*storetypes.KVStoreKey) *rootmulti.Store {
		rs := rootmulti.NewStore(db, log.NewNopLogger(), metrics.NewNoOpMetrics())
		for _, key := range k {
			rs.MountStoreWithDB(key, storetypes.StoreTypeIAVL, nil)
		}
		return rs
	}

	old := keys("bank")
	rs := open(old)
	if err := addingStores(db, old)(rs); err != nil {
		t.Fatalf("a fresh db: %v", err)
	}
	rs.GetKVStore(old["bank"]).Set([]byte("k"), []byte("v"))
	rs.Commit()

	now := keys("bank", "opchild", "tokenfactory")
	if err := open(now).LoadLatestVersion(); err == nil || !strings.Contains(err.Error(), "StoreUpgrades") {
		t.Fatalf("the SDK's plain load: %v, want its refusal of new stores", err)
	}
	rs = open(now)
	if err := addingStores(db, now)(rs); err != nil {
		t.Fatalf("load with the new stores: %v", err)
	}
	if got := rs.GetKVStore(now["bank"]).Get([]byte("k")); string(got) != "v" {
		t.Fatalf("the kept store holds %q, want v", got)
	}
	rs.GetKVStore(now["opchild"]).Set([]byte{0x11}, []byte("p"))
	rs.Commit()
	if err := addingStores(db, now)(open(now)); err != nil {
		t.Fatalf("load again, every store kept: %v", err)
	}
}

// A Move rollup kept before its balances were Move coins (no 0x1::coin) is refused by name.
func TestAKeptMoveChainWithoutCoinsIsRefused(t *testing.T) {
	store := dbadapter.Store{DB: dbm.NewMemDB()}
	if err := movedCoins(store); err == nil || !strings.Contains(err.Error(), "start it afresh") {
		t.Fatalf("a chain without 0x1::coin: %v, want a refusal that says what to do", err)
	}
	store.Set(movebcs.ModuleKey(xmove.StdAddress, "coin"), []byte{1})
	if err := movedCoins(store); err != nil {
		t.Fatalf("a chain with 0x1::coin: %v", err)
	}
}

// An EVM rollup kept before its fee denom was an ERC-20 (no fee token) is refused by name.
func TestAKeptEVMChainWithoutAFeeTokenIsRefused(t *testing.T) {
	if err := feeTokenMade(dbadapter.Store{DB: dbm.NewMemDB()}, "umin"); err == nil || !strings.Contains(err.Error(), "start it afresh") {
		t.Fatalf("a chain without a fee token: %v, want a refusal that says what to do", err)
	}
}
