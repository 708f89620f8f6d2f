package router

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/vipharness/vipharness/bindings/ethnode"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// ChainTx is a transaction as a chain reports it.
type ChainTx struct {
	Hash    string
	From    string
	To      string
	Value   *big.Int
	Data    []byte
	Success bool
	Time    time.Time // block time; zero if unknown
}

// TxSource finds transactions on one chain. TxByHash returns found=false while the chain
// has no receipt for the hash (unknown or still pending).
type TxSource interface {
	TxByHash(ctx context.Context, hash string) (tx ChainTx, found bool, err error)
}

// rpcSource reads an EVM chain through JSON-RPC.
type rpcSource struct {
	c *ethnode.Client
}

func dialRPC(ctx context.Context, chainID, url string) (*rpcSource, error) {
	c, err := ethnode.Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("router: chain %s: dial %s: %w", chainID, url, err)
	}
	id, err := c.ChainID(ctx)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("router: chain %s: eth_chainId at %s: %w", chainID, url, err)
	}
	if want, ok := new(big.Int).SetString(chainID, 10); ok && want.Cmp(id) != 0 {
		c.Close()
		return nil, fmt.Errorf("router: chain %s: the node at %s is chain %s", chainID, url, id)
	}
	return &rpcSource{c: c}, nil
}

func (s *rpcSource) TxByHash(ctx context.Context, hash string) (ChainTx, bool, error) {
	h := common.HexToHash(hash)
	rc, err := s.c.TransactionReceipt(ctx, h)
	if ethnode.ReceiptPending(err) {
		return ChainTx{}, false, nil // geth has not indexed it yet: not found for now
	}
	if err != nil {
		return ChainTx{}, false, err
	}
	tx, _, err := s.c.TransactionByHash(ctx, h)
	if err != nil {
		return ChainTx{}, false, err
	}
	out := ChainTx{Hash: h.Hex(), Value: tx.Value(), Data: tx.Data(), Success: rc.Status == types.ReceiptStatusSuccessful}
	if tx.To() != nil {
		out.To = tx.To().Hex()
	}
	if from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx); err == nil {
		out.From = from.Hex()
	}
	if hd, err := s.c.HeaderByHash(ctx, rc.BlockHash); err == nil {
		out.Time = time.Unix(int64(hd.Time), 0).UTC()
	}
	return out, true, nil
}

func (s *rpcSource) close() { s.c.Close() }
