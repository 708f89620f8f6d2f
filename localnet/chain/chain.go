// Package chain is the plumbing callers need on a local rollup of any VM (height, sequences,
// funding, waiting for a tx), so that they never ask which VM it is. It is its own package
// so that the engines' root package links no deployer.
package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"time"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/vipharness/vipharness/bindings/ethnode"
	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet"
)

// Chain is the plumbing callers need on a rollup of any VM, so that they never ask which VM
// it is: its height, an account's address, sequence (nonce) and funding. It drives the
// rollup's EVM JSON-RPC (go-ethereum) or its Cosmos faces (deployer/vm/cosmostx), one path each.
type Chain struct {
	spec   vip.Spec
	eth    *ethnode.Client  // EVM
	cosmos *cosmostx.Client // Move, Wasm
	poll   time.Duration
}

// Dial dials r's faces.
func Dial(ctx context.Context, r localnet.Rollup) (*Chain, error) {
	vm, ep := r.VM(), r.Endpoints()
	spec, err := vip.Describe(vm)
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
	if c.eth, err = ethnode.Dial(ctx, ep.JSONRPC); err != nil {
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
func (c *Chain) Spec() vip.Spec { return c.spec }

// Cosmos is the Cosmos client of a Move or Wasm rollup, nil on EVM.
func (c *Chain) Cosmos() *cosmostx.Client { return c.cosmos }

// Height is the latest block height.
func (c *Chain) Height(ctx context.Context) (uint64, error) {
	if c.cosmos == nil {
		return c.eth.BlockNumber(ctx)
	}
	st, err := c.cosmos.Node.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("read the height: %w", err)
	}
	return st.LatestHeight, nil
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
// and waits until the transfer is in a block.
func (c *Chain) Fund(ctx context.Context, from keys.Signer, to string, gas uint64) error {
	if c.cosmos == nil {
		return c.fundEVM(ctx, from, common.HexToAddress(to), gas)
	}
	return c.fundCosmos(ctx, from, to, c.cosmos.FeeFunds(2*gas))
}

// fundTries bounds the tries of a Cosmos transfer whose outcome was lost or refused for a
// reason that passes (a stale sequence, a dropped connection).
const fundTries = 5

// fundCosmos sends amount to the account at to with a bank transfer. A try that fails for a
// passing reason is tried again, a second apart; before each new try the recipient's balance
// tells whether the last one landed after all, so the account is funded once.
func (c *Chain) fundCosmos(ctx context.Context, from keys.Signer, to string, amount sdk.Coins) error {
	denom := amount[0].Denom
	before, err := c.cosmosBalance(ctx, to, denom)
	if err != nil {
		return fmt.Errorf("fund %s: %w", to, err)
	}
	for try := 1; ; try++ {
		s, err := c.cosmos.SignerOf(ctx, from)
		if err == nil {
			err = c.cosmos.Fund(ctx, s, to, amount)
		}
		if err == nil {
			return nil
		}
		if try == fundTries || !passing(err) {
			return fmt.Errorf("funding account (try %d of %d): %w", try, fundTries, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("funding account: %w (after %v)", ctx.Err(), err)
		case <-time.After(time.Second):
		}
		if now, berr := c.cosmosBalance(ctx, to, denom); berr == nil && now.Sub(before).GTE(amount[0].Amount) {
			return nil // the lost try landed
		}
	}
}

// passing reports whether a failed transfer may succeed when tried again: anything but the
// chain's own refusal of the tx (a simulation, CheckTx or delivery that failed for what the
// tx is), except a stale sequence, which another sender of the key or a tx still in the
// mempool causes.
func passing(err error) bool {
	var te *cosmostx.TxError
	if !errors.As(err, &te) {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	if te.Codespace == "sdk" && te.Code == 32 {
		return true
	}
	return te.Phase == cosmostx.PhaseSimulate && strings.Contains(te.RawLog, "account sequence mismatch")
}

// cosmosBalance is the account's balance of denom (zero for an account the chain never saw).
func (c *Chain) cosmosBalance(ctx context.Context, addr, denom string) (sdkmath.Int, error) {
	var res banktypes.QueryBalanceResponse
	if err := c.cosmos.Get(ctx, "/cosmos/bank/v1beta1/balances/"+addr+"/by_denom?denom="+url.QueryEscape(denom), &res); err != nil {
		return sdkmath.Int{}, fmt.Errorf("read the %s balance of %s: %w", denom, addr, err)
	}
	if res.Balance == nil {
		return sdkmath.ZeroInt(), nil
	}
	return res.Balance.Amount, nil
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
	// A transfer's gas is the node's to say: 21,000 on geth, Cosmos gas on a minievm
	// (~171k), which refuses a tx signed with less.
	limit, err := c.eth.EstimateGas(ctx, ethereum.CallMsg{From: from.Address(), To: &to, Value: value})
	if err != nil {
		return fmt.Errorf("fund %s: estimate the transfer: %w", to.Hex(), err)
	}
	tx, err := from.SignEVMTx(ctx, types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: limit * 6 / 5, To: &to, Value: value}), id)
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
