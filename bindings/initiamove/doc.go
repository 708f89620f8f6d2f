// Package initiamove holds the wire types of Initia's x/move that vipharness speaks: the
// messages MsgPublish, MsgExecute, MsgExecuteJSON, MsgScript, MsgScriptJSON and MsgGovExecute (a governance
// proposal's entry function call), the authz grants PublishAuthorization and
// ExecuteAuthorization, and the module, resource and view
// queries, with Initia's proto package, names and field numbers (written from the public
// proto definitions; generated with protoc-gen-gocosmos by `make proto`).
package initiamove

import (
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/tx"
	"github.com/cosmos/cosmos-sdk/x/authz"
)

// RegisterInterfaces registers the messages as sdk.Msg implementations and their responses
// (which travel in a tx result's data).
func RegisterInterfaces(reg codectypes.InterfaceRegistry) {
	reg.RegisterImplementations((*sdk.Msg)(nil), &MsgPublish{}, &MsgExecute{}, &MsgExecuteJSON{}, &MsgScript{}, &MsgScriptJSON{}, &MsgGovExecute{})
	reg.RegisterImplementations((*tx.MsgResponse)(nil), &MsgPublishResponse{}, &MsgExecuteResponse{}, &MsgExecuteJSONResponse{},
		&MsgScriptResponse{}, &MsgScriptJSONResponse{}, &MsgGovExecuteResponse{})
	reg.RegisterImplementations((*authz.Authorization)(nil), &PublishAuthorization{}, &ExecuteAuthorization{})
}
