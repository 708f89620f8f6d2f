package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/vipharness/vipharness/bindings/ethnode"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
)

// pushChain adapts the contract to the shared push loop: updateScores txs signed by the
// operator with explicit nonces and a gas limit from the measured cost model.
type pushChain struct {
	s       *Contract
	key     keys.Signer
	from    common.Address
	cost    deployer.GasModel
	tip     *big.Int
	feeCap  *big.Int
	txGasOK uint64
}

var _ push.Chain = (*pushChain)(nil)

func (c *pushChain) Sequence(ctx context.Context) (uint64, error) {
	return c.s.client.PendingNonceAt(ctx, c.from)
}

func (c *pushChain) Committed(ctx context.Context) (uint64, error) {
	return c.s.client.NonceAt(ctx, c.from, nil)
}

func (c *pushChain) Sign(ctx context.Context, stage uint64, chunk scores.Chunk, seq uint64) (push.SignedTx, error) {
	addrs, amounts := splitEntries(chunk)
	data, err := c.s.binding.TryPackUpdateScores(stage, addrs, amounts)
	if err != nil {
		return push.SignedTx{}, fmt.Errorf("pack updateScores: %w", err)
	}
	to := c.s.contract
	tx, err := c.key.SignEVMTx(ctx, types.NewTx(&types.DynamicFeeTx{
		ChainID:   c.s.chainID,
		Nonce:     seq,
		GasTipCap: c.tip,
		GasFeeCap: c.feeCap,
		Gas:       c.cost.Limit(chunk.Len(), c.txGasOK),
		To:        &to,
		Data:      data,
	}), c.s.chainID)
	if err != nil {
		return push.SignedTx{}, fmt.Errorf("sign updateScores chunk at nonce %d: %w", seq, err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return push.SignedTx{}, fmt.Errorf("encode tx: %w", err)
	}
	return push.SignedTx{Hash: tx.Hash().Hex(), Raw: raw, Sequence: seq}, nil
}

func (c *pushChain) Broadcast(ctx context.Context, stx push.SignedTx) error {
	return c.s.broadcast(ctx, stx.Raw)
}

// Lookup reads the tx's receipt (its logs skipped); a tx not in a block is not looked for
// in the pool here (that downloads the whole tx, calldata and all): see InPool.
func (c *pushChain) Lookup(ctx context.Context, hash string) (push.Outcome, error) {
	return c.s.lookup(ctx, common.HexToHash(hash))
}

// InPool reports whether the node holds the tx unmined.
func (c *pushChain) InPool(ctx context.Context, hash string) (bool, error) {
	return c.s.inPool(ctx, hash)
}

// inPool reports whether the node holds the tx unmined (downloading the whole tx).
func (s *Contract) inPool(ctx context.Context, hash string) (bool, error) {
	_, pending, err := s.client.TransactionByHash(ctx, common.HexToHash(hash))
	if ethnode.ReceiptPending(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("get tx %s: %w", hash, err)
	}
	return pending, nil
}

func splitEntries(chunk scores.Chunk) ([]common.Address, []uint64) {
	addrs := make([]common.Address, chunk.Len())
	amounts := make([]uint64, chunk.Len())
	for i := range addrs {
		bz, amount := chunk.At(i)
		addrs[i], amounts[i] = common.BytesToAddress(bz), amount
	}
	return addrs, amounts
}

// broadcast sends a signed tx; a tx the node already holds is not an error.
func (s *Contract) broadcast(ctx context.Context, raw []byte) error {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return fmt.Errorf("decode signed tx: %w", err)
	}
	err := s.client.SendTransaction(ctx, tx)
	if err == nil || strings.Contains(err.Error(), "already known") {
		return nil
	}
	// A JSON-RPC error object is the node's answer (nonce too low, underpriced, ...): the
	// tx is not in its pool. Anything else (refused connection, reset) leaves that open.
	var rpcErr rpc.Error
	if !errors.As(err, &rpcErr) {
		return err
	}
	if rpcErr.Error() == fmt.Sprintf("json-rpc error %d", rpcErr.ErrorCode()) { // go-ethereum's words for an empty message
		// A minievm answers a tx its mempool already holds with no words at all (the SDK's
		// code for a tx in the mempool's cache has no log), as it does a full mempool or a
		// tx too large: the tx itself says which.
		if _, _, lookErr := s.client.TransactionByHash(ctx, tx.Hash()); lookErr == nil {
			return nil
		}
		return push.Rejected(fmt.Errorf("the node refused tx %s without a reason (a minievm's answer for a full mempool or a tx too large) and does not know it: %w", tx.Hash(), err))
	}
	return push.Rejected(err)
}

// lookup reports a tx's outcome from its receipt's status, gas and block only (a chunk's
// receipt carries one log per address, which the push has no use for); for a failed tx it
// replays the call at the parent block to recover the revert data, because receipts carry
// none.
func (s *Contract) lookup(ctx context.Context, hash common.Hash) (push.Outcome, error) {
	rc, err := s.client.Receipt(ctx, hash)
	if ethnode.ReceiptPending(err) {
		return push.Outcome{}, nil
	}
	if err != nil {
		return push.Outcome{}, fmt.Errorf("get receipt %s: %w", hash, err)
	}
	if rc.BlockNumber == nil {
		return push.Outcome{}, fmt.Errorf("get receipt %s: the node's receipt names no block", hash)
	}
	out := push.Outcome{Found: true, GasUsed: uint64(rc.GasUsed), Height: rc.BlockNumber.ToInt().Uint64()}
	if uint64(rc.Status) == types.ReceiptStatusSuccessful {
		out.Success = true
		return out, nil
	}
	out.Err = s.replayFailure(ctx, hash, uint64(rc.GasUsed), rc.BlockNumber.ToInt())
	return out, nil
}

func (s *Contract) replayFailure(ctx context.Context, hash common.Hash, gasUsed uint64, block *big.Int) error {
	tx, _, err := s.client.TransactionByHash(ctx, hash)
	if err != nil {
		return fmt.Errorf("tx failed (status 0x0); fetch it to decode: %w", err)
	}
	from, err := types.Sender(types.LatestSignerForChainID(s.chainID), tx)
	if err != nil {
		return fmt.Errorf("tx failed (status 0x0); recover sender: %w", err)
	}
	if gasUsed >= tx.Gas() {
		return fmt.Errorf("tx failed (status 0x0): out of gas (limit %d)", tx.Gas())
	}
	parent := new(big.Int).Sub(block, big.NewInt(1))
	_, err = s.client.CallContract(ctx, ethereum.CallMsg{From: from, To: tx.To(), Gas: tx.Gas(), Data: tx.Data()}, parent)
	if err == nil {
		return errors.New("tx failed (status 0x0); replay at the parent block succeeds, so an earlier tx in its block changed the outcome")
	}
	return s.revertOf(ctx, from, tx.To(), tx.Data(), err)
}

// probeAddress makes distinct throwaway addresses for gas estimation.
func probeAddress(i int) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("vipharness-gas-probe-%d", i)))[12:])
}
