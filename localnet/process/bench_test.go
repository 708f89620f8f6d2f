package process

import (
	"context"
	"testing"

	"github.com/vipharness/vipharness/deployer"
)

// BenchmarkStartGeth is start-to-ready of geth --dev as a child process (genesis, init,
// start, first JSON-RPC answer) and its stop.
func BenchmarkStartGeth(b *testing.B) {
	e := Engine{}
	if err := e.Available(deployer.EVM); err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	for b.Loop() {
		r, err := e.StartRollup(ctx, deployer.EVM)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
