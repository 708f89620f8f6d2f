package evm

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// settleTimeout bounds the wait for the state a receipt promises. Initia's minievm serves
// receipts and eth_blockNumber from its EVM indexer, which it feeds before the block's state
// commits: a read right after a receipt can still see the state before it.
const settleTimeout = 15 * time.Second

// awaitState polls read until it reports the state a mined tx promised, or settleTimeout
// passes; the error then names what was awaited and what was last read.
func (s *Contract) awaitState(ctx context.Context, what string, read func(context.Context) (bool, string, error)) error {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	poll := min(s.k.Poll, 200*time.Millisecond)
	if poll <= 0 {
		poll = 50 * time.Millisecond
	}
	for {
		ok, saw, err := read(ctx)
		if err == nil && ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				saw = err.Error()
			}
			return fmt.Errorf("%s: mined, but the node's state does not show it after %s (last read: %s)", what, settleTimeout, saw)
		case <-time.After(poll):
		}
	}
}

// Settle waits until the contract's state shows addr at score in stage: a push's last entry,
// so that what follows it (a read-back, a finalize) meets the state its receipts promised.
//
// The entry alone can show its score before the push (a re-push of a set whose last entry
// did not change), so the state must first show every tx of the push: the operator's nonce
// at the state reaches its pending nonce, which does not lag.
func (s *Contract) Settle(ctx context.Context, stage uint64, addr []byte, score uint64) error {
	a := common.BytesToAddress(addr)
	var from common.Address
	var sent uint64
	if s.operatorKey != nil {
		from = s.operatorKey.Address()
		var err error
		if sent, err = s.client.PendingNonceAt(ctx, from); err != nil {
			return fmt.Errorf("read the pending nonce of %s: %w", from.Hex(), err)
		}
	}
	return s.awaitState(ctx, fmt.Sprintf("update of stage %d", stage), func(ctx context.Context) (bool, string, error) {
		if sent > 0 {
			next, err := s.client.NonceAt(ctx, from, nil)
			if err != nil {
				return false, "", err
			}
			if next < sent {
				return false, fmt.Sprintf("%s's nonce %d, its txs sent %d", from.Hex(), next, sent), nil
			}
		}
		out, err := s.call(ctx, s.binding.PackScores(stage, a))
		if err != nil {
			return false, "", err
		}
		got, err := s.binding.UnpackScores(out)
		if err != nil {
			return false, "", err
		}
		return got.IsIndexed && got.Amount == score, fmt.Sprintf("%s at %d (indexed %v), want %d", a.Hex(), got.Amount, got.IsIndexed, score), nil
	})
}

// settleFinalize waits until stage reads finalized and the state shows the finalize tx
// itself (from's nonce past nonce): a stage finalized before reads so at once, and what a
// re-finalize did (or did not do) to the next stage shows only with its own tx.
func (s *Contract) settleFinalize(ctx context.Context, stage uint64, from common.Address, nonce uint64) error {
	return s.awaitState(ctx, fmt.Sprintf("finalize of stage %d", stage), func(ctx context.Context) (bool, string, error) {
		next, err := s.client.NonceAt(ctx, from, nil)
		if err != nil {
			return false, "", err
		}
		if next <= nonce {
			return false, fmt.Sprintf("%s's nonce %d, the finalize's %d", from.Hex(), next, nonce), nil
		}
		info, err := s.StageInfo(ctx, stage)
		if err != nil {
			return false, "", err
		}
		return info.Finalized, fmt.Sprintf("stage %d finalized %v", stage, info.Finalized), nil
	})
}

// FirstBlock is the hash of the chain's genesis block: a chain started again under the same
// chain id has another (a new dev account, a new genesis time).
func (s *Contract) FirstBlock(ctx context.Context) (string, error) {
	h, err := s.client.HeaderByNumber(ctx, common.Big0)
	if err != nil {
		return "", fmt.Errorf("read the genesis block: %w", err)
	}
	return strings.ToLower(h.Hash().Hex()), nil
}
