package jsclients_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/vipharness/vipharness/deployer/vip"
)

// evmCalls is how many calls initia_evm.mjs makes when it runs to its end.
const evmCalls = 10

var _ = Describe("Initia.js on an EVM rollup", func() {
	for _, target := range initiaTargets(vip.EVM) {
		Context(target.String(), Label("initia.js", string(target.VM), target.Engine.Name()), Ordered, func() {
			It("reads the minievm Cosmos face a wallet reads before JSON-RPC", func(ctx SpecContext) {
				if plainNode(target) {
					Skip(target.String() + " runs plain geth: it has no Cosmos REST face")
				}
				env := startInitiaRollup(ctx, target)
				ep := env.Rollup.Endpoints()
				if ep.REST == "" {
					// The process and container engines run plain geth (no Cosmos face).
					Skip(target.String() + " is plain geth: it has no Cosmos REST face")
				}
				// The embedded EVM's ChainID is the EVM one, and it names its Cosmos one apart;
				// a real minitiad's ChainID is the Cosmos one.
				chainID := env.Rollup.ChainID()
				if cosmos, ok := env.Rollup.(interface{ CosmosChainID() string }); ok {
					chainID = cosmos.CosmosChainID()
				}
				funded := env.Rollup.Funded()
				Expect(funded).NotTo(BeEmpty())
				calls, err := runScript(ctx, "initia_evm.mjs", map[string]string{
					"REST_URL": ep.REST, "CHAIN_ID": chainID, "FEE_DENOM": feeDenom(env), "FUNDED_HEX": funded[0].Address,
				})
				expectAllPassed(target, "initia_evm.mjs", calls, err, evmCalls)
			}, SpecTimeout(time.Minute+scriptTimeout))
		})
	}
})
