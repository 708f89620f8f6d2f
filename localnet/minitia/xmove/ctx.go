package xmove

import (
	"time"

	"cosmossdk.io/core/address"
	storetypes "cosmossdk.io/store/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/localnet/movevm"
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
	// CreateAccount writes an account the VM made (a signer's, an object's or a table's)
	// with the number the VM gave it, free of gas, as x/move does after an execution.
	CreateAccount(acc movevm.NewAccount)
	EmitEvent(sdk.Event)
}
