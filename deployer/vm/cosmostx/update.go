package cosmostx

import (
	"context"
	"fmt"
	"sync"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
)

// UpdateSpec is how a Cosmos VM sends a score update: the message a chunk becomes, how its
// failures decode into the VM's own errors, and what bounds a chunk besides the chain's
// block limits.
type UpdateSpec struct {
	Signer *Signer
	Msgs   Messages
	Decode func(error) error
	// What names the simulated call in errors ("simulate update_scores").
	What string
	// Headroom (percent) covers the gap between simulated and delivered gas.
	Headroom uint64
	// GasCap bounds a tx's gas below the block gas limit (e.g. the chain's contract
	// simulation limit), GasCapName naming it; 0 is none.
	GasCap     uint64
	GasCapName string
	// MaxTxBytes is the node's mempool tx size limit; a tx carries Overhead bytes and
	// PerEntry bytes an entry.
	MaxTxBytes, Overhead, PerEntry int
	// MaxEntries bounds a chunk further (an argument size limit); Cap caps it when limits
	// allow more. 0 is none.
	MaxEntries, Cap int
}

// probeSeed makes the probe addresses an update is measured with.
const probeSeed = 0x6761735f70726f62

// PrepareUpdate simulates the update with 1 and with 50 new addresses on the live
// contract (which also proves the signer may write to stage) and sizes a chunk by the block
// gas limit, spec's gas cap, the tx size limit and spec's entry bound.
func (c *Client) PrepareUpdate(ctx context.Context, stage uint64, spec UpdateSpec) (deployer.Update, error) {
	// The probes score 0: a stage at the limit of its total would refuse any other score.
	entries := scores.GenerateBech32(50, probeSeed, c.Prefix())
	for i := range entries {
		entries[i].Amount = 0
	}
	probes, err := scores.NewSet(entries, scores.Bech32Codec{Prefix: c.Prefix()})
	if err != nil {
		return deployer.Update{}, fmt.Errorf("update scores stage %d: probe addresses: %w", stage, err)
	}
	// The block limits are read, and the tx index checked, while the update is simulated.
	var limits Limits
	var limitsErr, indexErr error
	var wg sync.WaitGroup
	wg.Go(func() { limits, limitsErr = c.BlockLimits(ctx) })
	wg.Go(func() { indexErr = c.CheckTxIndex(ctx) })
	cost, err := deployer.Measure(stage, spec.What, spec.Headroom, func(k int) (uint64, error) {
		msg, err := spec.Msgs.UpdateMsg(spec.Signer.Address, stage, probes.Chunk(0, k))
		if err != nil {
			return 0, err
		}
		res, err := c.SimulatePending(ctx, spec.Signer, msg)
		if err != nil {
			if spec.Decode != nil {
				err = spec.Decode(err)
			}
			return 0, err
		}
		return res.GasInfo.GasUsed, nil
	})
	wg.Wait()
	if err != nil {
		return deployer.Update{}, err
	}
	if limitsErr != nil {
		return deployer.Update{}, fmt.Errorf("update scores stage %d: %w", stage, limitsErr)
	}
	if indexErr != nil {
		return deployer.Update{}, fmt.Errorf("update scores stage %d: tx index: %w", stage, indexErr)
	}
	gasCap, gasWhy := spec.GasCap, spec.GasCapName
	if limits.MaxBlockGas > 0 && (gasCap == 0 || uint64(limits.MaxBlockGas) < gasCap) {
		gasCap, gasWhy = uint64(limits.MaxBlockGas), "block gas limit"
	}
	byGas := 1 << 30 // no gas bound: bytes bound the chunk
	limitGas := uint64(1 << 62)
	if gasCap > 0 {
		byGas, limitGas = cost.MaxEntries(gasCap), gasCap
	}
	txBytes := int64(spec.MaxTxBytes)
	if limits.MaxBlockBytes > 0 {
		txBytes = min(txBytes, limits.MaxBlockBytes)
	}
	byBytes := int((txBytes - int64(spec.Overhead)) / int64(max(spec.PerEntry, 1)))
	if spec.MaxEntries > 0 {
		byBytes = min(byBytes, spec.MaxEntries)
	}
	limit := fmt.Sprintf("%s %d (~%d gas per entry)", gasWhy, gasCap, cost.PerEntry)
	if byBytes < byGas {
		limit = fmt.Sprintf("%d-byte tx limit", txBytes)
	}
	pc := &PushChain{C: c, Signer: spec.Signer, Decode: spec.Decode,
		Msgs: spec.Msgs, Gas: func(n int) uint64 { return cost.Limit(n, limitGas) }}
	return deployer.Update{Chain: pc, Fits: min(byGas, byBytes), Limit: limit, Cap: spec.Cap, Gas: pc.Gas}, nil
}
