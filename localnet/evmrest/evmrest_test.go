package evmrest

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"reflect"
	"testing"

	"cosmossdk.io/math"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"
)

type fakeChain map[common.Address]*big.Int

func (f fakeChain) BalanceAt(_ context.Context, a common.Address, _ *big.Int) (*big.Int, error) {
	if b, ok := f[a]; ok {
		return b, nil
	}
	return new(big.Int), nil
}

// All balances and syncing as the gateway answers them: the fee coin only when held, the
// count of coins as total, bad addresses refused with code 3.
func TestWalletRoutes(t *testing.T) {
	rich := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	s, err := Start(Info{ChainID: "vip-evm-1", FeeDenom: "umin", MinGasPrice: math.LegacyNewDec(1)}, fakeChain{rich: big.NewInt(1234)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	richB32, err := bech32.ConvertAndEncode(Prefix, rich.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		status     int
		want       map[string]any
	}{
		{"bech32 holder", "/cosmos/bank/v1beta1/balances/" + richB32, 200, map[string]any{
			"balances": []any{map[string]any{"denom": "umin", "amount": "1234"}}, "pagination": map[string]any{"next_key": nil, "total": "1"}}},
		{"hex holder", "/cosmos/bank/v1beta1/balances/" + rich.Hex(), 200, map[string]any{
			"balances": []any{map[string]any{"denom": "umin", "amount": "1234"}}, "pagination": map[string]any{"next_key": nil, "total": "1"}}},
		{"empty account", "/cosmos/bank/v1beta1/balances/0x00000000000000000000000000000000000000bb", 200, map[string]any{
			"balances": []any{}, "pagination": map[string]any{"next_key": nil, "total": "0"}}},
		{"bad address", "/cosmos/bank/v1beta1/balances/init1nope", 400, nil},
		{"syncing", "/cosmos/base/tendermint/v1beta1/syncing", 200, map[string]any{"syncing": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := http.Get(s.URL() + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var got map[string]any
			if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tc.status {
				t.Fatalf("HTTP %d %v, want %d", res.StatusCode, got, tc.status)
			}
			if tc.want == nil {
				if got["code"] != 3.0 {
					t.Errorf("%v, want code 3", got)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%v, want %v", got, tc.want)
			}
		})
	}
}
