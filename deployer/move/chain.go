package move

import (
	"context"
	"fmt"

	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/cosmostx"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
)

// pushChain adapts the module to the shared push loop: update_score_script txs signed by the
// operator at explicit sequences with a gas limit from the simulated cost model.
type pushChain struct {
	s      *Scorer
	op     *cosmostx.Signer
	cost   deployer.GasModel
	gasCap uint64
}

var _ push.Chain = (*pushChain)(nil)

// Sequence is the account's committed sequence: the REST face cannot see the mempool, and
// the push loop starts past any tx it still has in flight.
func (c *pushChain) Sequence(ctx context.Context) (uint64, error) { return c.Committed(ctx) }

func (c *pushChain) Committed(ctx context.Context) (uint64, error) {
	_, seq, err := c.s.c.Account(ctx, c.op.Address)
	return seq, err
}

func (c *pushChain) Sign(ctx context.Context, stage uint64, chunk []scores.Entry, seq uint64) (push.SignedTx, error) {
	msg, err := c.s.updateMsg(c.op.Address, stage, chunk)
	if err != nil {
		return push.SignedTx{}, err
	}
	raw, err := c.s.c.SignAt(ctx, c.op, seq, c.cost.Limit(len(chunk), c.gasCap), msg)
	if err != nil {
		return push.SignedTx{}, fmt.Errorf("sign update_score_script: %w", err)
	}
	return push.SignedTx{Hash: fmt.Sprintf("%X", cmttypes.Tx(raw).Hash()), Raw: raw, Sequence: seq}, nil
}

func (c *pushChain) Broadcast(ctx context.Context, tx push.SignedTx) error {
	return c.s.c.BroadcastSigned(ctx, tx.Raw)
}

func (c *pushChain) Lookup(ctx context.Context, hash string) (push.Outcome, error) {
	out, err := c.s.c.Lookup(ctx, hash)
	if out.Err != nil {
		out.Err = DecodeAbort(out.Err)
	}
	return out, err
}
