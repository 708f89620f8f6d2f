package embedded

import (
	"context"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/localnet/devnode"
	"github.com/vipharness/vipharness/localnet/devnode/moveexec"
)

// DefaultMoveChainID is the chain id of the embedded Move rollup.
const DefaultMoveChainID = "vip-move-1"

// MoveOption configures StartMove: any dev node option.
type MoveOption = devnode.Option

// StartMove starts an embedded Move rollup running Move modules on Initia's MoveVM
// (libmovevm) with our 0x1 framework, as a minimove chain would. By default it has chain id
// DefaultMoveChainID, bech32 prefix "init", fee denom "umin" at a minimum gas price of 0.15,
// and two funded accounts with Initia's keys (eth_secp256k1, coin type 60) and fresh
// mnemonics. It needs the Move libraries (`make setup`).
func StartMove(ctx context.Context, opts ...MoveOption) (*MoveRollup, error) {
	exec, err := moveexec.New()
	if err != nil {
		return nil, err
	}
	base := []devnode.Option{
		devnode.WithChainID(DefaultMoveChainID),
		devnode.WithKeyType(keys.EthSecp256k1),
		devnode.WithAppVersion(devnode.DefaultAppName, "v0.0.0-devnode+movevm.v0.7.0"),
	}
	return startDev(ctx, deployer.Move, exec, append(base, opts...))
}
