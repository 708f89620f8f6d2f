package evm

import (
	"context"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/push"
)

// deployChain is the EVM side of deployer.RunDeploy: a contract-creation tx from the
// deployer, whose address (keccak of sender and nonce) is known before it is sent.
type deployChain struct {
	s    *Contract
	key  keys.Signer
	from common.Address
}

var (
	_ deployer.DeployChain    = (*deployChain)(nil)
	_ deployer.DeployPreparer = (*deployChain)(nil)
	_ push.PoolChecker        = (*deployChain)(nil)
)

// PrepareDeploy refuses to send the deploy behind a tx of the deployer's that the chain
// does not mine (a *StuckNonceError naming the nonce and how to replace it).
func (c *deployChain) PrepareDeploy(ctx context.Context) error {
	return c.s.checkStuckNonce(ctx, c.from)
}

func (c *deployChain) Sequence(ctx context.Context) (uint64, error) {
	return c.s.client.PendingNonceAt(ctx, c.from)
}

func (c *deployChain) Committed(ctx context.Context) (uint64, error) {
	return c.s.client.NonceAt(ctx, c.from, nil)
}

func (c *deployChain) SignDeploy(ctx context.Context, stage, seq uint64) (push.SignedTx, string, error) {
	creation := common.FromHex(vipscore.VipScoreMetaData.Bin)
	if c.s.code != nil {
		creation = c.s.code
	}
	code := append(slices.Clip(creation), c.s.binding.PackConstructor(stage)...)
	gas, err := c.s.client.EstimateGas(ctx, ethereum.CallMsg{From: c.from, Data: code})
	if err != nil {
		return push.SignedTx{}, "", c.s.revertOf(ctx, c.from, nil, code, err)
	}
	tip, feeCap, err := c.s.fees(ctx)
	if err != nil {
		return push.SignedTx{}, "", err
	}
	tx, err := c.key.SignEVMTx(ctx, types.NewTx(&types.DynamicFeeTx{
		ChainID: c.s.chainID, Nonce: seq, GasTipCap: tip, GasFeeCap: feeCap, Gas: min(gas*6/5, MaxTxGas), Data: code,
	}), c.s.chainID)
	if err != nil {
		return push.SignedTx{}, "", fmt.Errorf("sign: %w", err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return push.SignedTx{}, "", fmt.Errorf("encode tx: %w", err)
	}
	return push.SignedTx{Hash: tx.Hash().Hex(), Raw: raw, Sequence: seq}, crypto.CreateAddress(c.from, seq).Hex(), nil
}

func (c *deployChain) Broadcast(ctx context.Context, tx push.SignedTx) error {
	return c.s.broadcast(ctx, tx.Raw)
}

func (c *deployChain) Lookup(ctx context.Context, hash string) (push.Outcome, error) {
	return c.s.lookup(ctx, common.HexToHash(hash))
}

// InPool reports whether the node holds the tx unmined.
func (c *deployChain) InPool(ctx context.Context, hash string) (bool, error) {
	return c.s.inPool(ctx, hash)
}

func (c *deployChain) Created(ctx context.Context, hash string) (string, error) {
	rc, err := c.s.client.TransactionReceipt(ctx, common.HexToHash(hash))
	if err != nil {
		return "", fmt.Errorf("receipt of %s: %w", hash, err)
	}
	addr := rc.ContractAddress.Hex()
	if err := c.AwaitCreated(ctx, addr); err != nil {
		return "", err
	}
	return addr, nil
}

// AwaitCreated waits until the node's state shows code at addr: minievm's receipt can come
// before its state shows the code (settle.go), and the calls that follow a deploy (its
// initStage, the open stage) would read nothing.
func (c *deployChain) AwaitCreated(ctx context.Context, addr string) error {
	a := common.HexToAddress(addr)
	return c.s.awaitState(ctx, "deploy of "+a.Hex(), func(ctx context.Context) (bool, string, error) {
		code, err := c.s.client.CodeAt(ctx, a, nil)
		return len(code) > 0, fmt.Sprintf("%d bytes of code", len(code)), err
	})
}

// Probe is the read-only interface check of vipctl check --contract on addr, then its
// initStage.
func (c *deployChain) Probe(ctx context.Context, addr string) (uint64, error) {
	if !common.IsHexAddress(addr) {
		return 0, fmt.Errorf("%q is not a 0x address", addr)
	}
	probe := *c.s
	probe.contract = common.HexToAddress(addr)
	if _, err := probe.CheckInterface(ctx); err != nil {
		return 0, err
	}
	return probe.InitStage(ctx)
}

// Existing is "": an EVM deployer may create any number of contracts; its journal is what
// knows them.
func (c *deployChain) Existing(context.Context) (string, error) { return "", nil }
