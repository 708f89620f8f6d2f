package xmove

// The executor: Initia's x/move messages (publish, execute, execute JSON) and queries
// (module, resource, view) run on Initia's MoveVM (movevm v1.1.2's libmovevm through
// localnet/movevm), with the MinitiaStdlib at genesis, as on a minimove v1.1.11 (the L1
// stand-in passes our framework). It follows Initia's keeper where it matters to clients:
// publish goes through 0x1::code::publish_v2; the VM meters its own gas (the SDK meter is
// charged what the VM used, and a simulation runs under a fixed contract gas limit); events
// are "execute" plus one "move" event per Move event; a VM failure is the library's message,
// unwrapped.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"

	errorsmod "cosmossdk.io/errors"
	storetypes "cosmossdk.io/store/types"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/gogoproto/proto"

	"github.com/vipharness/vipharness/localnet/movevm"
)

// ModuleName is x/move's module and store name.
const ModuleName = "move"

// DefaultSimulationGasLimit is Initia's DefaultContractSimulationGasLimit: a simulated
// execution gets this much VM gas whatever the tx's gas limit.
const DefaultSimulationGasLimit = 3_000_000

// x/move's registered errors that the dev node can return (codespace "move").
var (
	ErrEmpty                     = errorsmod.Register(ModuleName, 2, "empty")
	ErrNotSupportedCosmosMessage = errorsmod.Register(ModuleName, 9, "malformed cosmos message")
	ErrInvalidRequest            = errorsmod.Register(ModuleName, 11, "invalid request")
)

// executionCounterKey keeps the count of executions, from which session ids are derived:
// x/move's ExecutionCounter key. No VM key is a single byte (they start with a 32-byte
// address). Chains kept by earlier versions counted at legacyExecutionCounterKey.
var (
	executionCounterKey       = []byte{0x11}
	legacyExecutionCounterKey = []byte{0xff}
)

type config struct {
	libDir    string
	framework [][]byte
	allowed   []movebcs.Address
	simGas    uint64
	packages  []GenesisPackage
}

// GenesisPackage is a package a chain starts with beside the framework (as the L1 starts with
// its vip module): published under Owner, then Calls run signed by Owner.
type GenesisPackage struct {
	Owner   movebcs.Address
	Modules [][]byte
	Calls   []movevm.Function
}

// WithGenesisPackage publishes a package at genesis under any address: the node, not a key,
// signs for it.
func WithGenesisPackage(p GenesisPackage) Option {
	return func(c *config) { c.packages = append(c.packages, p) }
}

// Option configures New.
type Option func(*config)

// WithLibraryDir loads libmovevm from dir (default movevm.Dir()).
func WithLibraryDir(dir string) Option { return func(c *config) { c.libDir = dir } }

// WithFramework publishes these modules at 0x1 at genesis (default: the MinitiaStdlib a
// minimove runs, movevm.MinitiaStdlib).
func WithFramework(modules [][]byte) Option { return func(c *config) { c.framework = modules } }

// WithAllowedPublishers limits who may publish modules (default: anyone).
func WithAllowedPublishers(addrs ...movebcs.Address) Option {
	return func(c *config) { c.allowed = addrs }
}

// WithSimulationGasLimit sets the VM gas of a simulated execution (default 3,000,000).
func WithSimulationGasLimit(gas uint64) Option { return func(c *config) { c.simGas = gas } }

// Executor runs Move modules for a dev node.
type Executor struct {
	vm        *movevm.VM
	rt        *movevm.Runtime
	framework [][]byte
	allowed   []movebcs.Address
	simGas    uint64
	packages  []GenesisPackage
}

// New loads the MoveVM.
func New(opts ...Option) (*Executor, error) {
	cfg := config{libDir: movevm.Dir(), simGas: DefaultSimulationGasLimit}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.framework == nil {
		fw, err := movevm.MinitiaStdlib()
		if err != nil {
			return nil, fmt.Errorf("move executor: %w", err)
		}
		cfg.framework = fw
	}
	vm, err := movevm.OpenVM(cfg.libDir)
	if err != nil {
		return nil, fmt.Errorf("move executor: %w", err)
	}
	rt, err := vm.NewRuntime(movevm.DefaultConfig)
	if err != nil {
		return nil, fmt.Errorf("move executor: %w", err)
	}
	return &Executor{vm: vm, rt: rt, framework: cfg.framework, allowed: cfg.allowed, simGas: cfg.simGas, packages: cfg.packages}, nil
}

// Close releases the VM.
func (e *Executor) Close() error {
	e.rt.Close()
	return nil
}

// Module is "move".
func (e *Executor) Module() string { return ModuleName }

// RegisterInterfaces registers the Move messages.
func (e *Executor) RegisterInterfaces(reg codectypes.InterfaceRegistry) {
	initiamove.RegisterInterfaces(reg)
}

// MsgTypeURLs are the messages Execute runs.
func (e *Executor) MsgTypeURLs() []string {
	return []string{sdk.MsgTypeURL(&initiamove.MsgPublish{}), sdk.MsgTypeURL(&initiamove.MsgExecute{}), sdk.MsgTypeURL(&initiamove.MsgExecuteJSON{}),
		sdk.MsgTypeURL(&initiamove.MsgScript{}), sdk.MsgTypeURL(&initiamove.MsgScriptJSON{})}
}

// Genesis publishes the framework at 0x1 and runs its initialization, then publishes and
// sets up the genesis packages.
func (e *Executor) Genesis(ctx Ctx) error {
	if _, err := e.rt.Genesis(e.store(ctx), e.env(ctx, false), e.framework, e.allowed); err != nil {
		return err
	}
	const gas = 1 << 40
	for _, p := range e.packages {
		if _, err := e.rt.Execute(e.store(ctx), e.env(ctx, true), gas, []movebcs.Address{p.Owner}, publishCall(p.Modules, initiamove.COMPATIBLE)); err != nil {
			return fmt.Errorf("publish genesis package at %s: %w", p.Owner.Short(), err)
		}
		for _, f := range p.Calls {
			if _, err := e.rt.Execute(e.store(ctx), e.env(ctx, true), gas, []movebcs.Address{p.Owner}, f); err != nil {
				return fmt.Errorf("genesis call %s::%s: %w", f.Module, f.Function, err)
			}
		}
	}
	return nil
}

// publishCall is 0x1::code::publish_v2(code, policy), as x/move runs a MsgPublish.
func publishCall(modules [][]byte, policy initiamove.UpgradePolicy) movevm.Function {
	return movevm.Function{
		Module:   movevm.ModuleID{Address: movebcs.MustAddress("0x1"), Name: "code"},
		Function: "publish_v2",
		Args:     [][]byte{movebcs.ArgBytesVec(modules), {byte(policy)}},
	}
}

func (e *Executor) store(ctx Ctx) storetypes.KVStore {
	return ctx.Store()
}

// env is the VM's view of the block and tx. Each execution gets its own session id (tx hash,
// message index and a chain-wide execution counter), as new table handles derive from it.
func (e *Executor) env(ctx Ctx, count bool) movevm.Env {
	env := movevm.Env{
		Accounts:          ctx.Account,
		ChainID:           ctx.ChainID(),
		BlockHeight:       uint64(ctx.BlockHeight()),
		BlockTimestamp:    uint64(ctx.BlockTime().Unix()),
		NextAccountNumber: ctx.NextAccountNumber(),
	}
	if len(ctx.TxBytes()) > 0 {
		env.TxHash = sha256.Sum256(ctx.TxBytes())
	}
	// An execution moves the counter on through the tx's gas meter, as x/move's
	// ExecutionCounter.Next does.
	store := e.store(ctx)
	if count {
		store = ctx.MeteredStore()
	}
	var n uint64
	if bz := store.Get(executionCounterKey); bz != nil {
		n = binary.BigEndian.Uint64(bz)
	} else if bz := e.store(ctx).Get(legacyExecutionCounterKey); bz != nil {
		n = binary.BigEndian.Uint64(bz)
	}
	if count {
		store.Set(executionCounterKey, binary.BigEndian.AppendUint64(nil, n+1))
	}
	var seed []byte
	seed = append(seed, env.TxHash[:]...)
	seed = binary.BigEndian.AppendUint64(seed, uint64(ctx.MsgIndex()))
	seed = binary.BigEndian.AppendUint64(seed, n)
	env.SessionID = sha256.Sum256(seed)
	return env
}

// runtimeGas is the VM gas of an execution: what the tx has left, or the simulation limit.
func (e *Executor) runtimeGas(ctx Ctx) uint64 {
	gas := ctx.GasMeter().Limit() - ctx.GasMeter().GasConsumedToLimit()
	if ctx.Simulating() && !ctx.Querying() {
		gas = e.simGas
	}
	// The VM scales gas by 100 internally; larger limits would overflow.
	return min(gas, math.MaxUint64/100)
}

// Run runs one x/move message.
func (e *Executor) Run(ctx Ctx, msg sdk.Msg) (proto.Message, error) {
	switch m := msg.(type) {
	case *initiamove.MsgPublish:
		return e.publish(ctx, m)
	case *initiamove.MsgExecute:
		fn, err := e.function(ctx, m.ModuleAddress, m.ModuleName, m.FunctionName, m.TypeArgs)
		if err != nil {
			return nil, err
		}
		fn.Args = m.Args
		return &initiamove.MsgExecuteResponse{}, e.execute(ctx, m.Sender, fn)
	case *initiamove.MsgExecuteJSON:
		fn, err := e.function(ctx, m.ModuleAddress, m.ModuleName, m.FunctionName, m.TypeArgs)
		if err != nil {
			return nil, err
		}
		for _, a := range m.Args {
			fn.Args = append(fn.Args, []byte(a))
		}
		fn.IsJSON = true
		return &initiamove.MsgExecuteJSONResponse{}, e.execute(ctx, m.Sender, fn)
	case *initiamove.MsgScript:
		return &initiamove.MsgScriptResponse{}, e.script(ctx, m.Sender, m.CodeBytes, m.TypeArgs, m.Args, false)
	case *initiamove.MsgScriptJSON:
		args := make([][]byte, len(m.Args))
		for i, a := range m.Args {
			args[i] = []byte(a)
		}
		return &initiamove.MsgScriptJSONResponse{}, e.script(ctx, m.Sender, m.CodeBytes, m.TypeArgs, args, true)
	}
	return nil, errorsmod.Wrapf(sdkerrors.ErrUnknownRequest, "unrecognized move message type: %T", msg)
}

func (e *Executor) publish(ctx Ctx, m *initiamove.MsgPublish) (proto.Message, error) {
	if len(m.CodeBytes) == 0 {
		return nil, errorsmod.Wrap(ErrEmpty, "code bytes")
	}
	for _, c := range m.CodeBytes {
		if len(c) == 0 {
			return nil, errorsmod.Wrap(ErrEmpty, "module code")
		}
	}
	if m.UpgradePolicy < 0 || m.UpgradePolicy > math.MaxUint8 {
		return nil, errorsmod.Wrapf(ErrInvalidRequest, "upgrade policy %d", m.UpgradePolicy)
	}
	return &initiamove.MsgPublishResponse{}, e.execute(ctx, m.Sender, publishCall(m.CodeBytes, m.UpgradePolicy))
}

// function reads a call's module address and type arguments as x/move reads them; their
// refusals are x/move's own errors, unwrapped (a query answers them with code 2).
func (e *Executor) function(ctx Ctx, addr, module, function string, typeArgs []string) (movevm.Function, error) {
	a, err := parseAddress(ctx, addr)
	if err != nil {
		return movevm.Function{}, err
	}
	tags, err := e.typeTags(typeArgs)
	if err != nil {
		return movevm.Function{}, err
	}
	return movevm.Function{Module: movevm.ModuleID{Address: a, Name: module}, Function: function, TypeArgs: tags}, nil
}

// typeTags parses type arguments as x/move's TypeTagsFromTypeArgs does.
func (e *Executor) typeTags(typeArgs []string) ([][]byte, error) {
	var tags [][]byte
	for _, t := range typeArgs {
		tag, err := e.rt.TypeTag(t)
		if err != nil {
			return nil, err
		}
		tags = append(tags, tag)
	}
	return tags, nil
}

// script runs a MsgScript(JSON) signed by its sender.
func (e *Executor) script(ctx Ctx, sender string, code []byte, typeArgs []string, args [][]byte, isJSON bool) error {
	if len(code) == 0 {
		return errorsmod.Wrap(ErrEmpty, "code bytes")
	}
	tags, err := e.typeTags(typeArgs)
	if err != nil {
		return err
	}
	from, err := ctx.Addresses().StringToBytes(sender)
	if err != nil {
		return errorsmod.Wrapf(sdkerrors.ErrInvalidAddress, "sender: %v", err)
	}
	return e.scriptAs(ctx, []movebcs.Address{movebcs.AccountAddress(from)}, movevm.Script{Code: code, TypeArgs: tags, Args: args, IsJSON: isJSON})
}

func (e *Executor) execute(ctx Ctx, sender string, fn movevm.Function) error {
	from, err := ctx.Addresses().StringToBytes(sender)
	if err != nil {
		return errorsmod.Wrapf(sdkerrors.ErrInvalidAddress, "sender: %v", err)
	}
	return e.executeAs(ctx, []movebcs.Address{movebcs.AccountAddress(from)}, fn)
}

// executeAs runs fn signed by senders: the VM's gas goes to the tx's meter, the accounts it
// made are written, and its events are emitted after x/move's "execute" event.
func (e *Executor) executeAs(ctx Ctx, senders []movebcs.Address, fn movevm.Function) error {
	return e.run(ctx, senders, func(env movevm.Env, gas uint64) (movevm.Result, error) {
		return e.rt.Execute(e.store(ctx), env, gas, senders, fn)
	}, func(sender string) sdk.Event {
		return sdk.NewEvent("execute",
			sdk.NewAttribute("sender", sender),
			sdk.NewAttribute("module_addr", fn.Module.Address.Short()),
			sdk.NewAttribute("module_name", fn.Module.Name),
			sdk.NewAttribute("function_name", fn.Function))
	})
}

// scriptAs runs a script signed by senders, as x/move runs MsgScript: its event is "script".
func (e *Executor) scriptAs(ctx Ctx, senders []movebcs.Address, s movevm.Script) error {
	return e.run(ctx, senders, func(env movevm.Env, gas uint64) (movevm.Result, error) {
		return e.rt.ExecuteScript(e.store(ctx), env, gas, senders, s)
	}, func(sender string) sdk.Event {
		return sdk.NewEvent("script", sdk.NewAttribute("sender", sender))
	})
}

// run is one execution as x/move makes it: the VM's gas on the tx's meter, the accounts it
// made written, then x/move's event (of the senders, joined) and one "move" event per Move
// event.
func (e *Executor) run(ctx Ctx, senders []movebcs.Address, exec func(movevm.Env, uint64) (movevm.Result, error), event func(sender string) sdk.Event) error {
	gas := e.runtimeGas(ctx)
	res, err := exec(e.env(ctx, true), gas)
	used := res.GasUsed
	var ee *movevm.ExecError
	if errors.As(err, &ee) {
		used = ee.GasUsed
	}
	ctx.GasMeter().ConsumeGas(used, "move runtime")
	if err != nil {
		if ee == nil {
			return errorsmod.Wrap(ErrInvalidRequest, err.Error())
		}
		return err
	}
	if res.CosmosMessages > 0 || res.StakingDeltas > 0 {
		return errorsmod.Wrapf(ErrNotSupportedCosmosMessage, "the dev node does not dispatch Cosmos messages or staking changes from Move (%d messages, %d deltas)", res.CosmosMessages, res.StakingDeltas)
	}
	for _, acc := range res.NewAccounts {
		ctx.CreateAccount(acc)
	}
	names := make([]string, len(senders))
	for i, s := range senders {
		names[i] = s.Short()
	}
	ctx.EmitEvent(event(strings.Join(names, ",")))
	for _, ev := range res.Events {
		ctx.EmitEvent(moveEvent(ev))
	}
	return nil
}

// moveEvent is Initia's "move" event: the type tag, the JSON data, and each top-level field
// of the data as its own attribute.
func moveEvent(ev movevm.Event) sdk.Event {
	attrs := []sdk.Attribute{sdk.NewAttribute("type_tag", ev.TypeTag), sdk.NewAttribute("data", ev.Data)}
	var fields map[string]any
	if json.Unmarshal([]byte(ev.Data), &fields) == nil {
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			var v string
			switch x := fields[k].(type) {
			case string:
				v = x
			case float64:
				v = strconv.FormatFloat(x, 'f', -1, 64)
			case bool:
				v = strconv.FormatBool(x)
			default:
				b, _ := json.Marshal(x)
				v = string(b)
			}
			attrs = append(attrs, sdk.NewAttribute(k, v))
		}
	}
	return sdk.NewEvent("move", attrs...)
}

// parseAddress reads 0x-hex or a bech32 account address.
func parseAddress(ctx Ctx, s string) (movebcs.Address, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return movebcs.ParseAddress(s)
	}
	bz, err := ctx.Addresses().StringToBytes(s)
	if err != nil {
		return movebcs.Address{}, err
	}
	if len(bz) > 32 {
		return movebcs.Address{}, fmt.Errorf("%s is %d bytes, more than 32", s, len(bz))
	}
	return movebcs.AccountAddress(bz), nil
}
