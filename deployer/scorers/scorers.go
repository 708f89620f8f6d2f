// Package scorers opens the Scorer of a rollup's VM from one deployer.Config. The choices that differ
// per VM (which client to dial, which endpoints it needs, which key type signs, how a
// contract address is written) are made here once, for vipctl, its demo and the e2e
// harness alike; callers then hold a Scorer and never switch on the VM.
package scorers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/evm"
	"github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/deployer/vm/wasm"
)

// vms are the VMs this build knows: each one's Spec and its Dial.
var vms = map[vip.VM]struct {
	spec vip.Spec
	dial func(context.Context, deployer.Config) (*deployer.Scorer, error)
}{
	vip.EVM:  {evm.Spec, evm.Dial},
	vip.Move: {move.Spec, move.Dial},
	vip.Wasm: {wasm.Spec, wasm.Dial},
}

// Describe is the Spec of vm: what it means to the code around it.
func Describe(vm vip.VM) (vip.Spec, error) {
	v, ok := vms[vm]
	if !ok {
		return vip.Spec{}, fmt.Errorf("unknown vm %q: want evm, move or wasm", vm)
	}
	return v.spec, nil
}

// MustDescribe is Describe of a VM known to be valid (a deployer constant, a parsed --vm).
func MustDescribe(vm vip.VM) vip.Spec {
	spec, err := Describe(vm)
	if err != nil {
		panic(err)
	}
	return spec
}

// ByNodeName is the VM whose nodes give name as node_info's application_version.name
// (minievm, minimove, miniwasm; wasmd's "wasm"), any case.
func ByNodeName(name string) (vip.VM, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, vm := range vip.VMs {
		spec := vms[vm].spec
		if name == spec.Minitia || slices.Contains(spec.NodeNames, name) {
			return vm, true
		}
	}
	return "", false
}

// ByMinitia is the Spec of the VM whose Initia rollups are the minitia named (node_info's
// application name, the registry's metadata.minitia.type: minievm, minimove, miniwasm);
// false for any other name.
func ByMinitia(name string) (vip.Spec, bool) {
	for _, vm := range vip.VMs {
		if spec := vms[vm].spec; spec.Minitia == name {
			return spec, true
		}
	}
	return vip.Spec{}, false
}

// ServesJSONRPC reports whether the minitia named serves an EVM JSON-RPC (its contract is
// driven through one: minievm).
func ServesJSONRPC(minitia string) bool {
	spec, ok := ByMinitia(minitia)
	return ok && !spec.Cosmos
}

// DefaultKeyType is the key kind a VM's rollups use: Initia's eth_secp256k1 on EVM and
// Move, secp256k1 (coin type 118) on Wasm.
func DefaultKeyType(vm vip.VM) vip.KeyType { return vms[vm].spec.KeyType }

// Open dials the rollup of cfg.VM and returns its Scorer, attached to the configured
// contract if any (deployer.Open).
func Open(ctx context.Context, cfg deployer.Config) (*deployer.Scorer, error) {
	v, ok := vms[cfg.VM]
	if !ok {
		return nil, &deployer.ConfigError{Field: "VM", Value: fmt.Sprintf("%q", cfg.VM), Err: errors.New("want evm, move or wasm")}
	}
	return v.dial(ctx, cfg)
}

// SoftSigner is a 32-byte secp256k1 secret as the signer of role ("operator", "deployer")
// on vm: an Ethereum key on EVM, a Cosmos key of kind on Move and Wasm ("" is the VM's).
func SoftSigner(vm vip.VM, kind vip.KeyType, secret []byte, role string) (keys.Signer, error) {
	spec, err := Describe(vm)
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
func FundFresh(ctx context.Context, s *deployer.Scorer, funder, fresh keys.Signer, gas uint64) (*sdk.DecCoin, error) {
	f, ok := deployer.As[freshFunder](s)
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
