package xmove

import (
	"time"

	"cosmossdk.io/core/address"
	storetypes "cosmossdk.io/store/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Ctx is what an execution or a query of the executor sees of the chain.
type Ctx interface {
	// Store is the module's state, without the SDK's KV gas: the VM meters its own.
	Store() storetypes.KVStore
	ChainID() string
	BlockHeight() int64
	BlockTime() time.Time
	TxBytes() []byte
	MsgIndex() int
	GasMeter() storetypes.GasMeter
	// Simulating is set while a tx is simulated and for queries; Querying for queries.
	Simulating() bool
	Querying() bool
	Addresses() address.Codec
	NextAccountNumber() uint64
	// EnsureAccount creates a plain account at addr unless one exists.
	EnsureAccount(addr []byte)
	EmitEvent(sdk.Event)
}
