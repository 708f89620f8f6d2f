package embedded

import (
	"context"
	"fmt"
	"math/big"

	sdkmath "cosmossdk.io/math"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitia"
)

// minitiaEVMDefaults are the EVM minitia's settings: the embedded EVM's chain id, minimum gas
// price (wei) and funding (a billion ether), eth_secp256k1 accounts.
var minitiaEVMDefaults = minitia.Config{VM: vip.EVM, ChainID: DefaultEVMCosmosChainID, KeyType: vip.EthSecp256k1,
	FeeDenom: EVMFeeDenom, MinGasPrice: fmt.Sprint(EVMMinGasPrice),
	GenesisBalance: sdkmath.NewIntFromBigInt(new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(params.Ether))),
	Version:        "v0.0.0-vipharness+go-ethereum.v1.17.10"}

// StartEVM starts an embedded EVM rollup on the minitia application, as a minievm
// is built: every EVM tx inside a Cosmos tx (minievm's x/evm over go-ethereum's interpreter),
// CometBFT's blocks, the SDK's modules and REST, and minievm's JSON-RPC face over them.
func StartEVM(ctx context.Context, opts ...CosmosOption) (*EVMRollup, error) {
	cfg := minitiaEVMDefaults
	for _, o := range opts {
		o(&cfg)
	}
	n, err := minitia.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &EVMRollup{CosmosRollup{node: n}}, nil
}

// EVMRollup is an EVM rollup on the minitia application.
type EVMRollup struct{ CosmosRollup }

var _ localnet.Rollup = (*EVMRollup)(nil)

// Endpoints add the Ethereum JSON-RPC to the Cosmos ones.
func (r *EVMRollup) Endpoints() localnet.Endpoints {
	ep := r.CosmosRollup.Endpoints()
	ep.JSONRPC, ep.JSONRPCWS = r.node.JSONRPCURL(), r.node.JSONRPCWSURL()
	return ep
}

// Funded are the funded accounts with their Ethereum (0x) addresses, as EVM tools name them.
func (r *EVMRollup) Funded() []localnet.Account {
	var out []localnet.Account
	for _, a := range r.node.Funded() {
		out = append(out, localnet.Account{Address: common.BytesToAddress(a.Key.PubKey().Address()).Hex(),
			Mnemonic: a.Mnemonic, PrivateKey: a.PrivateKey})
	}
	return out
}
