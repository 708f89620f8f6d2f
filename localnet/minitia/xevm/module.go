package xevm

import (
	"context"
	"encoding/json"
	"fmt"

	errorsmod "cosmossdk.io/errors"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gwruntime "github.com/grpc-ecosystem/grpc-gateway/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vipharness/vipharness/bindings/initiaevm"
)

// Cosmos and the EVM count a sender's nonce differently: the ante handler raises the sequence
// once per tx, and the EVM raises it on a create. As on minievm, a tx's first message takes
// the ante's raise: a create lowers the sequence first (the EVM raises it again), a call keeps
// it; every later call in the tx raises it itself.
type sequenceKey struct{}

// SequenceDecorator marks a tx's sequence as raised by the ante handler; the app puts it in
// its ante chain.
type SequenceDecorator struct{}

// AnteHandle implements sdk.AnteDecorator.
func (SequenceDecorator) AnteHandle(ctx sdk.Context, tx sdk.Tx, simulate bool, next sdk.AnteHandler) (sdk.Context, error) {
	raised := true
	return next(ctx.WithValue(sequenceKey{}, &raised), tx, simulate)
}

func (k *Keeper) settleSequence(ctx sdk.Context, sender sdk.AccAddress, create bool) error {
	raised, ok := ctx.Value(sequenceKey{}).(*bool)
	if !ok {
		return nil
	}
	defer func() { *raised = false }()
	acc := k.accounts.GetAccount(ctx, sender)
	if acc == nil {
		return fmt.Errorf("sender %s has no account", sender)
	}
	switch {
	case create && *raised:
		if err := acc.SetSequence(acc.GetSequence() - 1); err != nil {
			return err
		}
	case !create && !*raised:
		if err := acc.SetSequence(acc.GetSequence() + 1); err != nil {
			return err
		}
	default:
		return nil
	}
	k.accounts.SetAccount(ctx, acc)
	return nil
}

type msgServer struct{ k *Keeper }

func (s msgServer) sender(ctx sdk.Context, bech string, create bool) (common.Address, error) {
	b, err := s.k.addresses.StringToBytes(bech)
	if err != nil {
		return common.Address{}, err
	}
	if len(b) != common.AddressLength {
		return common.Address{}, ErrInvalidAddressLength
	}
	if err := s.k.settleSequence(ctx, b, create); err != nil {
		return common.Address{}, err
	}
	return common.BytesToAddress(b), nil
}

func (s msgServer) Create(goCtx context.Context, m *initiaevm.MsgCreate) (*initiaevm.MsgCreateResponse, error) {
	ctx := sdk.UnwrapSDKContext(goCtx)
	// A minievm reads its params first, for the allowed publishers (none kept: anyone).
	if _, err := s.k.Params(ctx); err != nil {
		return nil, err
	}
	caller, err := s.sender(ctx, m.Sender, true)
	if err != nil {
		return nil, err
	}
	code, err := decodeHex("code", m.Code)
	if err != nil {
		return nil, err
	}
	if len(code) == 0 {
		return nil, errorsmod.Wrap(ErrInvalidRequest, "empty code")
	}
	value, err := toValue(m.Value)
	if err != nil {
		return nil, err
	}
	list, err := s.k.accessList(m.AccessList)
	if err != nil {
		return nil, err
	}
	out, err := s.k.execute(ctx, caller, nil, code, value, list, true)
	if err != nil {
		return nil, err
	}
	s.k.emit(ctx, "create", out)
	return &initiaevm.MsgCreateResponse{Result: hexutil.Encode(out.ret), ContractAddr: out.contract.Hex(), Logs: wireLogs(out.logs)}, nil
}

func (s msgServer) Call(goCtx context.Context, m *initiaevm.MsgCall) (*initiaevm.MsgCallResponse, error) {
	ctx := sdk.UnwrapSDKContext(goCtx)
	caller, err := s.sender(ctx, m.Sender, false)
	if err != nil {
		return nil, err
	}
	to, err := s.k.ParseAddress(m.ContractAddr)
	if err != nil {
		return nil, err
	}
	input, err := decodeHex("input", m.Input)
	if err != nil {
		return nil, err
	}
	value, err := toValue(m.Value)
	if err != nil {
		return nil, err
	}
	list, err := s.k.accessList(m.AccessList)
	if err != nil {
		return nil, err
	}
	if len(m.AuthList) > 0 {
		return nil, errorsmod.Wrap(ErrInvalidRequest, "set-code authorizations (EIP-7702) are not executed by the local EVM minitia")
	}
	out, err := s.k.execute(ctx, caller, &to, input, value, list, true)
	if err != nil {
		return nil, err
	}
	s.k.emit(ctx, "call", out)
	return &initiaevm.MsgCallResponse{Result: hexutil.Encode(out.ret), Logs: wireLogs(out.logs)}, nil
}

// emit puts minievm's events on the tx: the action, then the logs as JSON.
func (k *Keeper) emit(ctx sdk.Context, action string, out outcome) {
	if action == "create" {
		ctx.EventManager().EmitEvent(sdk.NewEvent("create", sdk.NewAttribute("contract", out.contract.Hex())))
	} else {
		ctx.EventManager().EmitEvent(sdk.NewEvent("call", sdk.NewAttribute("ret", hexutil.Encode(out.ret))))
	}
	attrs := make([]sdk.Attribute, 0, len(out.logs))
	for _, l := range wireLogs(out.logs) {
		bz, _ := json.Marshal(l)
		attrs = append(attrs, sdk.NewAttribute("log", string(bz)))
	}
	ctx.EventManager().EmitEvent(sdk.NewEvent("evm", attrs...))
}

type queryServer struct{ k *Keeper }

func (s queryServer) Call(goCtx context.Context, r *initiaevm.QueryCallRequest) (*initiaevm.QueryCallResponse, error) {
	ctx := sdk.UnwrapSDKContext(goCtx)
	sender, err := s.k.addresses.StringToBytes(r.Sender)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	var to *common.Address
	if r.ContractAddr != "" {
		addr, err := s.k.ParseAddress(r.ContractAddr)
		if err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		to = &addr
	}
	input, err := decodeHex("input", r.Input)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	value, err := toValue(r.Value)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	list, err := s.k.accessList(r.AccessList)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if r.TraceOptions != nil || len(r.AuthList) > 0 {
		return nil, status.Error(codes.Unimplemented, "traces and set-code authorizations are not served by the local EVM minitia")
	}
	ctx, _ = ctx.CacheContext()
	out, err := s.k.execute(ctx, common.BytesToAddress(sender), to, input, value, list, false)
	used := ctx.GasMeter().GasConsumedToLimit()
	if err != nil {
		return &initiaevm.QueryCallResponse{Error: err.Error(), UsedGas: used}, nil
	}
	return &initiaevm.QueryCallResponse{Response: hexutil.Encode(out.ret), UsedGas: used, Logs: wireLogs(out.logs)}, nil
}

func (s queryServer) contract(r string) (common.Address, error) {
	if r == "" {
		return common.Address{}, status.Error(codes.InvalidArgument, "empty contract address")
	}
	addr, err := s.k.ParseAddress(r)
	if err != nil {
		return common.Address{}, status.Error(codes.InvalidArgument, err.Error())
	}
	return addr, nil
}

func (s queryServer) Code(goCtx context.Context, r *initiaevm.QueryCodeRequest) (*initiaevm.QueryCodeResponse, error) {
	addr, err := s.contract(r.ContractAddr)
	if err != nil {
		return nil, err
	}
	return &initiaevm.QueryCodeResponse{Code: hexutil.Encode(newStateDB(s.k, sdk.UnwrapSDKContext(goCtx)).GetCode(addr))}, nil
}

func (s queryServer) State(goCtx context.Context, r *initiaevm.QueryStateRequest) (*initiaevm.QueryStateResponse, error) {
	addr, err := s.contract(r.ContractAddr)
	if err != nil {
		return nil, err
	}
	key, err := hexutil.Decode(r.Key)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	v := newStateDB(s.k, sdk.UnwrapSDKContext(goCtx)).GetState(addr, common.BytesToHash(key))
	return &initiaevm.QueryStateResponse{Value: v.Hex()}, nil
}

// AppModule is x/evm in the app's module manager.
type AppModule struct{ K *Keeper }

var (
	_ module.HasServices    = AppModule{}
	_ module.HasGenesis     = AppModule{}
	_ module.AppModuleBasic = AppModule{}
)

func (AppModule) Name() string                                                  { return ModuleName }
func (AppModule) IsOnePerModuleType()                                           {}
func (AppModule) IsAppModule()                                                  {}
func (AppModule) RegisterLegacyAminoCodec(*codec.LegacyAmino)                   {}
func (AppModule) RegisterInterfaces(r codectypes.InterfaceRegistry)             { initiaevm.RegisterInterfaces(r) }
func (AppModule) RegisterGRPCGatewayRoutes(client.Context, *gwruntime.ServeMux) {}

// RegisterServices registers minievm's message and query services.
func (m AppModule) RegisterServices(cfg module.Configurator) {
	initiaevm.RegisterMsgServer(cfg.MsgServer(), msgServer{m.K})
	initiaevm.RegisterQueryServer(cfg.QueryServer(), queryServer{m.K})
}

// The module's genesis is a minievm's default params and its fee token, deployed from the
// chain address with the fee denom's 18 decimals before the bank mints; other contracts are
// deployed by txs.
func (AppModule) DefaultGenesis(codec.JSONCodec) json.RawMessage { return json.RawMessage(`{}`) }
func (AppModule) ValidateGenesis(codec.JSONCodec, client.TxEncodingConfig, json.RawMessage) error {
	return nil
}
func (m AppModule) InitGenesis(ctx sdk.Context, _ codec.JSONCodec, _ json.RawMessage) {
	if err := m.K.SetParams(ctx, DefaultParams(m.K.denom)); err != nil {
		panic(err)
	}
	if _, err := m.K.InitFeeToken(ctx, EtherDecimals); err != nil {
		panic(err)
	}
}
func (AppModule) ExportGenesis(sdk.Context, codec.JSONCodec) json.RawMessage {
	return json.RawMessage(`{}`)
}
