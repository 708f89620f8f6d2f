package wasmexec

import (
	"crypto/sha256"
	"errors"

	storetypes "cosmossdk.io/store/types"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	wasmvm "github.com/CosmWasm/wasmvm/v3"
	wasmvmtypes "github.com/CosmWasm/wasmvm/v3/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/localnet/devnode"
)

// goAPI is wasmd's address API over the chain's bech32 codec, with wasmd's costs.
func goAPI(ctx *devnode.Context) wasmvm.GoAPI {
	mult := wasmtypes.DefaultGasMultiplier // CosmWasm gas per SDK gas
	codec := ctx.Addresses
	humanize := func(canon []byte) (string, uint64, error) {
		cost := costHumanizeSDK * mult
		if err := sdk.VerifyAddressFormat(canon); err != nil {
			return "", cost, err
		}
		s, err := codec.BytesToString(canon)
		return s, cost, err
	}
	canonicalize := func(human string) ([]byte, uint64, error) {
		bz, err := codec.StringToBytes(human)
		return bz, costCanonicalizeSDK * mult, err
	}
	validate := func(human string) (uint64, error) {
		bz, err := codec.StringToBytes(human)
		if err != nil {
			return costCanonicalizeSDK * mult, err
		}
		if s, err := codec.BytesToString(bz); err != nil || s != human {
			return costValidateSDK * mult, errors.New("address not normalized")
		}
		return costValidateSDK * mult, nil
	}
	return wasmvm.GoAPI{HumanizeAddress: humanize, CanonicalizeAddress: canonicalize, ValidateAddress: validate}
}

// kvAdapter gives wasmvm an SDK store.
type kvAdapter struct{ s storetypes.KVStore }

func (a kvAdapter) Get(key []byte) []byte { return a.s.Get(key) }
func (a kvAdapter) Set(key, value []byte) { a.s.Set(key, value) }
func (a kvAdapter) Delete(key []byte)     { a.s.Delete(key) }
func (a kvAdapter) Iterator(start, end []byte) wasmvmtypes.Iterator {
	return a.s.Iterator(start, end)
}

func (a kvAdapter) ReverseIterator(start, end []byte) wasmvmtypes.Iterator {
	return a.s.ReverseIterator(start, end)
}

// noQuerier refuses the chain queries a contract may make; the VIP contract makes none.
type noQuerier struct{}

func (noQuerier) Query(req wasmvmtypes.QueryRequest, _ uint64) ([]byte, error) {
	kind := "unknown"
	switch {
	case req.Bank != nil:
		kind = "bank"
	case req.Wasm != nil:
		kind = "wasm"
	case req.Staking != nil:
		kind = "staking"
	case req.Custom != nil:
		kind = "custom"
	case req.Stargate != nil, req.Grpc != nil:
		kind = "grpc"
	}
	return nil, wasmvmtypes.UnsupportedRequest{Kind: kind + " queries are not supported by this dev node"}
}

func (noQuerier) GasConsumed() uint64 { return 0 }

func txHash(tx []byte) []byte {
	if tx == nil {
		return nil
	}
	sum := sha256.Sum256(tx)
	return sum[:]
}
