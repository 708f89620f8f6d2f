package embedded_test

import (
	"context"
	"fmt"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// The embedded engine runs a rollup inside the process: a real chain on loopback ports,
// with funded development accounts, for as long as the test needs it.
func Example() {
	ctx := context.Background()
	var engine embedded.Engine
	if err := engine.Available(ctx, vip.EVM); err != nil {
		fmt.Println("not here:", err)
		return
	}
	r, err := engine.StartRollup(ctx, vip.EVM)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Stop(ctx)
	fmt.Println(r.VM(), "rollup, JSON-RPC on loopback:", len(r.Endpoints().JSONRPC) > len("http://127.0.0.1:"))
	fmt.Println("funded accounts:", len(r.Funded()) > 0)
	// Output:
	// evm rollup, JSON-RPC on loopback: true
	// funded accounts: true
}
