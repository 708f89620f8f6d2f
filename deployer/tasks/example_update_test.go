package tasks_test

import (
	"context"
	"fmt"

	"github.com/vipharness/vipharness/deployer/deployertest"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/tasks"
)

// Push a stage's scores, read them back, and finalize the stage once the L1 has moved past
// it. The contract here is an in-memory one; yours is the *deployer.Scorer of your rollup
// (with Store.Recorded, so a retried finalize finds its tx).
func ExampleUpdateScores() {
	ctx := context.Background()
	contract, l1 := deployertest.New(1), deployertest.NewL1(1)
	set, err := scores.NewSet([]scores.Entry{
		{Addr: "0x00000000000000000000000000000000000000a1", Amount: 10},
		{Addr: "0x00000000000000000000000000000000000000a2", Amount: 32},
	}, contract.Codec())
	if err != nil {
		fmt.Println(err)
		return
	}
	// No stage named: the L1's, when it is the contract's open stage.
	u, err := tasks.UpdateScores(ctx, contract, tasks.UpdateOptions{Set: set, L1: l1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stage", u.Stage, "read back:", u.ReadBack.Matched, "of", u.ReadBack.Input, "match; ok:", u.OK())

	l1.Set(2) // the L1 moves past stage 1
	f, err := tasks.FinalizeStage(ctx, contract, tasks.FinalizeOptions{L1: l1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("finalized stage", f.Stage)
	// Output:
	// stage 1 read back: 2 of 2 match; ok: true
	// finalized stage 1
}
