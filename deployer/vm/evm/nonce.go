package evm

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// StuckNonceGrace is how long a sender's unmined txs may sit in the node's pool, with its
// mined nonce not moving, before deploy, scores update and stage finalize call its lowest
// nonce stuck instead of queueing behind it.
var StuckNonceGrace = 10 * time.Second

// StuckNonceError is a sender whose txs wait in the node's pool behind one the chain does
// not mine (a fee the node does not take, a tx its block builder skips): every tx sent now
// would queue behind it, so the command stops before sending instead of waiting without end.
type StuckNonceError struct {
	Sender common.Address
	// Nonce is the sender's mined nonce: the nonce of the tx that blocks; Pending is its
	// pending nonce (Nonce..Pending-1 wait in the pool).
	Nonce, Pending uint64
	// Waited is how long the mined nonce stood still.
	Waited time.Duration
	// Hash, GasFeeCap and GasTipCap describe the blocking tx when the node's txpool
	// namespace shows it (txpool_contentFrom); empty otherwise.
	Hash                 string
	GasFeeCap, GasTipCap *big.Int
	// GasPrice is the chain's eth_gasPrice, when it answered.
	GasPrice *big.Int
}

func (e *StuckNonceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s has %d tx(s) in the node's pool (nonces %d to %d) and none mined for %s: the tx at nonce %d blocks every later one",
		e.Sender.Hex(), e.Pending-e.Nonce, e.Nonce, e.Pending-1, e.Waited.Round(time.Second), e.Nonce)
	if e.Hash != "" {
		fmt.Fprintf(&b, " (tx %s, max fee per gas %s wei, tip %s wei)", e.Hash, e.GasFeeCap, e.GasTipCap)
	}
	feeCap, tip := e.ReplacementFees()
	fmt.Fprintf(&b, "; replace it with a tx from %s at nonce %d paying a max fee per gas of at least %s wei and a tip of at least %s wei, e.g. a 0-value transfer to itself",
		e.Sender.Hex(), e.Nonce, feeCap, tip)
	return b.String()
}

// ReplacementFees are fees a node takes as a replacement of the blocking tx: geth's pool
// wants both its fee cap and its tip raised by at least 10%, and the fee cap at least the
// chain's gas price (twice it, for a base fee that rises meanwhile).
func (e *StuckNonceError) ReplacementFees() (feeCap, tip *big.Int) {
	feeCap, tip = big.NewInt(1), big.NewInt(1)
	if e.GasPrice != nil {
		feeCap = new(big.Int).Mul(e.GasPrice, big.NewInt(2))
	}
	if e.GasFeeCap != nil {
		feeCap = bigMax(feeCap, raised(e.GasFeeCap))
	}
	if e.GasTipCap != nil {
		tip = bigMax(tip, raised(e.GasTipCap))
	}
	return bigMax(feeCap, tip), tip
}

// raised is x + 10% + 1.
func raised(x *big.Int) *big.Int {
	r := new(big.Int).Div(x, big.NewInt(10))
	return r.Add(r, x).Add(r, big.NewInt(1))
}

func bigMax(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

// checkStuckNonce returns a *StuckNonceError when from's pending nonce is above its mined
// nonce and the mined nonce does not move for StuckNonceGrace. A mined nonce that moves is a
// pool draining (txs of an interrupted run, another sender of the key): the command goes on.
func (s *Contract) checkStuckNonce(ctx context.Context, from common.Address) error {
	mined, err := s.client.NonceAt(ctx, from, nil)
	if err != nil {
		return fmt.Errorf("read the mined nonce of %s: %w", from.Hex(), err)
	}
	pending, err := s.client.PendingNonceAt(ctx, from)
	if err != nil {
		return fmt.Errorf("read the pending nonce of %s: %w", from.Hex(), err)
	}
	if pending <= mined {
		return nil
	}
	start := time.Now()
	poll := min(max(s.k.Poll, 100*time.Millisecond), time.Second)
	for time.Since(start) < StuckNonceGrace {
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the pool of %s to move (nonce %d mined, %d pending): %w", from.Hex(), mined, pending, ctx.Err())
		case <-time.After(poll):
		}
		now, err := s.client.NonceAt(ctx, from, nil)
		if err != nil {
			return fmt.Errorf("read the mined nonce of %s: %w", from.Hex(), err)
		}
		if now > mined {
			return nil
		}
	}
	e := &StuckNonceError{Sender: from, Nonce: mined, Pending: pending, Waited: time.Since(start)}
	if price, err := s.client.SuggestGasPrice(ctx); err == nil {
		e.GasPrice = price
	}
	s.describeStuck(ctx, e)
	return e
}

// describeStuck fills in the blocking tx from the node's txpool namespace, if it serves one.
func (s *Contract) describeStuck(ctx context.Context, e *StuckNonceError) {
	type poolTx struct {
		Hash                 common.Hash  `json:"hash"`
		GasPrice             *hexutil.Big `json:"gasPrice"`
		MaxFeePerGas         *hexutil.Big `json:"maxFeePerGas"`
		MaxPriorityFeePerGas *hexutil.Big `json:"maxPriorityFeePerGas"`
	}
	var content map[string]map[string]poolTx
	if err := s.client.RPC().CallContext(ctx, &content, "txpool_contentFrom", e.Sender); err != nil {
		return
	}
	tx, ok := content["pending"][fmt.Sprint(e.Nonce)]
	if !ok {
		return
	}
	e.Hash = tx.Hash.Hex()
	switch {
	case tx.MaxFeePerGas != nil:
		e.GasFeeCap, e.GasTipCap = tx.MaxFeePerGas.ToInt(), tx.MaxPriorityFeePerGas.ToInt()
	case tx.GasPrice != nil:
		e.GasFeeCap, e.GasTipCap = tx.GasPrice.ToInt(), tx.GasPrice.ToInt()
	}
	if e.GasFeeCap == nil || e.GasTipCap == nil {
		e.Hash, e.GasFeeCap, e.GasTipCap = "", nil, nil
	}
}
