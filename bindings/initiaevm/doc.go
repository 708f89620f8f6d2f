// Package initiaevm holds the wire types of minievm's x/evm that vipharness speaks: the
// messages MsgCreate and MsgCall and the Call, Code and State queries, with minievm's proto
// package, names and field numbers (written from the public proto definitions; generated
// with protoc-gen-gocosmos by `make proto`).
package initiaevm

import (
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/tx"
)

// RegisterInterfaces registers the messages as sdk.Msg implementations and their responses
// (which travel in a tx result's data).
func RegisterInterfaces(reg codectypes.InterfaceRegistry) {
	reg.RegisterImplementations((*sdk.Msg)(nil), &MsgCreate{}, &MsgCall{})
	reg.RegisterImplementations((*tx.MsgResponse)(nil), &MsgCreateResponse{}, &MsgCallResponse{})
}
