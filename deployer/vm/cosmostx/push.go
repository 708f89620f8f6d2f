package cosmostx

import (
	"context"
	"errors"
	"fmt"
	"strings"

	cmttypes "github.com/cometbft/cometbft/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/nodehttp"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
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
		var rpcErr *nodehttp.RPCError
		if errors.As(err, &rpcErr) {
			return push.Rejected(err)
		}
		return err
	}
	if res.Code != 0 {
		return push.Rejected(&TxError{Phase: PhaseCheck, Hash: res.Hash, Codespace: res.Codespace, Code: res.Code, RawLog: res.Log})
	}
	return nil
}

// Lookup reports what the chain knows of a tx hash; a failed tx carries a *TxError. It keeps
// only the result code, log, gas and height (see txResult): a chunk's result holds one event
// per address, which the REST GetTx would decode (tx body and every event, through the proto
// JSON codec) only to be thrown away.
func (c *Client) Lookup(ctx context.Context, hash string) (push.Outcome, error) {
	res, err := c.txResult(ctx, hash)
	if err != nil {
		return push.Outcome{}, fmt.Errorf("get tx %s: %w", hash, err)
	}
	if res == nil {
		return push.Outcome{}, nil
	}
	out := push.Outcome{Found: true, Success: res.Code == 0, GasUsed: uint64(max(res.GasUsed, 0)), Height: uint64(max(res.Height, 0))}
	if !out.Success {
		out.Err = txError(PhaseDeliver, res)
	}
	return out, nil
}

// Limits are the chain's consensus limits on a block.
type Limits = cosmosnode.Limits

// BlockLimits reads the consensus parameters that bound one tx. CometBFT can answer "latest"
// in the moment before it has stored the new height's parameters ("could not find
// consensus params for height #N"), so the height is explicit and the one before is the
// fallback.
func (c *Client) BlockLimits(ctx context.Context) (Limits, error) {
	h, err := c.Node.LatestHeight(ctx)
	if err != nil {
		return Limits{}, fmt.Errorf("read consensus params: %w", err)
	}
	l, err := c.Node.Limits(ctx, h)
	if err != nil && h > 1 {
		l, err = c.Node.Limits(ctx, h-1)
	}
	if err != nil {
		return Limits{}, fmt.Errorf("read consensus params: %w", err)
	}
	return l, nil
}

// PushChain is a push.Chain for one signer of a Cosmos chain: chunk txs built by Msg, signed
// at explicit sequences with the gas limit Gas gives for a chunk's size; Decode, when set,
// turns a failed tx's error into the VM's own (a contract error, a Move abort).
type PushChain struct {
	C      *Client
	Signer *Signer
	Msgs   Messages
	Gas    func(n int) uint64
	Decode func(error) error
}

var _ push.Chain = (*PushChain)(nil)

// Sequence is the account's committed sequence: the REST face cannot see the mempool, and
// the push loop starts past any tx it still has in flight.
func (p *PushChain) Sequence(ctx context.Context) (uint64, error) { return p.Committed(ctx) }

// Committed is the account's sequence as the last block left it.
func (p *PushChain) Committed(ctx context.Context) (uint64, error) {
	_, seq, err := p.C.Account(ctx, p.Signer.Address)
	return seq, err
}

// Sign signs the chunk's message at seq.
func (p *PushChain) Sign(ctx context.Context, stage uint64, chunk scores.Chunk, seq uint64) (push.SignedTx, error) {
	msg, err := p.Msgs.UpdateMsg(p.Signer.Address, stage, chunk)
	if err != nil {
		return push.SignedTx{}, err
	}
	raw, err := p.C.SignAt(ctx, p.Signer, seq, p.Gas(chunk.Len()), msg)
	if err != nil {
		return push.SignedTx{}, fmt.Errorf("sign %s: %w", sdk.MsgTypeURL(msg), err)
	}
	return push.SignedTx{Hash: fmt.Sprintf("%X", cmttypes.Tx(raw).Hash()), Raw: raw, Sequence: seq}, nil
}

// Broadcast is BroadcastSigned, except that a refusal a node gives only in the moments after
// a restart is not a refusal (see restartRefusal).
func (p *PushChain) Broadcast(ctx context.Context, tx push.SignedTx) error {
	err := p.C.BroadcastSigned(ctx, tx.Raw)
	if restartRefusal(err, p.Signer.Number) {
		return fmt.Errorf("%w: %w", ErrNodeRestarting, errors.Unwrap(err))
	}
	return err
}

// ErrNodeRestarting is a node that has restarted and not yet committed a block: it cannot
// check a tx yet, and the push asks again.
var ErrNodeRestarting = errors.New("the node has restarted and not committed a block since; it checks txs as at height 0")

// restartRefusal reports a CheckTx refusal that says nothing about the tx. A Cosmos SDK node
// checks txs against a height-0 state from its restart until its first new commit, and at
// height 0 the signature is verified with account number 0 (the genesis rule): every tx
// of an account whose number is not 0 fails with "signature verification failed; please
// verify account number (0)". The same bytes pass once a block is committed.
func restartRefusal(err error, accountNumber uint64) bool {
	var te *TxError
	if accountNumber == 0 || !push.IsRejected(err) || !errors.As(err, &te) {
		return false
	}
	return te.Phase == PhaseCheck && te.Codespace == "sdk" && te.Code == 4 && strings.Contains(te.RawLog, "account number (0)")
}

// Lookup is Client.Lookup with the failure decoded. A node that does not index txs refuses
// the lookup: asking again cannot help.
func (p *PushChain) Lookup(ctx context.Context, hash string) (push.Outcome, error) {
	out, err := p.C.Lookup(ctx, hash)
	if errors.Is(err, ErrTxIndexDisabled) {
		return out, push.Rejected(err)
	}
	if out.Err != nil && p.Decode != nil {
		out.Err = p.Decode(out.Err)
	}
	return out, err
}
