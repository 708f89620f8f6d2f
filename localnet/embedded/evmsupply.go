package embedded

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/ethdb"
)

// supplyCounter is the fee denom's total supply, which a minievm's bank reports: what the
// genesis allocated, less the base fees burnt since (geth burns each block's base fee x its
// gas used, and a post-merge chain mints nothing). Each call walks the blocks sealed since
// the last one.
type supplyCounter struct {
	chain  *core.BlockChain
	mu     sync.Mutex
	height uint64   // the newest block counted
	supply *big.Int // after block height
}

func newSupplyCounter(chain *core.BlockChain, db ethdb.Database) (*supplyCounter, error) {
	g, err := core.ReadGenesis(db)
	if err != nil {
		return nil, fmt.Errorf("read the genesis for the supply: %w", err)
	}
	total := new(big.Int)
	for _, acc := range g.Alloc {
		if acc.Balance != nil {
			total.Add(total, acc.Balance)
		}
	}
	return &supplyCounter{chain: chain, supply: total}, nil
}

// Supply is the supply after the newest block.
func (c *supplyCounter) Supply(ctx context.Context) (*big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for head := c.chain.CurrentBlock().Number.Uint64(); c.height < head; c.height++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := c.chain.GetHeaderByNumber(c.height + 1)
		if h == nil {
			return nil, fmt.Errorf("supply: no block %d", c.height+1)
		}
		if h.BaseFee != nil {
			c.supply.Sub(c.supply, new(big.Int).Mul(h.BaseFee, new(big.Int).SetUint64(h.GasUsed)))
		}
	}
	return new(big.Int).Set(c.supply), nil
}
