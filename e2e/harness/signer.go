package harness

import (
	"context"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/container"
	"github.com/vipharness/vipharness/localnet/process"
)

// KeyType is the key kind of this Env's accounts: the rollup's own when it names one (an
// external rollup's KEY_TYPE), else the VM's (vip.Spec): eth_secp256k1 on EVM and
// Move, secp256k1 on Wasm (wasmd knows no other).
func (e *Env) KeyType() vip.KeyType {
	if k, ok := e.Rollup.(localnet.KeyTyped); ok && k.KeyType() != "" {
		return k.KeyType()
	}
	return vip.MustDescribe(e.Target.VM).KeyType
}

// LedgerCapable reports whether the chain takes Ledger-signed txs: every EVM chain, and Cosmos
// chains that know Initia's eth_secp256k1 and SIGN_MODE_EIP_191 (our dev nodes, as minimove
// and miniwasm); wasmd knows neither.
func (e *Env) LedgerCapable() bool {
	if e.KeyType() == vip.EthSecp256k1 {
		return true
	}
	switch eng := e.Target.Engine.(type) {
	case process.Engine:
		return eng.Node == process.DevNode
	case container.Engine:
		return eng.Node == process.DevNode
	}
	return true
}

// Fund sends the funded operator's coins to a signer's account: what 60M gas costs.
func (e *Env) Fund(ctx context.Context, to keys.Signer) error {
	return e.fund(ctx, to, 60_000_000)
}

// ScorerSigning opens a Scorer whose deployer and operator sign with s, attached to contract
// if set.
func (e *Env) ScorerSigning(ctx context.Context, s keys.Signer, contract string, k ...Knob) (*deployer.Scorer, error) {
	return e.scorerWith(ctx, nil, s, contract, k...)
}
