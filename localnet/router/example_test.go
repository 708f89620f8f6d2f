package router_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/router"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/router"
)

// A transfer from the local EVM rollup to the L1 of the fixture graph: the stand-in routes
// it over IBC, the EVM signer sends the evm_tx to the bridge's escrow on the embedded chain,
// and the client tracks and polls the transfer until it completes.
func Example() {
	ctx := context.Background()
	chain, err := embedded.StartGeth(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer chain.Stop(ctx)
	srv, err := router.Start(ctx, router.WithChain(chain.ChainID(), chain.Endpoints().JSONRPC), router.WithStepInterval(10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	client, err := api.NewClient(srv.URL(), api.WithPollBackoff(5*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	dev := chain.Funded()[0]
	signer, err := api.NewEVMSigner(ctx, chain.Client(), dev.PrivateKey)
	if err != nil {
		log.Fatal(err)
	}
	onL1, _ := bech32.ConvertAndEncode("init", common.HexToAddress(dev.Address).Bytes())
	res, err := client.Transfer(ctx, api.TransferRequest{
		Route: api.RouteRequest{
			AmountIn:           "1000000000000000000",
			SourceAssetChainID: chain.ChainID(), SourceAssetDenom: "evm-native",
			DestAssetChainID: "initiation-2", DestAssetDenom: "ibc/407EA0C82DB498E018FF454F628E9CA9FFE16F1C07BA49449F1CEA78D24D04B1",
		},
		Addresses: map[string]string{chain.ChainID(): dev.Address, "initiation-2": onL1},
	}, signer)
	if err != nil {
		log.Fatal(err)
	}
	st := res.Status()
	fmt.Println(strings.Join(res.Route.RequiredChainAddresses, " -> "))
	fmt.Println(st.State, st.Status, st.TransferSequence[0].IBCTransfer.State)
	// Output:
	// 3370758106842963 -> initiation-2
	// STATE_COMPLETED_SUCCESS STATE_COMPLETED TRANSFER_SUCCESS
}
