package move

import (
	"context"
	"fmt"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// deployChain is the Move side of deployer.RunDeploy: one publish tx whose module address
// is the deployer's own, so both the journal and the chain know it before broadcast.
type deployChain struct {
	cosmostx.DeployTx
	s     *Contract
	owner movebcs.Address
}

var _ deployer.DeployChain = (*deployChain)(nil)

// Created is the deployer's address: a publish creates nothing elsewhere.
func (c *deployChain) Created(context.Context, string) (string, error) { return c.owner.Short(), nil }

// Probe is the read-only interface check of vipctl check --contract on the module under
// addr, then its first stage.
func (c *deployChain) Probe(ctx context.Context, addr string) (uint64, error) {
	a, err := movebcs.ParseAddress(addr)
	if err != nil {
		return 0, fmt.Errorf("module address %q: %w", addr, err)
	}
	at := c.s.at(a)
	if _, err := at.CheckInterface(ctx); err != nil {
		return 0, err
	}
	return at.InitStage(ctx)
}

// Existing is the deployer's address when a vip_score module is published under it (read
// through REST): a second publish would abort, so it is found before anything is sent.
func (c *deployChain) Existing(ctx context.Context) (string, error) {
	var mod initiamove.QueryModuleResponse
	err := c.s.C.Get(ctx, "/initia/move/v1/accounts/"+c.owner.Short()+"/modules/"+ModuleName, &mod)
	if cosmostx.NotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read module %s::%s: %w", c.owner.Short(), ModuleName, err)
	}
	return c.owner.Short(), nil
}
