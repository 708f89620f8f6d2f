package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/agent"
	"github.com/vipharness/vipharness/localnet/l1"
)

// localAgent is the VIP agent `localnet up` runs beside the L1 stand-in: it snapshots each
// stage the contract this tool deployed on the local rollup (the state directory's
// deployment) has finalized, once the L1 has moved past it.
func (sess session) localAgent(vm vip.VM, r localnet.Rollup, srv *l1.Server, bridgeID uint64) (*agent.Agent, func()) {
	var (
		mu sync.Mutex
		s  *deployer.Scorer
	)
	ep := r.Endpoints()
	open := func(ctx context.Context) (scores.StageReader, error) {
		mu.Lock()
		defer mu.Unlock()
		if s != nil {
			return s, nil
		}
		if _, err := os.Stat(sess.statePath(vm, r.ChainID())); errors.Is(err, os.ErrNotExist) {
			return nil, agent.ErrNoContract
		}
		var err error
		s, err = deployer.Open(ctx, deployer.Config{VM: vm, JSONRPC: ep.JSONRPC, CometRPC: ep.CometRPC, REST: ep.REST, Push: deployer.PushConfig{Logger: sess.logger},
			ContractFor: func(chainID string) (string, error) { return sess.loadDeployment(vm, chainID) }})
		if err != nil {
			return nil, fmt.Errorf("open the local rollup's contract: %w", err)
		}
		return s, nil
	}
	closeFn := func() {
		mu.Lock()
		defer mu.Unlock()
		if s != nil {
			s.Close()
		}
	}
	return agent.New(srv, bridgeID, open, agent.WithLogger(sess.logger)), closeFn
}
