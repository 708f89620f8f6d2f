package embedded

import (
	"context"
	"errors"
	"sync"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/devnode"
)

// DevRollup is an in-process Cosmos rollup: the dev node (Cosmos tx path, CometBFT RPC and
// REST gateway on loopback) with a VM's executor, so Cosmos clients talk to it as to a real
// chain of that VM.
type DevRollup struct {
	vm       deployer.VM
	node     *devnode.Node
	exec     interface{ Close() error }
	stopOnce sync.Once
	stopErr  error
}

var _ localnet.Rollup = (*DevRollup)(nil)

// MoveRollup is the embedded Move rollup (libmovevm).
type MoveRollup = DevRollup

func startDev(ctx context.Context, vm deployer.VM, exec interface {
	devnode.Executor
	Close() error
}, opts []devnode.Option) (*DevRollup, error) {
	node, err := devnode.Start(ctx, exec, opts...)
	if err != nil {
		return nil, errors.Join(err, exec.Close())
	}
	return &DevRollup{vm: vm, node: node, exec: exec}, nil
}

// VM is the rollup's VM.
func (r *DevRollup) VM() deployer.VM { return r.vm }

// ChainID is the Cosmos chain id.
func (r *DevRollup) ChainID() string { return r.node.ChainID() }

// Endpoints returns the CometBFT RPC and REST URLs (no EVM JSON-RPC).
func (r *DevRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{CometRPC: r.node.RPCURL(), REST: r.node.RESTURL()}
}

// Funded returns the genesis-funded accounts with their mnemonics and private keys.
func (r *DevRollup) Funded() []localnet.Account {
	var out []localnet.Account
	also := r.node.AlsoFunded()
	for i, a := range r.node.Funded() {
		acc := localnet.Account{Address: a.Address, Mnemonic: a.Mnemonic, PrivateKey: a.PrivateKey}
		if i < len(also) && r.node.AlsoFundedKeyType() == keys.EthSecp256k1 {
			acc.CoinType60Address = also[i].Address
		}
		out = append(out, acc)
	}
	return out
}

// Height is the latest sealed block height.
func (r *DevRollup) Height() int64 { return r.node.Height() }

// Node is the dev node, for in-process use (direct broadcast, its Encoding for signing).
func (r *DevRollup) Node() *devnode.Node { return r.node }

// Stop ends the servers and releases the VM; safe to call more than once.
func (r *DevRollup) Stop(context.Context) error {
	r.stopOnce.Do(func() { r.stopErr = errors.Join(r.node.Close(), r.exec.Close()) })
	return r.stopErr
}
