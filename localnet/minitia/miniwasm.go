package minitia

import (
	"context"

	corestore "cosmossdk.io/core/store"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
)

// What miniwasm's bank does on every send that upstream x/bank does not, read from
// miniwasm's app (v1.2.11) and measured with a store trace of a real one beside ours:
//   - its own bank keeper calls the token factory's BlockBeforeSend and TrackBeforeSend
//     hooks, each of which looks up the before-send hook of every denom sent;
//   - IBC forwarding's send restriction reads the recipient's account (a forwarding account
//     forwards what it receives).
//
// This app runs neither module: no denom can have a hook (there is no token factory to set
// one) and no account forwards. miniwasmSendHooks makes the same reads, so that a send, and
// every tx's fee payment, costs the gas it costs on miniwasm.
const tokenfactoryStoreKey = "tokenfactory"

// beforeSendHookPrefix prefixes a denom's before-send hook in the token factory's store.
const beforeSendHookPrefix = 0x13

func (a *App) miniwasmSendHooks(ctx context.Context, _, to sdk.AccAddress, amt sdk.Coins) (sdk.AccAddress, error) {
	store := sdk.UnwrapSDKContext(ctx).KVStore(a.keys[tokenfactoryStoreKey])
	for range 2 { // BlockBeforeSend's lookups, then TrackBeforeSend's
		for _, c := range amt {
			store.Get(append([]byte{beforeSendHookPrefix}, c.Denom...))
		}
	}
	a.AccountKeeper.GetAccount(ctx, to)
	return to, nil
}

// wasmStoreService is x/wasm's store with a contract's info kept as miniwasm (Initia's wasmd
// fork, without IBC v2) keeps it: wasmd v0.61 sets every contract's ibc2_port_id, which
// the fork's ContractInfo does not have, so the field is dropped as the info is written.
// The write's gas is then the fork's too.
type wasmStoreService struct{ corestore.KVStoreService }

func (s wasmStoreService) OpenKVStore(ctx context.Context) corestore.KVStore {
	return contractInfoStore{s.KVStoreService.OpenKVStore(ctx)}
}

type contractInfoStore struct{ corestore.KVStore }

func (s contractInfoStore) Set(key, value []byte) error {
	if len(key) > 1 && key[0] == wasmtypes.ContractKeyPrefix[0] {
		var info wasmtypes.ContractInfo
		if info.Unmarshal(value) == nil && info.IBC2PortID != "" {
			info.IBC2PortID = ""
			b, err := info.Marshal()
			if err != nil {
				return err
			}
			value = b
		}
	}
	return s.KVStore.Set(key, value)
}
