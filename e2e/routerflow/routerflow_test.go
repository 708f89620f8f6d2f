package routerflow_test

import (
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	api "github.com/vipharness/vipharness/bindings/router"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/router"
)

// A transfer from the local EVM rollup through the routing stand-in, signed and broadcast by
// the caller's own signer: to completion, to failure, and through lost tracks.
var _ = Describe("a transfer through the routing service", Label("evm", "embedded", "router"), func() {
	var (
		chain  *embedded.GethRollup
		srv    *router.Server
		client *api.Client
		signer *api.EVMSigner
		req    api.TransferRequest
	)

	BeforeEach(func(ctx SpecContext) {
		var err error
		chain, err = embedded.StartGeth(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) { Expect(chain.Stop(ctx)).To(Succeed()) })
		srv, err = router.Start(ctx, router.WithChain(chain.ChainID(), chain.Endpoints().JSONRPC), router.WithStepInterval(10*time.Millisecond), router.WithSeed(7))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		client, err = api.NewClient(srv.URL(), api.WithPollBackoff(5*time.Millisecond, 50*time.Millisecond))
		Expect(err).NotTo(HaveOccurred())
		dev := chain.Funded()[0]
		signer, err = api.NewEVMSigner(ctx, chain.Client(), dev.PrivateKey)
		Expect(err).NotTo(HaveOccurred())
		onL1, err := bech32.ConvertAndEncode("init", common.HexToAddress(dev.Address).Bytes())
		Expect(err).NotTo(HaveOccurred())
		req = api.TransferRequest{
			Route: api.RouteRequest{AmountIn: "1000000000000000000", SourceAssetChainID: chain.ChainID(), SourceAssetDenom: "evm-native",
				DestAssetChainID: "initiation-2", DestAssetDenom: "ibc/407EA0C82DB498E018FF454F628E9CA9FFE16F1C07BA49449F1CEA78D24D04B1"},
			Addresses: map[string]string{chain.ChainID(): dev.Address, "initiation-2": onL1},
		}
	})

	It("completes: route, msgs, signed and mined on the rollup, tracked, STATE_COMPLETED", func(ctx SpecContext) {
		res, err := client.Transfer(ctx, req, signer)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status().Status).To(Equal(api.StateCompleted))
	}, SpecTimeout(time.Minute))

	It("ends STATE_FAILED when a hop fails", func(ctx SpecContext) {
		first := 0
		srv.SetFaults(router.Faults{FailHop: &first})
		res, err := client.Transfer(ctx, req, signer)
		Expect(err).To(HaveOccurred())
		Expect(res.Status().Status).To(Equal(api.StateFailed))
	}, SpecTimeout(time.Minute))

	It("recovers when the service loses the first tracks", func(ctx SpecContext) {
		srv.SetFaults(router.Faults{TrackNotFound: 3})
		res, err := client.Transfer(ctx, req, signer)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status().Status).To(Equal(api.StateCompleted))
	}, SpecTimeout(time.Minute))
})
