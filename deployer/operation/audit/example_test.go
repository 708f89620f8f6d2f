package audit_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// Audit a finalized stage as the L1's agent will take it: the contract's scores read back
// page by page, their totals checked against the stage's, and the VIP merkle tree built of
// them. The root is what the agent's snapshot for the bridge and stage must hold.
func ExampleBuildFromStage() {
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
	s, err := deployer.Open(ctx, deployer.Config{VM: vip.EVM, JSONRPC: rollup.Endpoints().JSONRPC,
		Operator: operator, Push: deployer.PushConfig{JournalDir: journals}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	// The stage the operator scored and finalized.
	const bridgeID, stage = 7, 2
	if _, err := s.Deploy(ctx, stage); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := s.UpdateScores(ctx, stage, scores.Generate(100, 42)); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := s.FinalizeStage(ctx, stage); err != nil {
		fmt.Println(err)
		return
	}

	tree, info, err := audit.BuildFromStage(ctx, s, bridgeID, stage, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("finalized:", info.Finalized, "leaves:", tree.Len(), "total_l2_score equals the stage's:", tree.Total == info.TotalScore)
	fmt.Println("merkle root:", tree.Root())
	// Output:
	// finalized: true leaves: 100 total_l2_score equals the stage's: true
	// merkle root: 6d27423ee576a6cd29c71db8cc498b13f9a0e6925383d90839469293f2214ed6
}
