// Package external is the engine for a rollup somebody else runs: a team's own minievm,
// minimove or miniwasm, or their public testnet. It starts nothing; it reads the rollup's
// endpoints and a funded key from the environment, so the same e2e suites that drive the
// local engines drive the real thing (`E2E_ENGINES=external make e2e`).
//
//	JSON_RPC_URL                 an EVM rollup's JSON-RPC
//	COMET_RPC_URL, REST_URL      a Move or Wasm rollup's CometBFT RPC and Cosmos REST
//	VM                           evm, move or wasm (default: the one the endpoints allow)
//	PRIVATE_KEY or MNEMONIC      a funded account (coin type 60 for EVM and Move; 118 for
//	                             Wasm unless KEY_TYPE=eth_secp256k1)
//
// The chain is shared and long-lived: every spec deploys its own contract, and Stop leaves
// the chain running.
package external

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/ethnode"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/localnet"
)

// Engine reads an external rollup from the environment.
type Engine struct{}

var _ localnet.Engine = Engine{}

// Name is "external".
func (Engine) Name() string { return "external" }

// Endpoints are the rollup's endpoints from the environment.
func (Engine) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{JSONRPC: os.Getenv("JSON_RPC_URL"), CometRPC: os.Getenv("COMET_RPC_URL"), REST: os.Getenv("REST_URL")}
}

// VMs lists the VM the environment describes: VM if set, else EVM for a JSON-RPC endpoint
// or the Cosmos VM node_info names; none when no endpoint is set.
func (e Engine) VMs(ctx context.Context) ([]vip.VM, error) {
	if v := os.Getenv("VM"); v != "" {
		vm, err := vip.ParseVM(v)
		if err != nil {
			return nil, fmt.Errorf("external engine: VM: %w", err)
		}
		return []vip.VM{vm}, nil
	}
	ep := e.Endpoints()
	switch {
	case ep.JSONRPC != "":
		return []vip.VM{vip.EVM}, nil
	case ep.REST != "":
		info, err := cosmosnode.New(ep.REST, "", nil).NodeInfo(ctx)
		if err != nil {
			return nil, fmt.Errorf("external engine: %w", err)
		}
		vm, ok := vip.ByNodeName(info.Name)
		if !ok {
			return nil, fmt.Errorf("external engine: node_info names %q, not minievm, minimove or miniwasm: set VM", info.Name)
		}
		return []vip.VM{vm}, nil
	}
	return nil, nil
}

// Available reports whether the environment describes a vm rollup with a funded key.
func (e Engine) Available(ctx context.Context, vm vip.VM) error {
	ep := e.Endpoints()
	spec, err := vip.Describe(vm)
	switch {
	case err != nil:
		return fmt.Errorf("external engine: %w", err)
	case !spec.Cosmos && ep.JSONRPC == "":
		return fmt.Errorf("external engine: no %s rollup: set JSON_RPC_URL", vm)
	case spec.Cosmos && (ep.CometRPC == "" || ep.REST == ""):
		return fmt.Errorf("external engine: no %s rollup: set COMET_RPC_URL and REST_URL", vm)
	}
	if _, err := fundedKey(vm); err != nil {
		return err
	}
	return nil
}

// fundedKey is the environment's key on the path the VM's accounts use.
func fundedKey(vm vip.VM) (*keys.Account, error) {
	path := keys.EVMPath // coin type 60
	if keyType(vm).CoinType() != 60 {
		path = keys.CosmosPath
	}
	a, err := keys.FromEnv(keys.Operator, keys.WithPath(path))
	if err != nil {
		return nil, fmt.Errorf("external engine: a funded key: %w", err)
	}
	return a, nil
}

// StartRollup attaches to the rollup the environment names; it starts nothing.
func (e Engine) StartRollup(ctx context.Context, vm vip.VM) (localnet.Rollup, error) {
	if err := e.Available(ctx, vm); err != nil {
		return nil, err
	}
	key, err := fundedKey(vm)
	if err != nil {
		return nil, err
	}
	r := &Rollup{vm: vm, ep: e.Endpoints(), funded: localnet.Account{PrivateKey: hex.EncodeToString(key.Secret())}}
	if !vip.MustDescribe(vm).Cosmos {
		c, err := ethnode.Dial(ctx, r.ep.JSONRPC)
		if err != nil {
			return nil, fmt.Errorf("external engine: dial %s: %w", r.ep.JSONRPC, err)
		}
		defer c.Close()
		id, err := c.ChainID(ctx)
		if err != nil {
			return nil, fmt.Errorf("external engine: chain id from %s: %w", r.ep.JSONRPC, err)
		}
		r.chainID = id.String()
		r.funded.Address = key.Address().Hex()
		return r, nil
	}
	info, err := cosmosnode.New(r.ep.REST, "", nil).NodeInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("external engine: %w", err)
	}
	r.chainID = info.Network
	return r, nil
}

// Rollup is an external rollup: its endpoints and the funded key from the environment.
type Rollup struct {
	vm      vip.VM
	ep      localnet.Endpoints
	chainID string
	funded  localnet.Account
}

var _ localnet.Rollup = (*Rollup)(nil)

// VM is the rollup's VM.
func (r *Rollup) VM() vip.VM { return r.vm }

// ChainID is what the rollup reports (eth_chainId, or node_info's network).
func (r *Rollup) ChainID() string { return r.chainID }

// Endpoints are the environment's.
func (r *Rollup) Endpoints() localnet.Endpoints { return r.ep }

// Funded is the environment's key: the only account the suites may spend from.
func (r *Rollup) Funded() []localnet.Account { return []localnet.Account{r.funded} }

// KeyType is the account key kind of the funded key: KEY_TYPE on a Cosmos rollup, else the
// VM's.
func (r *Rollup) KeyType() vip.KeyType { return keyType(r.vm) }

// keyType is KEY_TYPE (eth_secp256k1 or secp256k1) on a Cosmos rollup, else the VM's.
func keyType(vm vip.VM) vip.KeyType {
	spec, _ := vip.Describe(vm)
	if spec.Cosmos {
		if k, err := vip.ParseKeyType(os.Getenv("KEY_TYPE")); err == nil && k != "" {
			return k
		}
	}
	return spec.KeyType
}

// Stop leaves the rollup running: it is not ours.
func (r *Rollup) Stop(context.Context) error { return nil }
