package embedded

import (
	"context"
	"errors"
	"sync"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/devnode"
	"github.com/vipharness/vipharness/localnet/devnode/moveexec"
)

// DefaultMoveChainID is the chain id of the embedded Move rollup.
const DefaultMoveChainID = "vip-move-1"

// MoveOption configures StartMove: any dev node option.
type MoveOption = devnode.Option

// MoveRollup is an in-process Move rollup: the dev node running Move modules on Initia's
// MoveVM (libmovevm) with our 0x1 framework, so Cosmos clients talk to it as to a minimove
// chain.
type MoveRollup struct {
	node     *devnode.Node
	exec     *moveexec.Executor
	stopOnce sync.Once
	stopErr  error
}

var _ localnet.Rollup = (*MoveRollup)(nil)

// StartMove starts an embedded Move rollup. By default it has chain id DefaultMoveChainID,
// bech32 prefix "init", fee denom "umin" at a minimum gas price of 0.15, and two funded
// accounts with Initia's keys (eth_secp256k1, coin type 60) and fresh mnemonics. It needs the
// Move libraries (`make setup`).
func StartMove(ctx context.Context, opts ...MoveOption) (*MoveRollup, error) {
	exec, err := moveexec.New()
	if err != nil {
		return nil, err
	}
	base := []devnode.Option{
		devnode.WithChainID(DefaultMoveChainID),
		devnode.WithKeyType(devnode.EthSecp256k1),
		devnode.WithAppVersion("vipharness-embedded-move", "devnode/movevm-v0.7.0"),
	}
	node, err := devnode.Start(ctx, exec, append(base, opts...)...)
	if err != nil {
		return nil, errors.Join(err, exec.Close())
	}
	return &MoveRollup{node: node, exec: exec}, nil
}

// VM reports deployer.Move.
func (r *MoveRollup) VM() deployer.VM { return deployer.Move }

// ChainID is the Cosmos chain id.
func (r *MoveRollup) ChainID() string { return r.node.ChainID() }

// Endpoints returns the CometBFT RPC and REST URLs.
func (r *MoveRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{CometRPC: r.node.RPCURL(), REST: r.node.RESTURL()}
}

// Funded returns the genesis-funded accounts with their mnemonics and private keys.
func (r *MoveRollup) Funded() []localnet.Account {
	var out []localnet.Account
	for _, a := range r.node.Funded() {
		out = append(out, localnet.Account{Address: a.Address, Mnemonic: a.Mnemonic, PrivateKey: a.PrivateKey})
	}
	return out
}

// Node is the dev node, for in-process use.
func (r *MoveRollup) Node() *devnode.Node { return r.node }

// Stop ends the servers and releases the VM; safe to call more than once.
func (r *MoveRollup) Stop(context.Context) error {
	r.stopOnce.Do(func() { r.stopErr = errors.Join(r.node.Close(), r.exec.Close()) })
	return r.stopErr
}
