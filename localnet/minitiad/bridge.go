package minitiad

import (
	"encoding/binary"

	"github.com/cosmos/cosmos-sdk/types/address"
	"github.com/cosmos/cosmos-sdk/types/bech32"
)

// Bridge is the OPinit bridge between a rollup and its L1: its id on the L1 and the L1's
// chain id. A rollup registered on its L1 knows it in opchild's bridge_info.
type Bridge struct {
	ID        uint64
	L1ChainID string
}

// Address is the bridge's account on the L1, as OPinit's ophost module derives it: the
// module account of "ophost" with the id's 8 big-endian bytes as its derivation key.
func (b Bridge) Address() string {
	seed := binary.BigEndian.AppendUint64(nil, b.ID)
	s, err := bech32.ConvertAndEncode("init", address.Module("ophost", seed))
	if err != nil {
		panic(err) // 32 bytes always encode
	}
	return s
}

// l1ClientID is the rollup's light client on the L1, the first one an L1 makes.
func (Bridge) l1ClientID() string { return "07-tendermint-0" }
