package jsclients_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/vipharness/vipharness/deployer/vip"
)

// viemCalls is how many calls viem_evm.mjs makes when it runs to its end.
const viemCalls = 6

var _ = Describe("viem on an EVM rollup", func() {
	for _, target := range initiaTargets(vip.EVM) {
		Context(target.String(), Label("viem", string(target.VM), target.Engine.Name()), Ordered, func() {
			It("sends with viem's and Hardhat's default fees, confirms on a minievm's blocks, and sees a revert without data", func(ctx SpecContext) {
				if plainNode(target) {
					Skip(target.String() + " runs plain geth: its fee market and revert answers are geth's, not a minievm's")
				}
				env := startInitiaRollup(ctx, target)
				funded := env.Rollup.Funded()
				calls, err := runScript(ctx, "viem_evm.mjs", map[string]string{
					"EVM_RPC_URL": env.Rollup.Endpoints().JSONRPC, "DEV_PRIVATE_KEY": "0x" + funded[0].PrivateKey,
				})
				expectAllPassed(target, "viem_evm.mjs", calls, err, viemCalls)
			}, SpecTimeout(time.Minute+scriptTimeout))
		})
	}
})
