package l1

import (
	"context"
	"fmt"

	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/registration/whitelist"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// Bridge is a rollup the stand-in registers for VIP at genesis (as a passed whitelist
// proposal would, through register): version 1, scoring from the stage after the
// starting one.
type Bridge struct {
	ID       uint64
	VM       vip.VM
	Contract string // the rollup's scoring contract, as register records it
}

// WithBridge registers b at genesis.
func WithBridge(b Bridge) Option { return func(c *config) { c.bridges = append(c.bridges, b) } }

// WithFundedMnemonic funds the account of mnemonic (eth_secp256k1, coin type 60) at genesis:
// a user who claims.
func WithFundedMnemonic(mnemonic string) Option {
	return func(c *config) { c.funded = append(c.funded, mnemonic) }
}

var vmTypes = map[vip.VM]uint64{vip.Move: 0, vip.Wasm: 1, vip.EVM: 2}

func (b Bridge) register(vip movebcs.Address) (movevm.Function, error) {
	vmType, ok := vmTypes[b.VM]
	if !ok {
		return movevm.Function{}, fmt.Errorf("bridge %d: vm %q: want evm, move or wasm", b.ID, b.VM)
	}
	rate := func(s string) []byte {
		r, err := whitelist.ParseRate(s)
		if err != nil {
			panic(err) // constant input
		}
		return r.BCS()
	}
	var bridgeAddr movebcs.Address
	bridgeAddr[31] = byte(b.ID)
	return movevm.Function{
		Module: movevm.ModuleID{Address: vip, Name: "vip"}, Function: "register",
		Args: [][]byte{vip[:], movebcs.ArgU64(b.ID), bridgeAddr[:], movebcs.ArgString(b.Contract), rate("0.2"), rate("0.01"), rate("0.05"), movebcs.ArgU64(vmType)},
	}, nil
}

// SubmitSnapshot sends the agent's submit_snapshot of (bridgeID, version, stage).
func (s *Server) SubmitSnapshot(ctx context.Context, bridgeID, version, stage uint64, root []byte, total uint64) error {
	w := movebcs.NewWriter(len(root) + 1)
	w.Bytes(root)
	return s.call(ctx, "submit_snapshot", movebcs.ArgU64(bridgeID), movebcs.ArgU64(version), movebcs.ArgU64(stage), w.Out(), movebcs.ArgU64(total))
}

// Claim sends batch_claim_user_reward_script signed by key with args (audit.ClaimArgs).
func (s *Server) Claim(ctx context.Context, key cryptotypes.PrivKey, args [][]byte) error {
	signer, err := s.c.Signer(ctx, key)
	if err != nil {
		return fmt.Errorf("l1 stand-in claim: %w", err)
	}
	_, err = s.c.Exec(ctx, signer, &initiamove.MsgExecute{Sender: signer.Address, ModuleAddress: s.vip.Short(), ModuleName: "vip", FunctionName: "batch_claim_user_reward_script", Args: args})
	if err != nil {
		return fmt.Errorf("l1 stand-in claim: %w", err)
	}
	return nil
}

// Abort is the vip module's abort in a refused tx's log.
func Abort(err error) (movebcs.Abort, bool) {
	log, ok := cosmostx.Log(err)
	if !ok {
		return movebcs.Abort{}, false
	}
	return movebcs.ParseAbort(log)
}

// AgentKey is the agent's key, for a local agent that snapshots stages (vipctl localnet up).
func (s *Server) AgentKey() cryptotypes.PrivKey { return s.agentKey }
