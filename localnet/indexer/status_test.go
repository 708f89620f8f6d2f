package indexer

import (
	"context"
	"testing"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

// GET /status reports the newest block indexed, as rollytics does, and moves with it.
func TestStatusReportsTheIndexedHeight(t *testing.T) {
	chain := NewMemChain()
	for range 3 {
		chain.AddBlock()
	}
	ix := startMem(t, chain, WithChainID("evm-1"))
	waitHeight(t, ix, 3)
	c, err := api.NewClient(ix.URL())
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Height != int64(ix.Height()) || st.Height < 3 || st.ChainID != "evm-1" {
		t.Fatalf("status %+v, indexer height %d", st, ix.Height())
	}
	chain.AddBlock()
	chain.AddBlock()
	waitHeight(t, ix, 5)
	if st, err = c.Status(context.Background()); err != nil || st.Height < 5 {
		t.Fatalf("status after two blocks: %+v %v", st, err)
	}
}
