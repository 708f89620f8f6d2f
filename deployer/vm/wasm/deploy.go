package wasm

import (
	"context"
	"fmt"
	"strconv"

	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// deployChain is the Wasm side of deployer.RunDeploy: one instantiate tx, whose address the
// chain assigns from its instance counter at inclusion and reports in the tx's events.
type deployChain struct {
	cosmostx.DeployTx
	s        *Contract
	dep      *cosmostx.Signer
	storeGas uint64 // gas of a store this run made
}

var (
	_ deployer.DeployChain    = (*deployChain)(nil)
	_ deployer.DeployPreparer = (*deployChain)(nil)
	_ deployer.DeployNoter    = (*deployChain)(nil)
)

// NoteDeployment adds the code id the contract runs, and the gas of a store this run made.
func (c *deployChain) NoteDeployment(ctx context.Context, d *vip.Deployment) error {
	id, err := c.s.contractCode(ctx, d.Contract)
	if err != nil {
		return err
	}
	c.s.codeID, d.CodeID = id, id
	d.GasUsed += c.storeGas
	return nil
}

// PrepareDeploy makes sure the code is stored: code stored with its checksum (by anyone) is
// reused, and a store is journaled and finished like the deploy itself (codeChain).
func (c *deployChain) PrepareDeploy(ctx context.Context) error {
	if c.s.codeID != 0 {
		return nil
	}
	code := &codeChain{s: c.s, DeployTx: c.s.DeployTx(c.dep, func(uint64) ([]sdk.Msg, string, error) {
		return []sdk.Msg{&wasmtypes.MsgStoreCode{Sender: c.dep.Address, WASMByteCode: c.s.code}}, "", nil
	})}
	res, err := deployer.RunDeploy(ctx, code, deployer.DeployRun{
		Journal: journal.DeployPath(c.s.Push.JournalDir, c.s.JournalChain(), "code-"+c.dep.Address), Poll: c.s.Push.Poll, Logger: c.s.Push.Logger,
	}, 1, deployer.DeployConfig{})
	if err != nil {
		return fmt.Errorf("store code: %w", err)
	}
	id, err := strconv.ParseUint(res.Contract, 10, 64)
	if err != nil {
		return fmt.Errorf("store code: code id %q: %w", res.Contract, err)
	}
	c.s.codeID = id
	if res.Status == vip.StatusAlready {
		c.s.Push.Logger.Info("code already stored; reusing it", "code_id", id)
		return nil
	}
	c.storeGas = res.GasUsed
	c.s.Push.Logger.Info("code stored", "code_id", id, "bytes", len(c.s.code), "tx", res.TxHash, "gas", res.GasUsed)
	return nil
}

// codeChain is the store of the contract's code through the same journaled flow as the
// deploy (deployer.RunDeploy), its "contract" the code id: a store a killed run sent is
// finished, never sent again, and code stored with the same checksum is reused.
type codeChain struct {
	cosmostx.DeployTx
	s *Contract
}

var _ deployer.DeployChain = (*codeChain)(nil)

// Created is the code id the store tx hash reports, its checksum checked.
func (c *codeChain) Created(ctx context.Context, hash string) (string, error) {
	res, err := c.s.C.GetTx(ctx, hash)
	if err != nil {
		return "", fmt.Errorf("read tx %s: %w", hash, err)
	}
	id, err := storedCode(res, c.s.code)
	if err != nil {
		return "", fmt.Errorf("store code (tx %s): %w", hash, err)
	}
	return strconv.FormatUint(id, 10), nil
}

// Probe checks that code id holds the contract's code.
func (c *codeChain) Probe(ctx context.Context, id string) (uint64, error) {
	ids, err := c.s.codesByChecksum(ctx, c.s.code)
	if err != nil {
		return 0, err
	}
	for _, have := range ids {
		if strconv.FormatUint(have, 10) == id {
			return 1, nil
		}
	}
	return 0, fmt.Errorf("code %s does not hold the contract's code", id)
}

// Existing is the newest code stored with the contract's checksum, by anyone.
func (c *codeChain) Existing(ctx context.Context) (string, error) {
	ids, err := c.s.codesByChecksum(ctx, c.s.code)
	if err != nil || len(ids) == 0 {
		return "", err
	}
	return strconv.FormatUint(ids[len(ids)-1], 10), nil
}

// Created reads the instantiate event of the included tx hash.
func (c *deployChain) Created(ctx context.Context, hash string) (string, error) {
	res, err := c.s.C.GetTx(ctx, hash)
	if err != nil {
		return "", fmt.Errorf("read tx %s: %w", hash, err)
	}
	addrs := cosmostx.Attr(res, wasmtypes.EventTypeInstantiate, wasmtypes.AttributeKeyContractAddr)
	if len(addrs) != 1 {
		return "", fmt.Errorf("instantiate tx %s: %d contract addresses in its events, want 1", hash, len(addrs))
	}
	return addrs[0], nil
}

// Probe is the read-only interface check of vipctl check --contract on addr, then its
// first stage.
func (c *deployChain) Probe(ctx context.Context, addr string) (uint64, error) {
	probe := *c.s
	if err := probe.Attach(addr); err != nil {
		return 0, err
	}
	if _, err := probe.CheckInterface(ctx); err != nil {
		return 0, err
	}
	return probe.InitStage(ctx)
}

// Existing is "": a Wasm deployer may instantiate any number of contracts; its journal is
// what knows them.
func (c *deployChain) Existing(context.Context) (string, error) { return "", nil }
