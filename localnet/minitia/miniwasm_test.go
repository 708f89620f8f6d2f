package minitia

import (
	"context"
	"testing"

	corestore "cosmossdk.io/core/store"
	sdkmath "cosmossdk.io/math"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
)

// mapStore is a KVStore of a map, for the store wrappers' tests.
type mapStore struct {
	corestore.KVStore
	m map[string][]byte
}

func (s mapStore) Set(k, v []byte) error { s.m[string(k)] = v; return nil }

type mapService struct{ s mapStore }

func (m mapService) OpenKVStore(context.Context) corestore.KVStore { return m.s }

func TestWasmStoreKeepsAContractsInfoAsInitiasFork(t *testing.T) {
	info := wasmtypes.ContractInfo{CodeID: 1, Creator: "init1creator", Label: "vip_score", IBC2PortID: "wasm2init1contract"}
	withPort, err := info.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	info.IBC2PortID = ""
	withoutPort, _ := info.Marshal()
	contractKey := string(wasmtypes.GetContractAddressKey(make([]byte, 32)))
	for _, tc := range []struct {
		name, key   string
		value, want []byte
	}{
		{"a contract's info loses ibc2_port_id", contractKey, withPort, withoutPort},
		{"an info without it is written as it is", contractKey, withoutPort, withoutPort},
		{"another key's value is untouched", string(wasmtypes.ParamsKey), withPort, withPort},
		{"a value that is no contract info is untouched", contractKey, []byte{0xff, 0x01}, []byte{0xff, 0x01}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mapStore{m: map[string][]byte{}}
			store := wasmStoreService{mapService{m}}.OpenKVStore(context.Background())
			if err := store.Set([]byte(tc.key), tc.value); err != nil {
				t.Fatal(err)
			}
			if got := m.m[tc.key]; string(got) != string(tc.want) {
				t.Fatalf("stored %x, want %x", got, tc.want)
			}
		})
	}
}

func TestTxPriorityIsTheLowestGasPricePaid(t *testing.T) {
	coins := func(s string) sdk.Coins {
		c, err := sdk.ParseCoinsNormalized(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	huge := sdk.NewCoins(sdk.NewCoin("umin", sdkmath.NewIntFromUint64(1<<63).MulRaw(4)))
	for _, tc := range []struct {
		name string
		fee  sdk.Coins
		gas  uint64
		want int64
	}{
		{"one denom", coins("1500umin"), 100, 15},
		{"the lower of two", coins("1500umin,200uinit"), 100, 2},
		{"a price below 1 is 0", coins("50umin"), 100, 0},
		{"no fee", sdk.Coins{}, 100, 0},
		{"a price above int64 is capped", huge, 1, 1<<63 - 1},
		{"no gas", coins("1500umin"), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := txPriority(tc.fee, tc.gas); got != tc.want {
				t.Fatalf("priority %d, want %d", got, tc.want)
			}
		})
	}
}
