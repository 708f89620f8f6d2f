package evmrest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"reflect"
	"strings"
	"testing"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/cosmos/cosmos-sdk/types/query"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	gogoproto "github.com/cosmos/gogoproto/proto"
	"github.com/ethereum/go-ethereum/common"
	"github.com/vipharness/vipharness/localnet/feeroutes"
)

type fakeChain struct {
	nonces   map[common.Address]uint64
	balances map[common.Address]int64
}

func (f fakeChain) BalanceAt(_ context.Context, a common.Address, _ *big.Int) (*big.Int, error) {
	return big.NewInt(f.balances[a]), nil
}

func (f fakeChain) NonceAt(_ context.Context, a common.Address, _ *big.Int) (uint64, error) {
	return f.nonces[a], nil
}

func TestAccountsAreNumberedAndCarryTheNonce(t *testing.T) {
	sender, funded, unseen := common.HexToAddress("0x01"), common.HexToAddress("0x02"), common.HexToAddress("0x03")
	chain := fakeChain{nonces: map[common.Address]uint64{sender: 4}, balances: map[common.Address]int64{funded: 5}}
	s, err := Start(Info{ChainID: "vip-evm-1", FeeDenom: "umin", MinGasPrice: math.LegacyOneDec()}, chain)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	get := func(addr string) (int, map[string]any) {
		t.Helper()
		res, err := http.Get(s.URL() + "/cosmos/auth/v1beta1/accounts/" + addr)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, out
	}
	bech := func(a common.Address) string { b, _ := bech32.ConvertAndEncode(Prefix, a.Bytes()); return b }
	tests := []struct {
		name, addr       string
		status           int
		number, sequence string
	}{
		{"sender by bech32", bech(sender), 200, "10", "4"},
		{"funded keeps order", bech(funded), 200, "11", "0"},
		{"sender again keeps its number", bech(sender), 200, "10", "4"},
		{"unseen is not found", bech(unseen), 404, "", ""},
		// minievm's auth refuses what is not bech32, 0x hex too, as an unknown error.
		{"bad address", "init1xyz", 500, "", ""},
		{"hex", sender.Hex(), 500, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, out := get(tc.addr)
			if status != tc.status {
				t.Fatalf("status %d: %v", status, out)
			}
			if status == 500 {
				if msg, _ := out["message"].(string); !strings.HasPrefix(msg, "decoding bech32 failed: ") || out["code"] != 2.0 {
					t.Fatalf("error body %v, want code 2 and a bech32 decoding error", out)
				}
				return
			}
			if status != 200 {
				if out["message"] == "" || out["code"] != 5.0 {
					t.Fatalf("error body %v, want code 5 (not found)", out)
				}
				return
			}
			acc, _ := out["account"].(map[string]any)
			if acc["@type"] != "/cosmos.auth.v1beta1.BaseAccount" || acc["account_number"] != tc.number || acc["sequence"] != tc.sequence {
				t.Fatalf("account %v", acc)
			}
		})
	}
}

// All balances and syncing as the gateway answers them: the fee coin only when held, the
// count of coins as total, bad addresses refused with code 3.
func TestWalletRoutes(t *testing.T) {
	rich := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	supply := func(context.Context) (*big.Int, error) {
		return new(big.Int).Exp(big.NewInt(10), big.NewInt(27), nil), nil
	}
	s, err := Start(Info{ChainID: "vip-evm-1", FeeDenom: "umin", MinGasPrice: math.LegacyNewDec(1), Supply: supply}, fakeChain{balances: map[common.Address]int64{rich: 1234}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	richB32, err := bech32.ConvertAndEncode(Prefix, rich.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	emptyB32, err := bech32.ConvertAndEncode(Prefix, common.HexToAddress("0xbb").Bytes())
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
		{"empty account", "/cosmos/bank/v1beta1/balances/" + emptyB32, 200, map[string]any{
			"balances": []any{}, "pagination": map[string]any{"next_key": nil, "total": "0"}}},
		{"bad address", "/cosmos/bank/v1beta1/balances/init1nope", 400, nil},
		// minievm's bank takes bech32 only: a checksummed 0x address is not all one case.
		{"hex holder", "/cosmos/bank/v1beta1/balances/" + rich.Hex(), 400, nil},
		{"hex holder by denom", "/cosmos/bank/v1beta1/balances/" + rich.Hex() + "/by_denom?denom=umin", 400, nil},
		{"syncing", "/cosmos/base/tendermint/v1beta1/syncing", 200, map[string]any{"syncing": false}},
		// Shaped as a real minievm v1.2.18 answers them.
		{"supply", "/cosmos/bank/v1beta1/supply", 200, map[string]any{
			"supply": []any{map[string]any{"denom": "umin", "amount": "1000000000000000000000000000"}}, "pagination": map[string]any{"next_key": nil, "total": "1"}}},
		{"supply of the fee denom", "/cosmos/bank/v1beta1/supply/by_denom?denom=umin", 200, map[string]any{
			"amount": map[string]any{"denom": "umin", "amount": "1000000000000000000000000000"}}},
		// A denom with no ERC-20 behind it: minievm's store miss, as an internal error.
		{"supply of another denom", "/cosmos/bank/v1beta1/supply/by_denom?denom=uinit", 500, map[string]any{
			"code": 13.0, "message": "collections: not found: key 'uinit' of type bytes", "details": []any{}}},
		{"module accounts", "/cosmos/auth/v1beta1/module_accounts", 200, map[string]any{"accounts": []any{}}},
		{"denoms metadata", "/cosmos/bank/v1beta1/denoms_metadata", 200, map[string]any{
			"metadatas": []any{}, "pagination": map[string]any{"next_key": nil, "total": "0"}}},
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
				if msg, _ := got["message"].(string); got["code"] != 3.0 || !strings.HasPrefix(msg, "invalid address: decoding bech32 failed: ") {
					t.Errorf("%v, want code 3 and an invalid address", got)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%v, want %v", got, tc.want)
			}
		})
	}
}

func TestOpchildValidatorsListTheSequencer(t *testing.T) {
	seq := feeroutes.Validator{Moniker: "sequencer", OperatorAddress: "initvaloper1test", ConsPower: feeroutes.SequencerConsPower,
		ConsensusPubkey: feeroutes.PubKeyAny{Type: "/cosmos.crypto.ed25519.PubKey", Key: make([]byte, 32)}}
	tests := []struct {
		name      string
		sequencer *feeroutes.Validator
		status    int
		want      []feeroutes.Validator
	}{
		{"with a sequencer", &seq, http.StatusOK, []feeroutes.Validator{seq}},
		{"without one: no route, as any route the face lacks", nil, http.StatusNotImplemented, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Start(Info{ChainID: "vip-evm-1", FeeDenom: "umin", MinGasPrice: math.LegacyOneDec(), Sequencer: tt.sequencer}, fakeChain{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			resp, err := http.Get(s.URL() + "/opinit/opchild/v1/validators")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if tt.want == nil {
				return
			}
			var got feeroutes.ValidatorsResponse
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Validators, tt.want) || got.Pagination.Total != uint64(len(tt.want)) {
				t.Fatalf("validators %+v (total %d), want %+v", got.Validators, got.Pagination.Total, tt.want)
			}
		})
	}
}

// Queries over abci_query answer what the REST routes answer, in protobuf: params (the
// bytes a real minievm v1.2.18 answers for auth's and bank's), balances and accounts from the
// chain, and BaseApp's refusals (an unknown account: key not found, code 22; an unknown
// path: code 6).
func TestQueriesOverABCI(t *testing.T) {
	rich := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	s, err := Start(Info{ChainID: "vip-evm-1", FeeDenom: "umin", MinGasPrice: math.LegacyNewDec(1)},
		fakeChain{balances: map[common.Address]int64{rich: 1234}, nonces: map[common.Address]uint64{rich: 3}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	richB32, _ := bech32.ConvertAndEncode(Prefix, rich.Bytes())
	emptyB32, _ := bech32.ConvertAndEncode(Prefix, common.HexToAddress("0xbb").Bytes())
	marshal := func(m gogoproto.Message) []byte {
		b, err := gogoproto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, path string
		data       []byte
		want       string // base64 of the value, or the refusal's codespace/code
	}{
		{"auth params", "/cosmos.auth.v1beta1.Query/Params", nil, "Cg0IgAIQBxgKIM4EKOgH"},
		{"bank params", "/cosmos.bank.v1beta1.Query/Params", nil, "CgIQAQ=="},
		{"all balances", "/cosmos.bank.v1beta1.Query/AllBalances", marshal(&banktypes.QueryAllBalancesRequest{Address: richB32}),
			base64.StdEncoding.EncodeToString(marshal(&banktypes.QueryAllBalancesResponse{Balances: sdk.NewCoins(sdk.NewInt64Coin("umin", 1234)), Pagination: &query.PageResponse{Total: 1}}))},
		{"an account", "/cosmos.auth.v1beta1.Query/Account", marshal(&authtypes.QueryAccountRequest{Address: richB32}), "account"},
		{"an unknown account", "/cosmos.auth.v1beta1.Query/Account", marshal(&authtypes.QueryAccountRequest{Address: emptyB32}), "sdk/22"},
		{"a bad address", "/cosmos.bank.v1beta1.Query/AllBalances", marshal(&banktypes.QueryAllBalancesRequest{Address: "init1nope"}), "sdk/18"},
		{"an unknown path", "/cosmos.staking.v1beta1.Query/Validators", nil, "sdk/6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			value, err := s.Query(ctx, tc.path, tc.data)
			if err != nil {
				space, code, _ := errorsmod.ABCIInfo(err, false)
				if got := fmt.Sprintf("%s/%d", space, code); got != tc.want {
					t.Fatalf("refused %s (%v), want %s", got, err, tc.want)
				}
				return
			}
			if tc.want == "account" {
				var res authtypes.QueryAccountResponse
				var acct authtypes.BaseAccount
				if err := gogoproto.Unmarshal(value, &res); err != nil || gogoproto.Unmarshal(res.Account.Value, &acct) != nil || acct.Address != richB32 || acct.Sequence != 3 {
					t.Fatalf("account %x: %+v, %v", value, acct, err)
				}
				return
			}
			if got := base64.StdEncoding.EncodeToString(value); got != tc.want {
				t.Fatalf("value %s, want %s", got, tc.want)
			}
		})
	}
}
