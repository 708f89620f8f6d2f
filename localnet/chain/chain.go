// Package chain is the plumbing callers need on a local rollup of any VM (height, sequences,
// funding, waiting for a tx), so that they never ask which VM it is. It is its own package
// so that the engines' root package links no deployer.
package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scorers"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet"
)

// Chain is the plumbing callers need on a rollup of any VM, so that they never ask which VM
// it is: its height, an account's address, sequence (nonce) and funding. It drives the
// rollup's EVM JSON-RPC (go-ethereum) or its Cosmos faces (deployer/vm/cosmostx), one path each.
type Chain struct {
	spec   deployer.Spec
	eth    *ethclient.Client // EVM
	cosmos *cosmostx.Client  // Move, Wasm
	poll   time.Duration
}

// Dial dials r's faces.
func Dial(ctx context.Context, r localnet.Rollup) (*Chain, error) {
	vm, ep := r.VM(), r.Endpoints()
	spec, err := scorers.Describe(vm)
	if err != nil {
		return nil, err
	}
	c := &Chain{spec: spec, poll: 20 * time.Millisecond}
	if spec.Cosmos {
		if c.cosmos, err = cosmostx.Dial(ctx, ep.CometRPC, ep.REST, cosmostx.WithMessages(initiamove.RegisterInterfaces)); err != nil {
			return nil, fmt.Errorf("dial %s rollup: %w", vm, err)
		}
		return c, nil
	}
	if c.eth, err = ethclient.DialContext(ctx, ep.JSONRPC); err != nil {
		return nil, fmt.Errorf("dial %s rollup: %w", vm, err)
	}
	return c, nil
}

// Close frees the clients.
func (c *Chain) Close() {
	if c.eth != nil {
		c.eth.Close()
	}
}

// Spec is the rollup's VM Spec.
func (c *Chain) Spec() deployer.Spec { return c.spec }

// Cosmos is the Cosmos client of a Move or Wasm rollup, nil on EVM.
func (c *Chain) Cosmos() *cosmostx.Client { return c.cosmos }

// Height is the latest block height.
func (c *Chain) Height(ctx context.Context) (uint64, error) {
	if c.cosmos == nil {
		return c.eth.BlockNumber(ctx)
	}
	st, err := c.cosmos.RPC.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("read the height: %w", err)
	}
	return uint64(st.SyncInfo.LatestBlockHeight), nil
}

// Address is s's account address as the chain writes it: 0x hex on EVM, bech32 with the
// chain's prefix on a Cosmos rollup.
func (c *Chain) Address(s keys.Signer) (string, error) {
	if c.cosmos == nil {
		return s.Address().Hex(), nil
	}
	return bech32.ConvertAndEncode(c.cosmos.Prefix(), s.Address().Bytes())
}

// Sequence is how many txs the account at addr has had included (the pending nonce on EVM,
// the account's sequence on a Cosmos rollup).
func (c *Chain) Sequence(ctx context.Context, addr string) (uint64, error) {
	if c.cosmos == nil {
		return c.eth.PendingNonceAt(ctx, common.HexToAddress(addr))
	}
	_, seq, err := c.cosmos.Account(ctx, addr)
	return seq, err
}

// Fund sends from's coins to the account at to, enough for gas at twice the chain's price,
// and waits until the transfer is in a block. A Cosmos transfer that meets a stale sequence
// (another sender of the same key) is signed again, up to five times.
func (c *Chain) Fund(ctx context.Context, from keys.Signer, to string, gas uint64) error {
	if c.cosmos == nil {
		return c.fundEVM(ctx, from, common.HexToAddress(to), gas)
	}
	for attempt := 1; ; attempt++ {
		s, err := c.cosmos.SignerOf(ctx, from)
		if err != nil {
			return fmt.Errorf("funding account: %w", err)
		}
		err = c.cosmos.Fund(ctx, s, to, c.cosmos.FeeFunds(2*gas))
		var txErr *cosmostx.TxError
		if err == nil || attempt == 5 || !errors.As(err, &txErr) || txErr.Codespace != "sdk" || txErr.Code != 32 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
}

func (c *Chain) fundEVM(ctx context.Context, from keys.Signer, to common.Address, gas uint64) error {
	id, err := c.eth.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("fund %s: %w", to.Hex(), err)
	}
	// A sender's balance is checked against gas limit × fee cap, and senders here cap at
	// tip + 2 × base fee (deployer/vm/evm): fund what gas costs at that cap, twice over.
	tip, err := c.eth.SuggestGasTipCap(ctx)
	if err != nil {
		return fmt.Errorf("fund %s: %w", to.Hex(), err)
	}
	head, err := c.eth.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("fund %s: %w", to.Hex(), err)
	}
	feeCap := new(big.Int).Set(tip)
	if head.BaseFee != nil {
		feeCap.Add(feeCap, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	}
	nonce, err := c.eth.PendingNonceAt(ctx, from.Address())
	if err != nil {
		return fmt.Errorf("fund %s: %w", to.Hex(), err)
	}
	value := new(big.Int).Mul(new(big.Int).Mul(feeCap, big.NewInt(2)), new(big.Int).SetUint64(gas))
	tx, err := from.SignEVMTx(ctx, types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21_000, To: &to, Value: value}), id)
	if err != nil {
		return fmt.Errorf("fund %s: sign: %w", to.Hex(), err)
	}
	if err := c.eth.SendTransaction(ctx, tx); err != nil {
		return fmt.Errorf("fund %s: %w", to.Hex(), err)
	}
	rc, err := c.waitMined(ctx, tx.Hash())
	if err != nil {
		return fmt.Errorf("fund %s: %w", to.Hex(), err)
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		return fmt.Errorf("fund %s: transfer %s failed", to.Hex(), tx.Hash().Hex())
	}
	return nil
}

// waitMined polls for the receipt of hash until it is mined or ctx ends.
func (c *Chain) waitMined(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	for {
		if rc, err := c.eth.TransactionReceipt(ctx, hash); err == nil {
			return rc, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for %s: %w", hash.Hex(), ctx.Err())
		case <-time.After(c.poll):
		}
	}
}
