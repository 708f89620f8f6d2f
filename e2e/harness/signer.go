package harness

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/localnet/container"
	"github.com/vipharness/vipharness/localnet/process"
)

// KeyType is the Cosmos key kind software keys take on this Env's chain: eth_secp256k1 on
// EVM and Move, secp256k1 on Wasm (wasmd knows no other).
func (e *Env) KeyType() keys.KeyType {
	if e.Target.VM == deployer.Wasm {
		return keys.Secp256k1
	}
	return keys.EthSecp256k1
}

// LedgerCapable reports whether the chain takes Ledger-signed txs: every EVM chain, and Cosmos
// chains that know Initia's eth_secp256k1 and SIGN_MODE_EIP_191 (our dev nodes, as minimove
// and miniwasm); wasmd knows neither.
func (e *Env) LedgerCapable() bool {
	if e.Target.VM != deployer.Wasm {
		return true
	}
	switch eng := e.Target.Engine.(type) {
	case process.Engine:
		return eng.WasmNode == process.DevNode
	case container.Engine:
		return eng.WasmNode == process.DevNode
	}
	return true
}

// Fund sends the funded operator's coins to a signer's account: 10 native tokens on EVM, fees
// for a few million gas on Cosmos chains.
func (e *Env) Fund(ctx context.Context, to keys.Signer) error {
	if e.Target.VM == deployer.EVM {
		from, err := keys.FromHex(fmt.Sprintf("%x", e.operator))
		if err != nil {
			return err
		}
		c, err := ethclient.DialContext(ctx, e.Rollup.Endpoints().JSONRPC)
		if err != nil {
			return err
		}
		defer c.Close()
		id, err := c.ChainID(ctx)
		if err != nil {
			return err
		}
		unlock, err := lockFunder(ctx, from.Address().Hex())
		if err != nil {
			return err
		}
		defer unlock()
		nonce, err := c.PendingNonceAt(ctx, from.Address())
		if err != nil {
			return err
		}
		tip, err := c.SuggestGasTipCap(ctx)
		if err != nil {
			return err
		}
		head, err := c.HeaderByNumber(ctx, nil)
		if err != nil {
			return err
		}
		fee := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
		addr := to.Address()
		value := new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18))
		tx, err := types.SignNewTx(from.PrivateKey(), types.LatestSignerForChainID(id), &types.DynamicFeeTx{
			ChainID: id, Nonce: nonce, GasTipCap: tip, GasFeeCap: fee, Gas: 21_000, To: &addr, Value: value})
		if err != nil {
			return err
		}
		if err := c.SendTransaction(ctx, tx); err != nil {
			return fmt.Errorf("fund %s: %w", addr.Hex(), err)
		}
		for {
			if rc, err := c.TransactionReceipt(ctx, tx.Hash()); err == nil {
				if rc.Status != types.ReceiptStatusSuccessful {
					return fmt.Errorf("fund %s: transfer failed", addr.Hex())
				}
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return e.fundCosmos(ctx, e.operator, e.chain.Address(to.PubKey()), 60_000_000)
}

// ScorerSigning opens a Scorer whose deployer and operator sign with s, attached to contract
// if set.
func (e *Env) ScorerSigning(ctx context.Context, s keys.Signer, contract string, k ...Knob) (deployer.Scorer, error) {
	return e.scorerWith(ctx, nil, s, contract, k...)
}
