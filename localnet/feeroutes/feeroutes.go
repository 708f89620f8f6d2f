// Package feeroutes serves the REST routes a wallet reads to discover a minitia's fees: the
// OPinit child module's params (min_gas_prices) and Initia's tx module gas prices; and
// opchild's validators and bridge_info (opchild.go). Initia.js
// RESTClient.gasPrices() reads /opinit/opchild/v1/params, then /initia/tx/v1/gas_prices/{denom}.
// No Go type of either module is importable (github.com/initia-labs/* is not on the Go proxy),
// so the gateway's JSON shapes are written out here, once, for every local rollup face.
package feeroutes

import (
	"encoding/json"
	"fmt"
	"net/http"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Opchild's defaults: hook_max_gas and historical_entries.
const (
	DefaultHookMaxGas        = 3_000_000
	DefaultHistoricalEntries = 10_000
)

// Params is opinit.opchild.v1.Params in the gateway's JSON: uint32 fields as numbers, the
// uint64 hook_max_gas as a string, DecCoin amounts as 18-decimal strings.
type Params struct {
	MaxValidators     uint32       `json:"max_validators"`
	HistoricalEntries uint32       `json:"historical_entries"`
	MinGasPrices      sdk.DecCoins `json:"min_gas_prices"`
	BridgeExecutors   []string     `json:"bridge_executors"`
	Admin             string       `json:"admin"`
	FeeWhitelist      []string     `json:"fee_whitelist"`
	HookMaxGas        uint64       `json:"hook_max_gas,string"`
}

// ParamsResponse is opinit.opchild.v1.QueryParamsResponse.
type ParamsResponse struct {
	Params Params `json:"params"`
}

// GasPricesResponse is initia.tx.v1.QueryGasPricesResponse.
type GasPricesResponse struct {
	GasPrices sdk.DecCoins `json:"gas_prices"`
}

// GasPriceResponse is initia.tx.v1.QueryGasPriceResponse.
type GasPriceResponse struct {
	GasPrice sdk.DecCoin `json:"gas_price"`
}

// NewParams is a single-operator rollup's opchild params with minGasPrices (opchild's
// defaults elsewhere: 100 validators, 10,000 historical entries, no executors, admin or
// whitelist).
func NewParams(minGasPrices sdk.DecCoins) Params {
	if minGasPrices == nil {
		minGasPrices = sdk.DecCoins{}
	}
	return Params{MaxValidators: 100, HistoricalEntries: DefaultHistoricalEntries, MinGasPrices: minGasPrices, BridgeExecutors: []string{}, FeeWhitelist: []string{}, HookMaxGas: DefaultHookMaxGas}
}

// Register adds the routes to mux; prices returns the node's minimum gas prices at call time.
// txGasPrices serves Initia's tx module gas prices, the L1's routes (initiad); a minitia
// answers them 501 Not Implemented (code 12), as the real minievm, miniwasm and minimove do.
func Register(mux *http.ServeMux, prices func() sdk.DecCoins, txGasPrices bool) {
	RegisterWithParams(mux, prices, func() (Params, error) { return NewParams(prices()), nil }, txGasPrices)
}

// RegisterWithParams is Register with opchild's params from params (a rollup's state).
func RegisterWithParams(mux *http.ServeMux, prices func() sdk.DecCoins, params func() (Params, error), txGasPrices bool) {
	mux.HandleFunc("GET /opinit/opchild/v1/params", func(w http.ResponseWriter, _ *http.Request) {
		p, err := params()
		if err != nil {
			writeError(w, http.StatusInternalServerError, 2, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, ParamsResponse{Params: p})
	})
	if !txGasPrices {
		notImplemented := func(w http.ResponseWriter, _ *http.Request) {
			writeError(w, http.StatusNotImplemented, 12, "Not Implemented")
		}
		mux.HandleFunc("GET /initia/tx/v1/gas_prices", notImplemented)
		mux.HandleFunc("GET /initia/tx/v1/gas_prices/{denom}", notImplemented)
		return
	}
	mux.HandleFunc("GET /initia/tx/v1/gas_prices", func(w http.ResponseWriter, _ *http.Request) {
		p := prices()
		if p == nil {
			p = sdk.DecCoins{}
		}
		writeJSON(w, http.StatusOK, GasPricesResponse{GasPrices: p})
	})
	mux.HandleFunc("GET /initia/tx/v1/gas_prices/{denom}", func(w http.ResponseWriter, r *http.Request) {
		denom := r.PathValue("denom")
		if err := sdk.ValidateDenom(denom); err != nil {
			writeError(w, http.StatusBadRequest, 3, fmt.Sprintf("invalid denom %q: %v", denom, err))
			return
		}
		for _, p := range prices() {
			if p.Denom == denom {
				writeJSON(w, http.StatusOK, GasPriceResponse{GasPrice: p})
				return
			}
		}
		writeError(w, http.StatusNotFound, 5, fmt.Sprintf("denom %s: not a fee denom of this chain", denom))
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes an error as the gRPC gateway does: {"code","message","details"}.
func writeError(w http.ResponseWriter, httpCode, grpcCode int, msg string) {
	writeJSON(w, httpCode, map[string]any{"code": grpcCode, "message": msg, "details": []any{}})
}
