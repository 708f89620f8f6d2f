package cosmostx

import (
	"context"
	"errors"
	"fmt"
	"strings"

	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"

	"github.com/vipharness/vipharness/deployer/push"
)

// The push loop's view of a Cosmos chain: broadcasts whose refusals are push.Rejected, and
// lookups by hash. A VM's push.Chain adds the message it signs.

// BroadcastSigned hands signed tx bytes to the node with broadcast_tx_sync. A tx the node
// already holds ("tx already exists in cache") is not an error; a CheckTx refusal or a
// JSON-RPC error object is wrapped with push.Rejected; a transport error is returned as is,
// since the node may or may not have the tx.
func (c *Client) BroadcastSigned(ctx context.Context, raw []byte) error {
	res, err := c.Broadcast(ctx, raw)
	if err != nil {
		if strings.Contains(err.Error(), "tx already exists in cache") {
			return nil
		}
		var rpcErr *rpctypes.RPCError
		if errors.As(err, &rpcErr) {
			return push.Rejected(err)
		}
		return err
	}
	if res.Code != 0 {
		return push.Rejected(&TxError{Phase: PhaseCheck, Hash: res.Hash.String(), Codespace: res.Codespace, Code: res.Code, RawLog: res.Log})
	}
	return nil
}

// Lookup reports what the chain knows of a tx hash; a failed tx carries a *TxError.
func (c *Client) Lookup(ctx context.Context, hash string) (push.Outcome, error) {
	res, err := c.GetTx(ctx, hash)
	if NotFound(err) {
		return push.Outcome{}, nil
	}
	if err != nil {
		return push.Outcome{}, fmt.Errorf("get tx %s: %w", hash, err)
	}
	out := push.Outcome{Found: true, Success: res.Code == 0, GasUsed: uint64(max(res.GasUsed, 0)), Height: uint64(max(res.Height, 0))}
	if !out.Success {
		out.Err = txError(PhaseDeliver, res)
	}
	return out, nil
}

// Limits are the chain's consensus limits on a block.
type Limits struct {
	MaxBlockGas   int64 // -1: no limit
	MaxBlockBytes int64
}

// BlockLimits reads the consensus parameters that bound one tx. CometBFT can answer "latest"
// in the moment before it has stored the new height's parameters ("could not find
// consensus params for height #N"), so the height is explicit and the one before is the
// fallback.
func (c *Client) BlockLimits(ctx context.Context) (Limits, error) {
	st, err := c.RPC.Status(ctx)
	if err != nil {
		return Limits{}, fmt.Errorf("read consensus params: status: %w", err)
	}
	h := st.SyncInfo.LatestBlockHeight
	res, err := c.RPC.ConsensusParams(ctx, &h)
	if err != nil && h > 1 {
		h--
		res, err = c.RPC.ConsensusParams(ctx, &h)
	}
	if err != nil {
		return Limits{}, fmt.Errorf("read consensus params at height %d: %w", h, err)
	}
	return Limits{MaxBlockGas: res.ConsensusParams.Block.MaxGas, MaxBlockBytes: res.ConsensusParams.Block.MaxBytes}, nil
}
