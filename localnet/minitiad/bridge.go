package minitiad

import "github.com/vipharness/vipharness/localnet/feeroutes"

// Bridge is the OPinit bridge between a rollup and its L1 (feeroutes.Bridge): a rollup
// registered on its L1 knows it in opchild's bridge_info.
type Bridge = feeroutes.Bridge
