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

var (
	driversMu sync.RWMutex
	drivers   = map[vip.VM]Driver{}
)

// Register makes d the driver of d.Spec.VM. It panics on a second driver for a VM or one
// without a Dial: both are programming errors found at start-up.
func Register(d Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if d.Dial == nil {
		panic(fmt.Sprintf("deployer: driver of %q without Dial", d.Spec.VM))
	}
	if _, dup := drivers[d.Spec.VM]; dup {
		panic(fmt.Sprintf("deployer: a second driver of %q", d.Spec.VM))
	}
	drivers[d.Spec.VM] = d
	vip.Register(d.Spec)
}

func driverOf(vm vip.VM) (Driver, error) {
	driversMu.RLock()
	defer driversMu.RUnlock()
	d, ok := drivers[vm]
	if ok {
		return d, nil
	}
	if _, err := vip.ParseVM(string(vm)); err != nil {
		return Driver{}, fmt.Errorf("unknown vm %q: want evm, move or wasm", vm)
	}
	return Driver{}, fmt.Errorf("vm %s: no driver linked into this program (import github.com/vipharness/vipharness/deployer/vm)", vm)
}

// Open validates cfg, dials the rollup of cfg.VM through its driver and returns its Scorer,
// attached to cfg.Contract (or ContractFor's) if set. Callers hold the Scorer and never
// switch on the VM.
func Open(ctx context.Context, cfg Config) (*Scorer, error) {
	d, err := driverOf(cfg.VM)
	if err != nil {
		return nil, &ConfigError{Field: "VM", Value: fmt.Sprintf("%q", cfg.VM), Err: err}
	}
	return open(ctx, cfg, d.Dial)
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
