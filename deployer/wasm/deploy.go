package wasm

import (
	"context"
	"fmt"

	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/cosmostx"
)

// deployChain is the Wasm side of deployer.RunDeploy: one instantiate tx, whose address the
// chain assigns from its instance counter at inclusion and reports in the tx's events.
type deployChain struct {
	cosmostx.DeployTx
	s        *Scorer
	dep      *cosmostx.Signer
	storeGas uint64 // gas of a store this run made
}

var (
	_ deployer.DeployChain    = (*deployChain)(nil)
	_ deployer.DeployPreparer = (*deployChain)(nil)
)

// PrepareDeploy makes sure the code is stored, reusing code stored with its checksum: a
// store a killed run sent is found that way once it lands, and is not stored again.
func (c *deployChain) PrepareDeploy(ctx context.Context) error {
	if c.s.codeID != 0 {
		return nil
	}
	gas, err := c.s.ensureCode(ctx, c.dep)
	c.storeGas = gas
	return err
}

// Created reads the instantiate event of the included tx hash.
func (c *deployChain) Created(ctx context.Context, hash string) (string, error) {
	res, err := c.s.c.GetTx(ctx, hash)
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
