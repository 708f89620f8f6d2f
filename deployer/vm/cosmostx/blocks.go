package cosmostx

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/deployer/push"
)

// maxBlockScan bounds a search of the blocks for one tx.
const maxBlockScan = 5000

// FindInBlocks looks for a tx by hash in the blocks, from the latest back to the first
// committed before since (less a minute of clock skew), at most maxBlockScan blocks and none
// the node has pruned. CometBFT indexes a block's txs after committing it, so a node stopped
// in between never indexes them, and a lookup by hash misses a tx the chain holds: its
// result is then read from the block's results instead.
func (p *PushChain) FindInBlocks(ctx context.Context, hash string, since time.Time) (push.Outcome, error) {
	want, err := hex.DecodeString(hash)
	if err != nil {
		return push.Outcome{}, fmt.Errorf("find tx %s in blocks: the hash is not hex: %w", hash, err)
	}
	st, err := p.C.Node.Status(ctx)
	if err != nil {
		return push.Outcome{}, fmt.Errorf("find tx %s in blocks: %w", hash, err)
	}
	floor := since.Add(-time.Minute)
	for h, n := st.LatestHeight, 0; h >= max(st.EarliestHeight, 1) && n < maxBlockScan; h, n = h-1, n+1 {
		b, err := p.C.Node.Block(ctx, h)
		if err != nil {
			return push.Outcome{}, fmt.Errorf("find tx %s in blocks: %w", hash, err)
		}
		for i, tx := range b.Txs {
			if !bytes.Equal(cosmosnode.TxHash(tx), want) {
				continue
			}
			res, err := p.C.Node.BlockResults(ctx, h)
			if err != nil {
				return push.Outcome{}, fmt.Errorf("find tx %s in blocks: %w", hash, err)
			}
			if i >= len(res) {
				return push.Outcome{}, fmt.Errorf("find tx %s in blocks: block %d has %d txs but %d results", hash, h, len(b.Txs), len(res))
			}
			r := res[i]
			out := push.Outcome{Found: true, Success: r.Code == 0, GasUsed: uint64(max(r.GasUsed, 0)), Height: h}
			if !out.Success {
				out.Err = &TxError{Phase: PhaseDeliver, Hash: strings.ToUpper(hash), Height: int64(h), Codespace: r.Codespace, Code: r.Code, RawLog: r.Log}
				if p.Decode != nil {
					out.Err = p.Decode(out.Err)
				}
			}
			return out, nil
		}
		if b.Time.Before(floor) {
			break
		}
	}
	return push.Outcome{}, nil
}

// FirstBlock is the hash of the chain's first block (CometBFT's block 1): a chain started
// again under the same chain id has another, so what a state dir remembers of a chain can be
// told from a new one.
func (c *Client) FirstBlock(ctx context.Context) (string, error) {
	m, err := c.Node.BlockMeta(ctx, 1)
	if err != nil {
		return "", fmt.Errorf("read the first block: %w", err)
	}
	return hex.EncodeToString(m.Hash), nil
}

// FirstBlock is the chain's (Client.FirstBlock).
func (b *Base) FirstBlock(ctx context.Context) (string, error) { return b.C.FirstBlock(ctx) }
