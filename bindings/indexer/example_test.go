package indexer_test

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/bindings/indexer"
	standin "github.com/vipharness/vipharness/localnet/indexer"
)

// Walk every EVM transaction, oldest first, 2 per page, against the local stand-in (in a
// real setup, the rollup's indexer URL and indexer.New(ctx, jsonRPCURL) for the stand-in).
func ExampleClient_AllEVMTxs() {
	ctx := context.Background()
	chain := standin.NewMemChain()
	from, to := common.HexToAddress("0xa1"), common.HexToAddress("0xb2")
	for range 3 {
		chain.AddBlock(standin.MemTx{From: from, To: &to}, standin.MemTx{From: to, To: &from})
	}
	ix, err := standin.NewFromSource(ctx, chain)
	if err != nil {
		panic(err)
	}
	defer ix.Close()
	if err := ix.WaitHeight(ctx, 3); err != nil {
		panic(err)
	}

	c, err := indexer.NewClient(ix.URL())
	if err != nil {
		panic(err)
	}
	for tx, err := range c.AllEVMTxs(ctx, indexer.Query{Limit: 2, Ascending: true}) {
		if err != nil {
			panic(err)
		}
		h, _ := tx.Height()
		fmt.Println(h, tx.From, "->", tx.To)
	}
	// Output:
	// 1 0x00000000000000000000000000000000000000a1 -> 0x00000000000000000000000000000000000000b2
	// 1 0x00000000000000000000000000000000000000b2 -> 0x00000000000000000000000000000000000000a1
	// 2 0x00000000000000000000000000000000000000a1 -> 0x00000000000000000000000000000000000000b2
	// 2 0x00000000000000000000000000000000000000b2 -> 0x00000000000000000000000000000000000000a1
	// 3 0x00000000000000000000000000000000000000a1 -> 0x00000000000000000000000000000000000000b2
	// 3 0x00000000000000000000000000000000000000b2 -> 0x00000000000000000000000000000000000000a1
}
