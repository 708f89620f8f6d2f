package feeroutes

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
)

// The gateway's JSON, as a wallet parses it: field names and JSON types, not our Go types
// (the L1's routes: the tx module's gas prices served).
func TestRoutesAnswerTheGatewayShapes(t *testing.T) {
	mux := http.NewServeMux()
	Register(mux, func() sdk.DecCoins {
		return sdk.NewDecCoins(sdk.NewDecCoinFromDec("umin", sdkmath.LegacyMustNewDecFromStr("0.15")))
	}, true)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	price := map[string]any{"denom": "umin", "amount": "0.150000000000000000"}
	for _, tc := range []struct {
		path   string
		status int
		want   map[string]any
	}{
		{"/opinit/opchild/v1/params", 200, map[string]any{"params": map[string]any{
			"max_validators": 100.0, "historical_entries": 10000.0, "min_gas_prices": []any{price},
			"bridge_executors": []any{}, "admin": "", "fee_whitelist": []any{}, "hook_max_gas": "3000000",
		}}},
		{"/initia/tx/v1/gas_prices", 200, map[string]any{"gas_prices": []any{price}}},
		{"/initia/tx/v1/gas_prices/umin", 200, map[string]any{"gas_price": price}},
		{"/initia/tx/v1/gas_prices/uinit", 404, map[string]any{"code": 5.0, "message": "denom uinit: not a fee denom of this chain", "details": []any{}}},
		{"/initia/tx/v1/gas_prices/0bad", 400, nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res, err := http.Get(srv.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, body)
			}
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			if tc.want == nil {
				if got["code"] != 3.0 || got["message"] == "" {
					t.Fatalf("want an InvalidArgument status, got %s", body)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %s\nwant %v", body, tc.want)
			}
		})
	}
}

// A minitia answers the L1's tx module gas price routes 501 code 12, as the real minievm,
// miniwasm and minimove do; opchild's params it serves.
func TestARollupRefusesTheL1sGasPriceRoutes(t *testing.T) {
	mux := http.NewServeMux()
	Register(mux, func() sdk.DecCoins {
		return sdk.NewDecCoins(sdk.NewDecCoinFromDec("umin", sdkmath.LegacyMustNewDecFromStr("0.15")))
	}, false)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for path, want := range map[string]int{"/opinit/opchild/v1/params": 200, "/initia/tx/v1/gas_prices": 501, "/initia/tx/v1/gas_prices/umin": 501} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("%s: status %d, want %d: %s", path, res.StatusCode, want, body)
		}
		if want == 501 && string(body) != `{"code":12,"details":[],"message":"Not Implemented"}`+"\n" {
			t.Fatalf("%s: %s", path, body)
		}
	}
}
