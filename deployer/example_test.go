package deployer_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// Open the Scorer of a rollup's VM from its endpoints and a key, deploy the contract at the
// L1's stage, push scores, finalize and read back. The same code runs on a Move or a Wasm
// rollup with VM, CometRPC and REST set instead of JSONRPC.
func ExampleOpen() {
	ctx := context.Background()
	rollup, err := embedded.StartEVM(ctx) // a local EVM rollup; yours is a URL
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rollup.Stop(ctx)
	secret, _ := hex.DecodeString(rollup.Funded()[0].PrivateKey)
	journals, _ := os.MkdirTemp("", "journal-")
	defer os.RemoveAll(journals)

	operator, err := deployer.SoftSigner(vip.EVM, "", secret, "operator")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := deployer.Open(ctx, deployer.Config{
		VM: vip.EVM, JSONRPC: rollup.Endpoints().JSONRPC,
		Operator: operator, Push: deployer.PushConfig{JournalDir: journals},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	if _, err := s.Deploy(ctx, 3); err != nil {
		fmt.Println(err)
		return
	}
	entries := scores.Generate(250, 1)
	res, err := s.UpdateScores(ctx, 3, entries)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := s.FinalizeStage(ctx, 3); err != nil {
		fmt.Println(err)
		return
	}
	rep, err := deployer.Verify(ctx, s, 3, entries)
	if err != nil {
		fmt.Println(err)
		return
	}
	open, _ := s.OpenStage(ctx)
	fmt.Println("confirmed chunks:", res.Confirmed)
	fmt.Println("read back:", rep.Matched, "of", len(entries), "match; finalized:", rep.Finalized)
	fmt.Println("open stage:", open)
	// Output:
	// confirmed chunks: 1
	// read back: 250 of 250 match; finalized: true
	// open stage: 4
}
