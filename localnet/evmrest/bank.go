package evmrest

import (
	"fmt"
	"net/http"

	cmtservice "github.com/cosmos/cosmos-sdk/client/grpc/cmtservice"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
)

// registerWallet adds the routes a wallet reads first on a minievm beside the fee routes:
// all balances of an account (Initia.js bank.balance) and the node's syncing flag.
func (s *Server) registerWallet(mux *http.ServeMux) {
	mux.HandleFunc("GET /cosmos/bank/v1beta1/balances/{address}", s.balances)
	// A minievm's bank has no denom metadata (its coins are ERC20s, described there).
	mux.HandleFunc("GET /cosmos/bank/v1beta1/denoms_metadata", func(w http.ResponseWriter, _ *http.Request) {
		s.writeProto(w, &banktypes.QueryDenomsMetadataResponse{Metadatas: []banktypes.Metadata{}, Pagination: &query.PageResponse{}})
	})
	if s.info.Supply != nil {
		mux.HandleFunc("GET /cosmos/bank/v1beta1/supply", s.supply)
		mux.HandleFunc("GET /cosmos/bank/v1beta1/supply/by_denom", s.supplyOf)
	}
	mux.HandleFunc("GET /cosmos/base/tendermint/v1beta1/syncing", func(w http.ResponseWriter, _ *http.Request) {
		// The face answers for a chain that is always at its head.
		s.writeProto(w, &cmtservice.GetSyncingResponse{Syncing: false})
	})
}

// balances answers an account's balances as bank's AllBalances does: the coins it holds,
// none of zero. The fee denom (read from the EVM) is the only coin this face knows.
func (s *Server) balances(w http.ResponseWriter, r *http.Request) {
	addr, err := parseAccount(r.PathValue("address"))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, 3, "invalid address: "+err.Error())
		return
	}
	coins, err := s.balancesOf(r.Context(), addr)
	if err != nil {
		writeInternal(w, err)
		return
	}
	s.writeProto(w, &banktypes.QueryAllBalancesResponse{Balances: coins, Pagination: &query.PageResponse{Total: uint64(len(coins))}})
}

// supply answers bank's TotalSupply: the fee denom's, the only coin this face knows.
func (s *Server) supply(w http.ResponseWriter, r *http.Request) {
	coins, err := s.supplyCoins(r.Context())
	if err != nil {
		writeInternal(w, err)
		return
	}
	s.writeProto(w, &banktypes.QueryTotalSupplyResponse{Supply: coins, Pagination: &query.PageResponse{Total: uint64(len(coins))}})
}

// supplyOf answers bank's SupplyOf: the fee denom's supply. Any other valid denom fails as on
// a minievm, whose bank finds a denom's supply through the denom's ERC-20 contract: the
// store's miss of the denom, as an internal error.
func (s *Server) supplyOf(w http.ResponseWriter, r *http.Request) {
	denom := r.URL.Query().Get("denom")
	if err := sdk.ValidateDenom(denom); err != nil {
		writeStatus(w, http.StatusBadRequest, 3, "invalid denom: "+err.Error())
		return
	}
	if denom != s.info.FeeDenom {
		writeInternal(w, fmt.Errorf("collections: not found: key '%s' of type bytes", denom))
		return
	}
	coins, err := s.supplyCoins(r.Context())
	if err != nil {
		writeInternal(w, err)
		return
	}
	s.writeProto(w, &banktypes.QuerySupplyOfResponse{Amount: sdk.NewCoin(denom, coins.AmountOf(denom))})
}
