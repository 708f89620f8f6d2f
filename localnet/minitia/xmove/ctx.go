package xmove

import (
	"time"

	"cosmossdk.io/core/address"
	storetypes "cosmossdk.io/store/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// Ctx is what an execution or a query of the executor sees of the chain.
type Ctx interface {
	// Store is the module's state, without the SDK's KV gas: the VM meters its own.
	Store() storetypes.KVStore
	// MeteredStore is the module's state through the tx's gas meter.
	MeteredStore() storetypes.KVStore
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
	// NextAccountNumber is the number the next account gets; reading it costs what x/move's
	// read costs (the sequence moved on in a discarded cache).
	NextAccountNumber() uint64
	// Account is the chain's account at addr as the VM sees it (x/move's GetAccountInfo).
	Account(addr movebcs.Address) (movevm.AccountInfo, bool)
	// CreateAccount writes an account the VM made (a signer's, an object's or a table's)
	// with the number the VM gave it, free of gas, as x/move does after an execution.
	CreateAccount(acc movevm.NewAccount)
	EmitEvent(sdk.Event)
}
