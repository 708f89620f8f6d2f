package deployer

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Driver is a VM's part of a Scorer: what the VM means to the code around it (Spec, found
// with vip.Describe once registered) and how its Contract is dialled from a validated
// Config. Each driver under deployer/vm registers itself when linked, as database/sql's
// drivers do; import deployer/vm to link them all.
type Driver struct {
	Spec vip.Spec
	Dial func(ctx context.Context, cfg Config) (Contract, error)
}

// dials are the registered drivers' dials; their Specs live in vip's registry alone.
var (
	dialsMu sync.RWMutex
	dials   = map[vip.VM]func(context.Context, Config) (Contract, error){}
)

// Register makes d the driver of d.Spec.VM. It panics on a second driver for a VM or one
// without a Dial: both are programming errors found at start-up.
func Register(d Driver) {
	if d.Dial == nil {
		panic(fmt.Sprintf("deployer: driver of %q without Dial", d.Spec.VM))
	}
	dialsMu.Lock()
	defer dialsMu.Unlock()
	vip.Register(d.Spec) // panics on a second driver of the VM
	dials[d.Spec.VM] = d.Dial
}

// Open validates cfg, dials the rollup of cfg.VM through its driver and returns its Scorer,
// attached to cfg.Contract (or ContractFor's) if set. Callers hold the Scorer and never
// switch on the VM.
func Open(ctx context.Context, cfg Config) (*Scorer, error) {
	// vip.Describe words an unknown VM and one whose driver is not linked.
	if _, err := vip.Describe(cfg.VM); err != nil {
		return nil, &ConfigError{Field: "VM", Value: fmt.Sprintf("%q", cfg.VM), Err: err}
	}
	dialsMu.RLock()
	dial := dials[cfg.VM]
	dialsMu.RUnlock()
	return open(ctx, cfg, dial)
}

// SoftSigner is a 32-byte secp256k1 secret as the signer of role ("operator", "deployer")
// on vm: an Ethereum key on EVM, a Cosmos key of kind on Move and Wasm ("" is the VM's).
func SoftSigner(vm vip.VM, kind vip.KeyType, secret []byte, role string) (keys.Signer, error) {
	spec, err := vip.Describe(vm)
	if err != nil {
		return nil, err
	}
	if kind == "" || !spec.Cosmos {
		kind = spec.KeyType
	}
	pk, err := keys.PrivKeyFromBytes(secret, kind)
	if err != nil {
		return nil, fmt.Errorf("%s key: %w", role, err)
	}
	signer, err := keys.FromPrivKey(pk, role+" key")
	if err != nil {
		return nil, fmt.Errorf("%s key: %w", role, err)
	}
	return signer, nil
}

// FundFresh readies a fresh account (fresh's) to sign on s's rollup for gas: on a Cosmos
// rollup, where the chain simulates only for an existing account, funder pays it the fees
// of gas and the gas price it was paid at is returned; an EVM rollup's calls need no
// account, so nothing is sent there and the price is nil.
func FundFresh(ctx context.Context, s *Scorer, funder, fresh keys.Signer, gas uint64) (*sdk.DecCoin, error) {
	f, ok := As[freshFunder](s)
	if !ok {
		return nil, nil
	}
	return f.FundFresh(ctx, funder, fresh, gas)
}

// freshFunder is a Contract whose chain has accounts a fresh key must be funded into
// (cosmostx.Base).
type freshFunder interface {
	FundFresh(ctx context.Context, funder, fresh keys.Signer, gas uint64) (*sdk.DecCoin, error)
}
