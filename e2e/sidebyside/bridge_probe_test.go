package sidebyside_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/feeroutes"
	"github.com/vipharness/vipharness/localnet/minitiad"
)

// A rollup registered under a bridge of its L1 knows the bridge from genesis, as the L1
// stand-in's registration leaves it: both sides start under the same bridge, and opchild's
// bridge info and params (which name the bridge executor) must answer alike, addresses
// masked (each side's executor is its own first account).
var bridge = feeroutes.Bridge{ID: 7, L1ChainID: "vip-l1-1"}

var bridgeProbes = []probe{
	rest("REST opchild bridge info under a bridge", nil, func(localnet.Rollup) string { return "/opinit/opchild/v1/bridge_info" }, maskedJSON),
	rest("REST opchild params under a bridge", nil, func(localnet.Rollup) string { return "/opinit/opchild/v1/params" }, func(v any) string {
		// The minimum gas price is each engine's setting (the main suite compares the shape).
		if p, ok := dig(v, "params").(map[string]any); ok {
			delete(p, "min_gas_prices")
		}
		return maskedJSON(v)
	}),
	abciRead("ABCI query opchild bridge info under a bridge", nil, feeroutes.BridgeInfoQuery, func(value []byte) string {
		// Every bech32 address in the encoding is of one length (an account's 43 bytes,
		// the bridge's 59): masked, the bytes must be the same.
		return base64.StdEncoding.EncodeToString([]byte(bech32Addr.ReplaceAllStringFunc(string(value), func(a string) string {
			return strings.Repeat("x", len(a))
		})))
	}),
}

// maskedJSON is a JSON answer with its bech32 addresses masked.
func maskedJSON(v any) string {
	b, _ := json.Marshal(v)
	return bech32Addr.ReplaceAllString(string(b), "ADDR")
}

var _ = Describe("the project's rollups beside Initia's real minitiad, registered under a bridge", Label("sidebyside", "minitia"), func() {
	for _, vm := range all {
		Context(string(vm), Label(string(vm)), Ordered, func() {
			var ours, real localnet.Rollup
			BeforeAll(func(ctx SpecContext) {
				ours, real = startPair(ctx, vm, embedded.Engine{CosmosOptions: []embedded.CosmosOption{embedded.WithBridge(bridge)},
					EVMOptions: []embedded.EVMOption{embedded.WithEVMBridge(bridge)}}, minitiad.Engine{Bridge: bridge})
			}, NodeTimeout(4*time.Minute))

			It("answers opchild's bridge info and params as the real rollup does", func(ctx SpecContext) {
				for _, p := range bridgeProbes {
					pctx, cancel := context.WithTimeout(ctx, probeTimeout)
					a, errA := p.ask(pctx, ours)
					b, errB := p.ask(pctx, real)
					cancel()
					Expect(errA).NotTo(HaveOccurred(), "%s on ours", p.name)
					Expect(errB).NotTo(HaveOccurred(), "%s on the real one", p.name)
					Expect(a).To(Equal(b), "%s\n    ours: %s\n    real: %s", p.name, a, b)
				}
			}, SpecTimeout(time.Minute))
		})
	}
})
