package cosmostx

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

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
	st, err := p.C.RPC.Status(ctx)
	if err != nil {
		return push.Outcome{}, fmt.Errorf("find tx %s in blocks: status: %w", hash, err)
	}
	floor := since.Add(-time.Minute)
	for h, n := st.SyncInfo.LatestBlockHeight, 0; h >= max(st.SyncInfo.EarliestBlockHeight, 1) && n < maxBlockScan; h, n = h-1, n+1 {
		b, err := p.C.RPC.Block(ctx, &h)
		if err != nil {
			return push.Outcome{}, fmt.Errorf("find tx %s in blocks: block %d: %w", hash, h, err)
		}
		for i, tx := range b.Block.Txs {
			if !bytes.Equal(tx.Hash(), want) {
				continue
			}
			res, err := p.C.RPC.BlockResults(ctx, &h)
			if err != nil {
				return push.Outcome{}, fmt.Errorf("find tx %s in blocks: results of block %d: %w", hash, h, err)
			}
			if i >= len(res.TxsResults) {
				return push.Outcome{}, fmt.Errorf("find tx %s in blocks: block %d has %d txs but %d results", hash, h, len(b.Block.Txs), len(res.TxsResults))
			}
			r := res.TxsResults[i]
			out := push.Outcome{Found: true, Success: r.Code == 0, GasUsed: uint64(max(r.GasUsed, 0)), Height: uint64(h)}
			if !out.Success {
				out.Err = &TxError{Phase: PhaseDeliver, Hash: strings.ToUpper(hash), Height: h, Codespace: r.Codespace, Code: r.Code, RawLog: r.Log}
				if p.Decode != nil {
					out.Err = p.Decode(out.Err)
				}
			}
			return out, nil
		}
		if b.Block.Time.Before(floor) {
			break
		}
	}
	return push.Outcome{}, nil
}

// FirstBlock is the hash of the chain's first block (CometBFT's block 1): a chain started
// again under the same chain id has another, so what a state dir remembers of a chain can be
// told from a new one.
func (c *Client) FirstBlock(ctx context.Context) (string, error) {
	var reply struct {
		Result struct {
			BlockID struct {
				Hash string `json:"hash"`
			} `json:"block_id"`
		} `json:"result"`
		Error *struct {
			Data string `json:"data"`
		} `json:"error"`
	}
	if _, err := c.getRPC(ctx, c.rpcBase()+"/block?height=1", &reply); err != nil {
		return "", fmt.Errorf("read the first block: %w", err)
	}
	if reply.Error != nil || reply.Result.BlockID.Hash == "" {
		return "", fmt.Errorf("read the first block: no block 1 (%v)", reply.Error)
	}
	return strings.ToLower(reply.Result.BlockID.Hash), nil
}

// FirstBlock is the chain's (Client.FirstBlock).
func (b *Base) FirstBlock(ctx context.Context) (string, error) { return b.C.FirstBlock(ctx) }
