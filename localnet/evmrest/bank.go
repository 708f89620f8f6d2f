package evmrest

import (
	"net/http"

	"cosmossdk.io/math"
	cmtservice "github.com/cosmos/cosmos-sdk/client/grpc/cmtservice"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
)

// registerWallet adds the routes a wallet reads first on a minievm beside the fee routes:
// all balances of an account (Initia.js bank.balance) and the node's syncing flag.
func (s *Server) registerWallet(mux *http.ServeMux) {
	mux.HandleFunc("GET /cosmos/bank/v1beta1/balances/{address}", s.balances)
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
	bal, err := s.chain.BalanceAt(r.Context(), addr, nil)
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, 13, err.Error())
		return
	}
	coins := sdk.Coins{}
	if bal.Sign() > 0 {
		coins = sdk.NewCoins(sdk.NewCoin(s.info.FeeDenom, math.NewIntFromBigInt(bal)))
	}
	s.writeProto(w, &banktypes.QueryAllBalancesResponse{Balances: coins, Pagination: &query.PageResponse{Total: uint64(len(coins))}})
}
