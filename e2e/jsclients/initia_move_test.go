package jsclients_test

import (
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/vipharness/vipharness/deployer/vip"
)

// moveCalls is how many calls initia_move.mjs makes when it runs to its end.
const moveCalls = 38

var _ = Describe("Initia.js on a Move rollup", func() {
	for _, target := range initiaTargets(vip.Move) {
		Context(target.String(), Label("initia.js", string(target.VM), target.Engine.Name()), Ordered, func() {
			It("answers every call an application makes, signed in each sign mode", func(ctx SpecContext) {
				env := startInitiaRollup(ctx, target)
				contract, addr, score := deployScored(ctx, env)
				vars := cosmosScriptEnv(env, feeDenom(env))
				vars["VIP_SCORE"], vars["SCORED"], vars["SCORE"] = contract, addr, strconv.FormatUint(score, 10)
				calls, err := runScript(ctx, "initia_move.mjs", vars)
				expectAllPassed(target, "initia_move.mjs", calls, err, moveCalls)
			}, SpecTimeout(3*time.Minute+scriptTimeout))
		})
	}
})
