package tasks

import (
	"context"
	"errors"
	"fmt"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/guard"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Deployer is what a deploy needs of a rollup: *deployer.Scorer is one.
type Deployer interface {
	Deploy(ctx context.Context, initStage uint64, opts ...deployer.DeployOption) (vip.Deployment, error)
	FirstBlock(ctx context.Context) (string, error)
}

// DeployOptions are what a deploy reads.
type DeployOptions struct {
	// Stage is the initial stage; 0 is the L1's current stage (L1 then required).
	Stage uint64
	L1    guard.L1
	// Open opens the rollup's deployer (and a function that closes it) once the stage is
	// known: a stage that cannot be found dials nothing.
	Open func(ctx context.Context) (Deployer, func(), error)
	// Store remembers the deployment the run ends with.
	Store Store
	// Another deploys a new contract although the deployer has a healthy one.
	Another bool
	// OnBroadcast, when set, is called with the deploy tx's hash as soon as it is sent.
	OnBroadcast func(hash string)
}

// Validated is o, or the first field that cannot be used.
func (o DeployOptions) Validated() (DeployOptions, error) {
	switch {
	case o.Stage == 0 && o.L1 == nil:
		return o, &deployer.ConfigError{Field: "Stage or L1", Value: 0, Err: errors.New("no stage and no L1 to read it from")}
	case o.Open == nil:
		return o, &deployer.ConfigError{Field: "Open", Value: nil, Err: errors.New("nothing to deploy with")}
	case o.Store.Dir == "":
		return o, &deployer.ConfigError{Field: "Store.Dir", Value: `""`, Err: errors.New("no state dir to remember the deployment in")}
	}
	return o, nil
}

// Deployed is a deploy's outcome: the deployment the run ends with (new, finished or
// found) and the stage that was asked (an earlier run's deployment may hold another).
type Deployed struct {
	vip.Deployment
	Asked uint64
}

// Deploy deploys the contract at o.Stage, else at the L1's current stage, journaled (a
// re-run finishes what an earlier run sent) and remembered in o.Store, so the state file
// and the journal name the same contract. A deployer that may hold one contract only and
// has one is vip.ErrOnePerDeployer.
func Deploy(ctx context.Context, o DeployOptions) (Deployed, error) {
	o, err := o.Validated()
	if err != nil {
		return Deployed{}, err
	}
	st := o.Stage
	if st == 0 {
		if st, err = o.L1.Stage(ctx); err != nil {
			return Deployed{}, fmt.Errorf("read L1 stage: %w", err)
		}
	}
	d, closeFn, err := o.Open(ctx)
	if err != nil {
		return Deployed{}, err
	}
	defer closeFn()
	var opts []deployer.DeployOption
	if o.Another {
		opts = append(opts, deployer.AnotherDeployment())
	}
	if o.OnBroadcast != nil {
		opts = append(opts, deployer.OnBroadcast(o.OnBroadcast))
	}
	dep, err := d.Deploy(ctx, st, opts...)
	if err != nil {
		return Deployed{}, err
	}
	first, _ := d.FirstBlock(ctx) // "" leaves the state without it: the interface check remains
	if err := o.Store.Save(dep, first); err != nil {
		return Deployed{}, err
	}
	return Deployed{Deployment: dep, Asked: st}, nil
}
