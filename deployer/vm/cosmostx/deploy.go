package cosmostx

import (
	"context"
	"fmt"
	"time"

	cmttypes "github.com/cometbft/cometbft/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/deployer/push"
)

// DeployTx is the Cosmos half of a deployer.DeployChain, shared by Move and Wasm: the
// deployer's account sequences, a deploy tx of the VM's messages (Msgs) simulated and
// signed at an explicit sequence, and broadcasts and lookups as the push loop has them. A
// VM adds how it finds what the deploy created (Created, Probe, Existing).
type DeployTx struct {
	C      *Client
	Signer *Signer
	// Msgs are the deploy's messages for stage, and the address they create ("" where the
	// chain assigns it at inclusion).
	Msgs func(stage uint64) ([]sdk.Msg, string, error)
	// Decode, when set, turns a failed tx's error into the VM's own.
	Decode func(error) error
}

func (d *DeployTx) push() *PushChain { return &PushChain{C: d.C, Signer: d.Signer, Decode: d.Decode} }

// Sequence is the account's committed sequence (the REST face cannot see the mempool).
func (d *DeployTx) Sequence(ctx context.Context) (uint64, error) { return d.push().Committed(ctx) }

// Committed is the account's sequence as the last block left it.
func (d *DeployTx) Committed(ctx context.Context) (uint64, error) { return d.push().Committed(ctx) }

// SignDeploy simulates the deploy's messages at seq (a failure, decoded, means nothing would
// land) and signs them with the adjusted gas.
func (d *DeployTx) SignDeploy(ctx context.Context, stage, seq uint64) (push.SignedTx, string, error) {
	msgs, contract, err := d.Msgs(stage)
	if err != nil {
		return push.SignedTx{}, "", err
	}
	at := *d.Signer
	at.Sequence = seq
	sim, err := d.C.Simulate(ctx, &at, msgs...)
	if err != nil {
		if d.Decode != nil {
			err = d.Decode(err)
		}
		return push.SignedTx{}, "", err
	}
	raw, err := d.C.SignAt(ctx, &at, seq, d.C.GasLimit(sim.GasInfo.GasUsed), msgs...)
	if err != nil {
		return push.SignedTx{}, "", err
	}
	return push.SignedTx{Hash: fmt.Sprintf("%X", cmttypes.Tx(raw).Hash()), Raw: raw, Sequence: seq}, contract, nil
}

// Broadcast is PushChain's: a node restarting is not a refusal.
func (d *DeployTx) Broadcast(ctx context.Context, tx push.SignedTx) error {
	return d.push().Broadcast(ctx, tx)
}

// FindInBlocks is PushChain's: a tx the node committed but never indexed.
func (d *DeployTx) FindInBlocks(ctx context.Context, hash string, since time.Time) (push.Outcome, error) {
	return d.push().FindInBlocks(ctx, hash, since)
}

// Lookup is PushChain's, a failure decoded.
func (d *DeployTx) Lookup(ctx context.Context, hash string) (push.Outcome, error) {
	return d.push().Lookup(ctx, hash)
}
