// Package wasmexec is the CosmWasm executor of a dev node: wasmd's messages (store code,
// instantiate, execute) and queries (smart, raw, code, contract info, contracts by code), run
// on wasmvm/v3 with wasmd's gas schedule, state layout, events, contract addresses and error
// codes. It does not use wasmd's keeper; it uses wasmd's message, query and state types.
package wasmexec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/store/prefix"
	storetypes "cosmossdk.io/store/types"
	"github.com/CosmWasm/wasmd/x/wasm/ioutils"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	wasmvm "github.com/CosmWasm/wasmvm/v3"
	wasmvmtypes "github.com/CosmWasm/wasmvm/v3/types"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/address"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/gogoproto/proto"

	"github.com/vipharness/vipharness/localnet/devnode"
)

// DefaultCapabilities are the capabilities of a current wasmd chain.
var DefaultCapabilities = []string{
	"iterator", "staking", "stargate",
	"cosmwasm_1_1", "cosmwasm_1_2", "cosmwasm_1_3", "cosmwasm_1_4",
	"cosmwasm_2_0", "cosmwasm_2_1", "cosmwasm_2_2", "cosmwasm_3_0",
}

// wasmd's address API costs (SDK gas) and JSON deserialization cost per byte.
const (
	costHumanizeSDK     = 5
	costCanonicalizeSDK = 4
	costValidateSDK     = costHumanizeSDK + costCanonicalizeSDK
	memoryLimitMiB      = 32
	cacheSizeMiB        = 100
)

type config struct {
	dir          string
	capabilities []string
	memoryLimit  uint32
	cacheSize    uint32
	debug        bool
}

// Option configures New.
type Option func(*config)

// WithDataDir keeps the VM's code cache in dir (default: a temporary directory removed by Close).
func WithDataDir(dir string) Option { return func(c *config) { c.dir = dir } }

// WithCapabilities sets the chain's capabilities (default DefaultCapabilities).
func WithCapabilities(caps ...string) Option { return func(c *config) { c.capabilities = caps } }

// WithMemoryLimit sets the per-instance memory limit in MiB (default 32, as wasmd).
func WithMemoryLimit(mib uint32) Option { return func(c *config) { c.memoryLimit = mib } }

// WithDebug lets contracts print debug messages to stdout.
func WithDebug() Option { return func(c *config) { c.debug = true } }

// Executor runs CosmWasm contracts for a dev node.
type Executor struct {
	vm      *wasmvm.VM
	dir     string
	ownDir  bool
	gas     wasmtypes.WasmGasRegister
	deser   wasmvmtypes.UFraction
	closeMu sync.Mutex
	closed  bool
}

var _ devnode.Executor = (*Executor)(nil)

// New creates the VM.
func New(opts ...Option) (*Executor, error) {
	cfg := config{capabilities: DefaultCapabilities, memoryLimit: memoryLimitMiB, cacheSize: cacheSizeMiB}
	for _, o := range opts {
		o(&cfg)
	}
	e := &Executor{dir: cfg.dir, gas: wasmtypes.NewDefaultWasmGasRegister()}
	if e.dir == "" {
		dir, err := os.MkdirTemp("", "devnode-wasm-")
		if err != nil {
			return nil, fmt.Errorf("wasm executor: data dir: %w", err)
		}
		e.dir, e.ownDir = dir, true
	}
	vm, err := wasmvm.NewVM(e.dir, cfg.capabilities, cfg.memoryLimit, cfg.debug, cfg.cacheSize)
	if err != nil {
		if e.ownDir {
			_ = os.RemoveAll(e.dir)
		}
		return nil, fmt.Errorf("wasm executor: create vm: %w", err)
	}
	e.vm = vm
	e.deser = wasmvmtypes.UFraction{Numerator: e.gas.ToWasmVMGas(1), Denominator: 1}
	return e, nil
}

// Close releases the VM and removes its temporary directory; safe to call more than once.
func (e *Executor) Close() error {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	e.vm.Cleanup()
	if e.ownDir {
		return os.RemoveAll(e.dir)
	}
	return nil
}

// Module is "wasm".
func (e *Executor) Module() string { return wasmtypes.ModuleName }

// RegisterInterfaces registers wasmd's messages.
func (e *Executor) RegisterInterfaces(reg codectypes.InterfaceRegistry) {
	wasmtypes.RegisterInterfaces(reg)
}

// MsgTypeURLs are the messages Execute runs.
func (e *Executor) MsgTypeURLs() []string {
	return []string{
		sdk.MsgTypeURL(&wasmtypes.MsgStoreCode{}),
		sdk.MsgTypeURL(&wasmtypes.MsgInstantiateContract{}),
		sdk.MsgTypeURL(&wasmtypes.MsgExecuteContract{}),
	}
}

// Execute runs one wasmd message.
func (e *Executor) Execute(ctx *devnode.Context, msg sdk.Msg) (proto.Message, error) {
	switch m := msg.(type) {
	case *wasmtypes.MsgStoreCode:
		return e.storeCode(ctx, m)
	case *wasmtypes.MsgInstantiateContract:
		return e.instantiate(ctx, m)
	case *wasmtypes.MsgExecuteContract:
		return e.execute(ctx, m)
	}
	return nil, errorsmod.Wrapf(sdkerrors.ErrUnknownRequest, "unrecognized wasm message type: %T", msg)
}

// ContractAddress is wasmd's classic contract address: the module address of "wasm" and
// code id || instance id (big endian), 32 bytes.
func ContractAddress(codeID, instanceID uint64) []byte {
	id := make([]byte, 16)
	binary.BigEndian.PutUint64(id[:8], codeID)
	binary.BigEndian.PutUint64(id[8:], instanceID)
	return address.Module(wasmtypes.ModuleName, id)[:wasmtypes.ContractAddrLen]
}

// --- messages ---

func (e *Executor) storeCode(ctx *devnode.Context, msg *wasmtypes.MsgStoreCode) (proto.Message, error) {
	if _, err := ctx.Addresses.StringToBytes(msg.Sender); err != nil {
		return nil, errorsmod.Wrap(sdkerrors.ErrInvalidAddress, "sender: "+err.Error())
	}
	if len(msg.WASMByteCode) == 0 {
		return nil, errorsmod.Wrap(sdkerrors.ErrInvalidRequest, "code bytes cannot be empty: empty")
	}
	if len(msg.WASMByteCode) > wasmtypes.MaxWasmSize {
		return nil, errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "code bytes cannot be longer than %d bytes: exceeds limit", wasmtypes.MaxWasmSize)
	}
	access := wasmtypes.AllowEverybody
	if msg.InstantiatePermission != nil {
		if err := msg.InstantiatePermission.ValidateBasic(); err != nil {
			return nil, errorsmod.Wrap(err, "instantiate permission")
		}
		access = *msg.InstantiatePermission
	}
	code := msg.WASMByteCode
	if ioutils.IsGzip(code) {
		ctx.GasMeter.ConsumeGas(e.gas.UncompressCosts(len(code)), "Uncompress gzip bytecode")
		var err error
		if code, err = ioutils.Uncompress(code, int64(wasmtypes.MaxWasmSize)); err != nil {
			return nil, wasmtypes.ErrCreateFailed.Wrap(errorsmod.Wrap(err, "uncompress wasm archive").Error())
		}
	}
	var (
		checksum wasmvm.Checksum
		gasUsed  uint64
		err      error
	)
	if ctx.Simulate {
		checksum, gasUsed, err = e.vm.SimulateStoreCode(code, e.runtimeGas(ctx))
	} else {
		checksum, gasUsed, err = e.vm.StoreCode(code, e.runtimeGas(ctx))
	}
	e.consumeRuntimeGas(ctx, gasUsed)
	if err != nil {
		return nil, errorsmod.Wrap(wasmtypes.ErrCreateFailed, err.Error())
	}
	var caps string
	if !ctx.Simulate {
		report, err := e.vm.AnalyzeCode(checksum)
		if err != nil {
			return nil, errorsmod.Wrap(wasmtypes.ErrCreateFailed, err.Error())
		}
		caps = report.RequiredCapabilities
	}
	store := ctx.KVStore(wasmtypes.ModuleName)
	codeID := nextID(store, wasmtypes.KeySequenceCodeID)
	info := wasmtypes.CodeInfo{CodeHash: checksum, Creator: msg.Sender, InstantiateConfig: access}
	store.Set(wasmtypes.GetCodeKey(codeID), mustMarshal(&info))
	ev := sdk.NewEvent(wasmtypes.EventTypeStoreCode,
		sdk.NewAttribute(wasmtypes.AttributeKeyChecksum, fmt.Sprintf("%x", []byte(checksum))),
		sdk.NewAttribute(wasmtypes.AttributeKeyCodeID, strconv.FormatUint(codeID, 10)))
	for _, f := range strings.Split(caps, ",") {
		ev = ev.AppendAttributes(sdk.NewAttribute(wasmtypes.AttributeKeyRequiredCapability, strings.TrimSpace(f)))
	}
	ctx.EmitEvent(ev)
	return &wasmtypes.MsgStoreCodeResponse{CodeID: codeID, Checksum: checksum}, nil
}

func (e *Executor) instantiate(ctx *devnode.Context, msg *wasmtypes.MsgInstantiateContract) (proto.Message, error) {
	sender, err := ctx.Addresses.StringToBytes(msg.Sender)
	if err != nil {
		return nil, errorsmod.Wrap(sdkerrors.ErrInvalidAddress, "sender: "+err.Error())
	}
	if msg.Admin != "" {
		if _, err := ctx.Addresses.StringToBytes(msg.Admin); err != nil {
			return nil, errorsmod.Wrap(sdkerrors.ErrInvalidAddress, "admin: "+err.Error())
		}
	}
	if msg.CodeID == 0 {
		return nil, errorsmod.Wrap(wasmtypes.ErrInvalid, "code id is required")
	}
	if strings.TrimSpace(msg.Label) == "" {
		return nil, errorsmod.Wrap(errorsmod.Wrap(wasmtypes.ErrEmpty, "is required"), "label")
	}
	if len(msg.Label) > wasmtypes.MaxLabelSize {
		return nil, errorsmod.Wrap(wasmtypes.ErrLimit.Wrapf("cannot be longer than %d characters", wasmtypes.MaxLabelSize), "label")
	}
	if !msg.Funds.IsValid() {
		return nil, sdkerrors.ErrInvalidCoins
	}
	if !json.Valid(msg.Msg) {
		return nil, errorsmod.Wrap(wasmtypes.ErrInvalid, "payload msg")
	}
	store := ctx.KVStore(wasmtypes.ModuleName)
	codeInfo := loadCode(store, msg.CodeID)
	if codeInfo == nil {
		return nil, wasmtypes.ErrNoSuchCodeFn(msg.CodeID).Wrapf("code id %d", msg.CodeID)
	}
	ctx.GasMeter.ConsumeGas(e.gas.SetupContractCost(e.discount(ctx, codeInfo.CodeHash), len(msg.Msg)), "Loading CosmWasm module: instantiate")
	if !allowed(codeInfo.InstantiateConfig, msg.Sender) {
		return nil, errorsmod.Wrap(sdkerrors.ErrUnauthorized, "can not instantiate")
	}
	contract := ContractAddress(msg.CodeID, nextID(store, wasmtypes.KeySequenceInstanceID))
	contractStr, err := ctx.Addresses.BytesToString(contract)
	if err != nil {
		return nil, errorsmod.Wrap(sdkerrors.ErrLogic, err.Error())
	}
	if store.Has(wasmtypes.GetContractAddressKey(contract)) {
		return nil, wasmtypes.ErrDuplicate.Wrap("contract address already exists, try a different combination of creator, checksum and salt")
	}
	ctx.EnsureAccount(contract)
	if !msg.Funds.IsZero() {
		if err := ctx.SendCoins(sender, contract, msg.Funds); err != nil {
			return nil, err
		}
	}
	res, err := e.call(ctx, store, contract, contractStr, func(env wasmvmtypes.Env, kv wasmvm.KVStore, api wasmvm.GoAPI, q wasmvm.Querier, gm wasmvm.GasMeter, limit uint64) (*wasmvmtypes.ContractResult, uint64, error) {
		return e.vm.Instantiate(codeInfo.CodeHash, env, info(msg.Sender, msg.Funds), msg.Msg, kv, api, q, gm, limit, e.deser)
	})
	if err != nil {
		return nil, err
	}
	if res.Err != "" {
		return nil, errorsmod.Wrap(wasmtypes.ErrInstantiateFailed, res.Err)
	}
	created := &wasmtypes.AbsoluteTxPosition{BlockHeight: uint64(ctx.Height), TxIndex: uint64(ctx.TxIndex)}
	cinfo := wasmtypes.ContractInfo{
		CodeID:     msg.CodeID,
		Creator:    msg.Sender,
		Admin:      msg.Admin,
		Label:      msg.Label,
		Created:    created,
		IBC2PortID: "wasm2" + strings.TrimPrefix(contractStr, bech32Prefix(contractStr)),
	}
	entry := cinfo.InitialHistory(msg.Msg)
	store.Set(wasmtypes.GetContractCodeHistoryElementKey(contract, 1), mustMarshal(&entry))
	store.Set(wasmtypes.GetContractByCreatedSecondaryIndexKey(contract, entry), []byte{})
	// wasmd's creator index, which ContractsByCreator reads.
	store.Set(wasmtypes.GetContractByCreatorSecondaryIndexKey(sender, entry.Updated.Bytes(), contract), []byte{})
	store.Set(wasmtypes.GetContractAddressKey(contract), mustMarshal(&cinfo))
	ctx.EmitEvent(sdk.NewEvent(wasmtypes.EventTypeInstantiate,
		sdk.NewAttribute(wasmtypes.AttributeKeyContractAddr, contractStr),
		sdk.NewAttribute(wasmtypes.AttributeKeyCodeID, strconv.FormatUint(msg.CodeID, 10))))
	data, err := e.handleResponse(ctx, contractStr, res.Ok)
	if err != nil {
		return nil, errorsmod.Wrap(err, "dispatch")
	}
	return &wasmtypes.MsgInstantiateContractResponse{Address: contractStr, Data: data}, nil
}

func (e *Executor) execute(ctx *devnode.Context, msg *wasmtypes.MsgExecuteContract) (proto.Message, error) {
	sender, err := ctx.Addresses.StringToBytes(msg.Sender)
	if err != nil {
		return nil, errorsmod.Wrap(sdkerrors.ErrInvalidAddress, "sender: "+err.Error())
	}
	contract, err := ctx.Addresses.StringToBytes(msg.Contract)
	if err != nil {
		return nil, errorsmod.Wrap(sdkerrors.ErrInvalidAddress, "contract: "+err.Error())
	}
	if !msg.Funds.IsValid() {
		return nil, sdkerrors.ErrInvalidCoins
	}
	if !json.Valid(msg.Msg) {
		return nil, errorsmod.Wrap(wasmtypes.ErrInvalid, "payload msg")
	}
	store := ctx.KVStore(wasmtypes.ModuleName)
	_, codeInfo, err := contractInstance(store, contract, msg.Contract)
	if err != nil {
		return nil, err
	}
	ctx.GasMeter.ConsumeGas(e.gas.SetupContractCost(e.discount(ctx, codeInfo.CodeHash), len(msg.Msg)), "Loading CosmWasm module: execute")
	if !msg.Funds.IsZero() {
		if err := ctx.SendCoins(sender, contract, msg.Funds); err != nil {
			return nil, err
		}
	}
	res, err := e.call(ctx, store, contract, msg.Contract, func(env wasmvmtypes.Env, kv wasmvm.KVStore, api wasmvm.GoAPI, q wasmvm.Querier, gm wasmvm.GasMeter, limit uint64) (*wasmvmtypes.ContractResult, uint64, error) {
		return e.vm.Execute(codeInfo.CodeHash, env, info(msg.Sender, msg.Funds), msg.Msg, kv, api, q, gm, limit, e.deser)
	})
	if err != nil {
		return nil, err
	}
	if res.Err != "" {
		return nil, errorsmod.Wrap(wasmtypes.ErrExecuteFailed, res.Err)
	}
	ctx.EmitEvent(sdk.NewEvent(wasmtypes.EventTypeExecute, sdk.NewAttribute(wasmtypes.AttributeKeyContractAddr, msg.Contract)))
	data, err := e.handleResponse(ctx, msg.Contract, res.Ok)
	if err != nil {
		return nil, err
	}
	return &wasmtypes.MsgExecuteContractResponse{Data: data}, nil
}

type vmCall func(env wasmvmtypes.Env, kv wasmvm.KVStore, api wasmvm.GoAPI, q wasmvm.Querier, gm wasmvm.GasMeter, limit uint64) (*wasmvmtypes.ContractResult, uint64, error)

// call runs a contract entry point with the contract's prefixed store, charging the VM's gas.
func (e *Executor) call(ctx *devnode.Context, store storetypes.KVStore, contract []byte, contractStr string, f vmCall) (*wasmvmtypes.ContractResult, error) {
	kv := kvAdapter{prefix.NewStore(store, wasmtypes.GetContractStorePrefix(contract))}
	res, gasUsed, err := f(e.env(ctx, contractStr), kv, goAPI(ctx), noQuerier{}, e.meter(ctx), e.runtimeGas(ctx))
	e.consumeRuntimeGas(ctx, gasUsed)
	if err != nil {
		return nil, errorsmod.Wrap(wasmtypes.ErrVMError, err.Error())
	}
	if res == nil {
		return nil, errorsmod.Wrap(wasmtypes.ErrVMError, "internal wasmvm error")
	}
	return res, nil
}

// handleResponse charges and emits the contract's attributes and events as wasmd does and
// returns the response data. Sub-messages are not dispatched by this node.
func (e *Executor) handleResponse(ctx *devnode.Context, contract string, res *wasmvmtypes.Response) ([]byte, error) {
	ctx.GasMeter.ConsumeGas(e.gas.EventCosts(res.Attributes, res.Events), "Custom contract event attributes")
	if len(res.Attributes) != 0 {
		attrs, err := contractAttributes(res.Attributes, contract)
		if err != nil {
			return nil, err
		}
		ctx.EmitEvent(sdk.NewEvent(wasmtypes.WasmModuleEventType, attrs...))
	}
	for _, ev := range res.Events {
		typ := strings.TrimSpace(ev.Type)
		if len(typ) <= 2 {
			return nil, errorsmod.Wrap(wasmtypes.ErrInvalidEvent, fmt.Sprintf("Event type too short: '%s'", typ))
		}
		attrs, err := contractAttributes(ev.Attributes, contract)
		if err != nil {
			return nil, err
		}
		ctx.EmitEvent(sdk.NewEvent(wasmtypes.CustomContractEventPrefix+typ, attrs...))
	}
	if len(res.Messages) != 0 {
		return nil, errorsmod.Wrapf(wasmtypes.ErrUnsupportedForContract, "this dev node does not dispatch contract sub-messages (%d returned)", len(res.Messages))
	}
	return res.Data, nil
}

func contractAttributes(in []wasmvmtypes.EventAttribute, contract string) ([]sdk.Attribute, error) {
	attrs := []sdk.Attribute{sdk.NewAttribute(wasmtypes.AttributeKeyContractAddr, contract)}
	for _, a := range in {
		key := strings.TrimSpace(a.Key)
		if key == "" {
			return nil, errorsmod.Wrap(wasmtypes.ErrInvalidEvent, fmt.Sprintf("Empty attribute key. Value: %s", a.Value))
		}
		if strings.HasPrefix(key, wasmtypes.AttributeReservedPrefix) {
			return nil, errorsmod.Wrap(wasmtypes.ErrInvalidEvent, fmt.Sprintf("Attribute key starts with reserved prefix %s: '%s'", wasmtypes.AttributeReservedPrefix, key))
		}
		attrs = append(attrs, sdk.NewAttribute(key, strings.TrimSpace(a.Value)))
	}
	return attrs, nil
}

// --- gas ---

// runtimeGas is the VM gas left in the tx (or query).
func (e *Executor) runtimeGas(ctx *devnode.Context) uint64 {
	m := ctx.GasMeter
	if m.IsOutOfGas() {
		return 0
	}
	if m.Limit() == math.MaxUint64 {
		return math.MaxUint64
	}
	return e.gas.ToWasmVMGas(m.Limit() - m.GasConsumedToLimit())
}

// consumeRuntimeGas charges VM gas in SDK units; running out panics with ErrorOutOfGas.
func (e *Executor) consumeRuntimeGas(ctx *devnode.Context, vmGas uint64) {
	ctx.GasMeter.ConsumeGas(e.gas.FromWasmVMGas(vmGas), "wasm contract")
	if ctx.GasMeter.IsOutOfGas() {
		panic(storetypes.ErrorOutOfGas{Descriptor: "Wasm engine function execution"})
	}
}

// discount reports whether the code was already loaded in this tx (wasmd's discounted
// instance cost).
func (e *Executor) discount(ctx *devnode.Context, checksum []byte) bool {
	seen, _ := ctx.TxValue("wasm/loaded").(map[string]bool)
	if seen == nil {
		seen = map[string]bool{}
		ctx.SetTxValue("wasm/loaded", seen)
	}
	if seen[string(checksum)] {
		return true
	}
	seen[string(checksum)] = true
	return false
}

func (e *Executor) meter(ctx *devnode.Context) wasmvm.GasMeter {
	return multipliedMeter{m: ctx.GasMeter, gas: e.gas}
}

type multipliedMeter struct {
	m   storetypes.GasMeter
	gas wasmtypes.WasmGasRegister
}

func (m multipliedMeter) GasConsumed() wasmvmtypes.Gas { return m.gas.ToWasmVMGas(m.m.GasConsumed()) }

// --- environment ---

func (e *Executor) env(ctx *devnode.Context, contract string) wasmvmtypes.Env {
	env := wasmvmtypes.Env{
		Block: wasmvmtypes.BlockInfo{
			Height:  uint64(ctx.Height),
			Time:    wasmvmtypes.Uint64(ctx.Time.UnixNano()),
			ChainID: ctx.ChainID,
		},
		Contract: wasmvmtypes.ContractInfo{Address: contract},
	}
	if !ctx.Query {
		env.Transaction = &wasmvmtypes.TransactionInfo{Index: ctx.TxIndex, Hash: txHash(ctx.TxBytes)}
	}
	return env
}

func info(sender string, funds sdk.Coins) wasmvmtypes.MessageInfo {
	return wasmvmtypes.MessageInfo{Sender: sender, Funds: wasmtypes.NewWasmCoins(funds)}
}

// allowed applies an instantiate permission.
func allowed(cfg wasmtypes.AccessConfig, actor string) bool {
	switch cfg.Permission {
	case wasmtypes.AccessTypeEverybody:
		return true
	case wasmtypes.AccessTypeAnyOfAddresses:
		for _, a := range cfg.Addresses {
			if a == actor {
				return true
			}
		}
	}
	return false
}

// --- state ---

func nextID(store storetypes.KVStore, key []byte) uint64 {
	id := uint64(1)
	if bz := store.Get(key); bz != nil {
		id = binary.BigEndian.Uint64(bz)
	}
	store.Set(key, binary.BigEndian.AppendUint64(nil, id+1))
	return id
}

func loadCode(store storetypes.KVStore, codeID uint64) *wasmtypes.CodeInfo {
	bz := store.Get(wasmtypes.GetCodeKey(codeID))
	if bz == nil {
		return nil
	}
	var info wasmtypes.CodeInfo
	mustUnmarshal(bz, &info)
	return &info
}

func loadContract(store storetypes.KVStore, contract []byte) *wasmtypes.ContractInfo {
	bz := store.Get(wasmtypes.GetContractAddressKey(contract))
	if bz == nil {
		return nil
	}
	var info wasmtypes.ContractInfo
	mustUnmarshal(bz, &info)
	return &info
}

// contractInstance loads a contract and its code.
func contractInstance(store storetypes.KVStore, contract []byte, contractStr string) (*wasmtypes.ContractInfo, *wasmtypes.CodeInfo, error) {
	cinfo := loadContract(store, contract)
	if cinfo == nil {
		return nil, nil, wasmtypes.ErrNoSuchContractFn(contractStr).Wrapf("address %s", contractStr)
	}
	code := loadCode(store, cinfo.CodeID)
	if code == nil {
		return nil, nil, wasmtypes.ErrNoSuchCodeFn(cinfo.CodeID).Wrapf("code id %d", cinfo.CodeID)
	}
	return cinfo, code, nil
}

func mustMarshal(m proto.Message) []byte {
	bz, err := proto.Marshal(m)
	if err != nil {
		panic(errorsmod.Wrap(sdkerrors.ErrLogic, err.Error()))
	}
	return bz
}

func mustUnmarshal(bz []byte, m proto.Message) {
	if err := proto.Unmarshal(bz, m); err != nil {
		panic(errorsmod.Wrap(sdkerrors.ErrLogic, err.Error()))
	}
}

func bech32Prefix(addr string) string {
	if i := strings.LastIndexByte(addr, '1'); i > 0 {
		return addr[:i]
	}
	return ""
}
