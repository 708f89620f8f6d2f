package jsclients_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/router"
)

// skipRouteCalls is how many SDK calls skip_route.mjs reports: chains, assets, balances;
// route, messages and executeRoute on the IBC route; route, the refused executeRoute, the
// signed op hook, msgs, the evm_tx, track and waitForTransaction on the OP-hook route.
const skipRouteCalls = 13

// The Skip Go SDK drives the routing stand-in and the embedded EVM rollup as an app would.
var _ = Describe("the Skip Go SDK against the routing stand-in", Label("evm", "embedded", "router"), func() {
	It("runs chains, assets, balances, route, messages, executeRoute and the OP-hook route to completion", func(ctx SpecContext) {
		ensureClients()
		chain, err := embedded.StartGeth(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) { Expect(chain.Stop(ctx)).To(Succeed()) })
		srv, err := router.Start(ctx, router.WithChain(chain.ChainID(), chain.Endpoints().JSONRPC), router.WithStepInterval(20*time.Millisecond))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)

		dev := chain.Funded()[0]
		calls, err := runScript(ctx, "skip_route.mjs", map[string]string{
			"ROUTER_URL":      srv.URL(),
			"EVM_RPC_URL":     chain.Endpoints().JSONRPC,
			"EVM_CHAIN_ID":    chain.ChainID(),
			"DEV_PRIVATE_KEY": "0x" + dev.PrivateKey,
			// initiation-2, the hook chain, is simulated by the stand-in, which serves its accounts.
			"HOOK_REST_URL": srv.ChainRESTURL("initiation-2"),
		})
		Expect(err).NotTo(HaveOccurred())
		fmt.Fprintf(GinkgoWriter, "Skip SDK: %d of %d calls pass\n", len(calls)-len(failed(calls)), len(calls))
		Expect(failed(calls)).To(BeEmpty())
		Expect(calls).To(HaveLen(skipRouteCalls))
	}, SpecTimeout(3*time.Minute))
})
