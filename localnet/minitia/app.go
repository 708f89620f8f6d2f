// Package minitia is the local rollups' Cosmos SDK application, wired as a minitia is
// (initia-labs/miniwasm app/modules.go): baseapp.BaseApp with the SDK's own x/auth, x/bank,
// x/authz, x/feegrant, x/upgrade and consensus params, the SDK's ante handler, Initia's
// eth_secp256k1 keys and SIGN_MODE_EIP_191, Initia's fee routes, and the VM as a module
// (wasmd's x/wasm, x/move in xmove, minievm's x/evm in xevm). Node runs it under a CometBFT
// node in the same process, with the SDK's API server (every module's REST routes) and gRPC
// server, and on EVM minievm's JSON-RPC (ethrpc).
//
// Only what the SDK and wasmd do not have is written here: the single-sequencer validator
// set (opchild's place), the EIP-191 signature check, the eth_secp256k1 signature gas and the
// fee discovery routes. Staking, gov, distribution, IBC and the oracle are left out: VIP
// scoring needs none of them.
package minitia

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corestore "cosmossdk.io/core/store"
	"cosmossdk.io/log"
	storetypes "cosmossdk.io/store/types"
	"cosmossdk.io/x/feegrant"
	feegrantkeeper "cosmossdk.io/x/feegrant/keeper"
	feegrantmodule "cosmossdk.io/x/feegrant/module"
	"cosmossdk.io/x/upgrade"
	upgradekeeper "cosmossdk.io/x/upgrade/keeper"
	upgradetypes "cosmossdk.io/x/upgrade/types"
	"github.com/CosmWasm/wasmd/x/wasm"
	wasmkeeper "github.com/CosmWasm/wasmd/x/wasm/keeper"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	wasmvm "github.com/CosmWasm/wasmvm/v3"
	wasmvmtypes "github.com/CosmWasm/wasmvm/v3/types"
	abci "github.com/cometbft/cometbft/abci/types"
	dbm "github.com/cosmos/cosmos-db"
	"github.com/cosmos/cosmos-sdk/baseapp"
	"github.com/cosmos/cosmos-sdk/client"
	nodeservice "github.com/cosmos/cosmos-sdk/client/grpc/node"
	"github.com/cosmos/cosmos-sdk/codec"
	"github.com/cosmos/cosmos-sdk/codec/legacy"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/runtime"
	"github.com/cosmos/cosmos-sdk/server/api"
	serverconfig "github.com/cosmos/cosmos-sdk/server/config"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	"github.com/cosmos/cosmos-sdk/std"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	"github.com/cosmos/cosmos-sdk/x/auth"
	authkeeper "github.com/cosmos/cosmos-sdk/x/auth/keeper"
	authtx "github.com/cosmos/cosmos-sdk/x/auth/tx"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"github.com/cosmos/cosmos-sdk/x/authz"
	authzkeeper "github.com/cosmos/cosmos-sdk/x/authz/keeper"
	authzmodule "github.com/cosmos/cosmos-sdk/x/authz/module"
	"github.com/cosmos/cosmos-sdk/x/bank"
	bankkeeper "github.com/cosmos/cosmos-sdk/x/bank/keeper"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/cosmos/cosmos-sdk/x/consensus"
	consensuskeeper "github.com/cosmos/cosmos-sdk/x/consensus/keeper"
	consensustypes "github.com/cosmos/cosmos-sdk/x/consensus/types"

	"github.com/vipharness/vipharness/bindings/initiaevm"
	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/feeroutes"
	"github.com/vipharness/vipharness/localnet/minitia/ethrpc"
	"github.com/vipharness/vipharness/localnet/minitia/xevm"
	"github.com/vipharness/vipharness/localnet/minitia/xmove"
)

// govModule is the module whose address holds every module's authority, as on a minitia
// (opchild's in theirs; no gov module runs here, so nothing can exercise it).
const govModule = "gov"

// App is the local minitia application.
type App struct {
	*baseapp.BaseApp

	cfg    Config
	vm     vmModule
	enc    *cosmostx.Encoding
	amino  *codec.LegacyAmino
	keys   map[string]*storetypes.KVStoreKey
	mm     *module.Manager
	basics module.BasicManager
	// nodeInfo answers node_info's application_version as a minitia of this VM.
	nodeInfo nodeInfo

	AccountKeeper   authkeeper.AccountKeeper
	BankKeeper      bankkeeper.BaseKeeper
	AuthzKeeper     authzkeeper.Keeper
	FeeGrantKeeper  feegrantkeeper.Keeper
	UpgradeKeeper   *upgradekeeper.Keeper
	ConsensusKeeper consensuskeeper.Keeper
	WasmKeeper      *wasmkeeper.Keeper
	MoveKeeper      *xmove.Keeper
	EVMKeeper       *xevm.Keeper
	// EthIndex is an EVM rollup's Ethereum blocks, txs and receipts (nil on other VMs).
	EthIndex *ethrpc.Index
	// moveBank holds a Move rollup's balances (nil elsewhere).
	moveBank *moveBank
	// vmBank is the bank of a rollup whose VM keeps balances (Move, EVM); nil where x/bank
	// keeps them (Wasm, the L1 stand-in).
	vmBank vmBank

	wasmDir string
	wasmVM  *wasmvm.VM

	// committed is the newest block whose state Commit has made what queries and
	// simulations read.
	committed atomic.Pointer[Committed]
	// opchildValidators lists the rollup's validators as opchild does (the node's consensus
	// set), for opchild's Validators query; nil: none.
	opchildValidators func(ctx context.Context) ([]feeroutes.Validator, error)
}

// Committed is a block the app has run and committed: its height and header time.
type Committed struct {
	Height int64
	Time   time.Time
}

// LastCommitted is the newest block the app has committed (nil before the first). CometBFT
// stores a block before the app runs it, so its block store can be a block ahead of what a
// query or a simulation sees.
func (a *App) LastCommitted() *Committed { return a.committed.Load() }

var _ servertypes.Application = (*App)(nil)

// NewApp builds the application over db with a validated cfg; home holds the Wasm code cache.
func NewApp(cfg Config, db dbm.DB, home string, logger log.Logger) (*App, error) {
	if err := setAddressPrefix(cfg.Bech32Prefix); err != nil {
		return nil, err
	}
	vmw, ok := vmModules[cfg.VM]
	if !ok {
		return nil, fmt.Errorf("minitia: VM %q has no module here", cfg.VM)
	}
	enc, err := cosmostx.NewEncoding(cfg.Bech32Prefix,
		authz.RegisterInterfaces, feegrant.RegisterInterfaces, upgradetypes.RegisterInterfaces,
		consensustypes.RegisterInterfaces, vmw.interfaces)
	if err != nil {
		return nil, fmt.Errorf("minitia: encoding: %w", err)
	}
	amino := codec.NewLegacyAmino()
	std.RegisterLegacyAminoCodec(amino)
	registerEthKeyAmino(amino)
	registerGlobalAmino()

	bapp := baseapp.NewBaseApp(cfg.AppName, logger, db, enc.TxConfig.TxDecoder(),
		baseapp.SetChainID(cfg.ChainID),
		baseapp.SetMinGasPrices(cfg.MinGasPrices().String()),
		baseapp.SetQueryGasLimit(cfg.QueryGasLimit))
	bapp.SetVersion(cfg.Version)
	bapp.SetInterfaceRegistry(enc.Registry)
	bapp.SetTxEncoder(enc.TxConfig.TxEncoder())

	a := &App{BaseApp: bapp, cfg: cfg, vm: vmw, enc: enc, amino: amino,
		nodeInfo: nodeInfo{name: cfg.NodeName, binary: cfg.BinaryName, version: cfg.Version}}
	names := []string{authtypes.StoreKey, banktypes.StoreKey, authzkeeper.StoreKey,
		feegrant.StoreKey, upgradetypes.StoreKey, consensustypes.StoreKey, vmw.name}
	if a.rollup() {
		names = append(names, opchildStoreKey)
	}
	if cfg.VM == vip.Wasm {
		names = append(names, tokenfactoryStoreKey)
	}
	a.keys = storetypes.NewKVStoreKeys(names...)
	if cfg.VM == vip.EVM {
		// minievm's indexer: each finalized block's Ethereum txs, for the JSON-RPC face.
		gasLimit := uint64(math.MaxUint64)
		if cfg.MaxBlockGas > 0 {
			gasLimit = uint64(cfg.MaxBlockGas)
		}
		a.EthIndex = ethrpc.NewIndex(enc.TxConfig.TxDecoder(), enc.Address, cfg.FeeDenom, cfg.minGasPrice.TruncateInt().BigInt(), gasLimit)
		bapp.SetStreamingManager(storetypes.StreamingManager{ABCIListeners: []storetypes.ABCIListener{a.EthIndex}})
	}
	store := func(name string) corestore.KVStoreService { return runtime.NewKVStoreService(a.keys[name]) }
	cdc := enc.Codec
	authority := enc.MustAddr(authtypes.NewModuleAddress(govModule))

	a.ConsensusKeeper = consensuskeeper.NewKeeper(cdc, store(consensustypes.StoreKey), authority, runtime.EventService{})
	bapp.SetParamStore(a.ConsensusKeeper.ParamsStore)

	perms := map[string][]string{authtypes.FeeCollectorName: nil}
	if vmw.permissions != nil {
		perms[vmw.name] = vmw.permissions
	}
	a.AccountKeeper = authkeeper.NewAccountKeeper(cdc, store(authtypes.StoreKey), authtypes.ProtoBaseAccount,
		perms, enc.Address, cfg.Bech32Prefix, authority)
	blocked := map[string]bool{}
	for name := range perms {
		blocked[enc.MustAddr(authtypes.NewModuleAddress(name))] = true
	}
	a.BankKeeper = bankkeeper.NewBaseKeeper(cdc, store(banktypes.StoreKey), a.AccountKeeper, blocked, authority, logger)
	a.AuthzKeeper = authzkeeper.NewKeeper(store(authzkeeper.StoreKey), cdc, bapp.MsgServiceRouter(), a.AccountKeeper)
	a.FeeGrantKeeper = feegrantkeeper.NewKeeper(cdc, store(feegrant.StoreKey), a.AccountKeeper)
	a.UpgradeKeeper = upgradekeeper.NewKeeper(map[int64]bool{}, store(upgradetypes.StoreKey), cdc, home, bapp, authority)

	vm, err := vmw.build(a, cfg, home, authority)
	if err != nil {
		return nil, err
	}

	//lint:ignore SA1019 module.NewManager takes its modules as this type in SDK v0.53
	var bankModule module.AppModule = bank.NewAppModule(cdc, a.BankKeeper, a.AccountKeeper, nil)
	if a.vmBank != nil {
		bankModule = vmBankModule{AppModule: bank.NewAppModule(cdc, a.BankKeeper, a.AccountKeeper, nil), b: a.vmBank}
	}
	a.mm = module.NewManager(
		sequencer{},
		auth.NewAppModule(cdc, a.AccountKeeper, nil, nil),
		bankModule,
		authzmodule.NewAppModule(cdc, a.AuthzKeeper, a.AccountKeeper, a.BankKeeper, enc.Registry),
		feegrantmodule.NewAppModule(cdc, a.AccountKeeper, a.BankKeeper, a.FeeGrantKeeper, enc.Registry),
		upgrade.NewAppModule(a.UpgradeKeeper, enc.Address),
		consensus.NewAppModule(cdc, a.ConsensusKeeper),
		vm,
	)
	a.basics = module.NewBasicManagerFromManager(a.mm, nil)
	a.basics.RegisterLegacyAminoCodec(amino)
	order := []string{sequencerModule, authtypes.ModuleName, banktypes.ModuleName, authz.ModuleName,
		feegrant.ModuleName, upgradetypes.ModuleName, consensustypes.ModuleName, vmw.name}
	if a.vmBank != nil {
		// The coin module must be at 0x1, or the fee token deployed, before the bank mints
		// the genesis balances.
		order = []string{sequencerModule, authtypes.ModuleName, vmw.name, banktypes.ModuleName, authz.ModuleName,
			feegrant.ModuleName, upgradetypes.ModuleName, consensustypes.ModuleName}
	}
	a.mm.SetOrderPreBlockers(upgradetypes.ModuleName, authtypes.ModuleName)
	a.mm.SetOrderBeginBlockers(authz.ModuleName)
	a.mm.SetOrderEndBlockers(feegrant.ModuleName)
	a.mm.SetOrderInitGenesis(order...)
	a.mm.SetOrderExportGenesis(order...)
	if err := a.mm.RegisterServices(module.NewConfigurator(cdc, bapp.MsgServiceRouter(), bapp.GRPCQueryRouter())); err != nil {
		return nil, fmt.Errorf("minitia: register module services: %w", err)
	}

	ante, err := a.anteHandler()
	if err != nil {
		return nil, err
	}
	a.SetAnteHandler(ante)
	a.SetInitChainer(a.initChainer)
	if b, ok := a.vmBank.(evmBank); ok {
		a.SetPostHandler(sdk.ChainPostDecorators(gasRefund{bank: b}))
	}
	a.SetPreBlocker(func(ctx sdk.Context, _ *abci.RequestFinalizeBlock) (*sdk.ResponsePreBlock, error) {
		if err := a.ensureOpchild(ctx); err != nil {
			return nil, err
		}
		return a.mm.PreBlock(ctx)
	})
	a.SetBeginBlocker(a.mm.BeginBlock)
	a.SetEndBlocker(a.mm.EndBlock)
	// Runs in Commit, on the fresh check state: its header is the block just committed.
	a.SetPrepareCheckStater(func(ctx sdk.Context) {
		a.committed.Store(&Committed{Height: ctx.BlockHeight(), Time: ctx.BlockTime()})
	})
	a.MountKVStores(a.keys)
	a.SetStoreLoader(addingStores(db, a.keys))
	if err := a.LoadLatestVersion(); err != nil {
		return nil, fmt.Errorf("minitia: load state: %w", err)
	}
	if a.moveBank != nil && a.LastBlockHeight() > 0 {
		ctx := a.NewUncachedContext(true, emptyHeader())
		if err := movedCoins(ctx.MultiStore().GetKVStore(a.keys[xmove.ModuleName])); err != nil {
			return nil, err
		}
	}
	if a.EVMKeeper != nil && a.LastBlockHeight() > 0 {
		ctx := a.NewUncachedContext(true, emptyHeader())
		if err := feeTokenMade(ctx.MultiStore().GetKVStore(a.keys[xevm.ModuleName]), cfg.FeeDenom); err != nil {
			return nil, err
		}
	}
	if a.WasmKeeper != nil {
		ctx := a.NewUncachedContext(true, emptyHeader())
		if err := a.WasmKeeper.InitializePinnedCodes(ctx); err != nil {
			return nil, fmt.Errorf("minitia: pinned Wasm codes: %w", err)
		}
	}
	return a, nil
}

// Initia's amino names of its key. The SDK's ante handler amino-encodes a simulated tx's
// signatures to charge their size, through the process-wide legacy codec.
const (
	ethPubKeyAminoName  = "initia/PubKeyEthSecp256k1"
	ethPrivKeyAminoName = "initia/PrivKeyEthSecp256k1"
)

func registerEthKeyAmino(cdc *codec.LegacyAmino) {
	cdc.RegisterConcrete(&ethsecp256k1.PubKey{}, ethPubKeyAminoName, nil)
	cdc.RegisterConcrete(&ethsecp256k1.PrivKey{}, ethPrivKeyAminoName, nil)
}

var registerGlobalAmino = sync.OnceFunc(func() { registerEthKeyAmino(legacy.Cdc) })

// vmModule is how the app wires one VM: its module (and store) name, its messages, its module
// account's permissions, the gas a simulation adds for the fee's payment, and the module
// built over the app's keepers.
type vmModule struct {
	name        string
	interfaces  func(codectypes.InterfaceRegistry)
	permissions []string
	// feeDeductionGas is what Simulate adds to a simulated tx's gas for the fee's payment,
	// which a simulation does not make (a client simulates without a fee, or with one it has
	// not yet signed for), and wasmd's tx counter: each minitia's FeeDeductionGasAmount
	// (miniwasm 50,000; minimove and the initia L1 180,000, where the fee moves through the
	// Move coin module).
	feeDeductionGas uint64
	//lint:ignore SA1019 module.NewManager takes the VM module as this type in SDK v0.53
	build func(a *App, cfg Config, home, authority string) (module.AppModule, error)
}

// vmModules are the VMs the app runs: the app's one table of them.
var vmModules = map[vip.VM]vmModule{
	vip.Wasm: {name: wasmtypes.ModuleName, interfaces: wasmtypes.RegisterInterfaces,
		permissions: []string{authtypes.Burner}, feeDeductionGas: 50_000, build: (*App).wasmModule},
	vip.Move: {name: xmove.ModuleName, interfaces: initiamove.RegisterInterfaces,
		feeDeductionGas: 180_000, build: (*App).moveModule},
	// The EVM's native coin is minted and burnt through its module account (xevm's state).
	vip.EVM: {name: xevm.ModuleName, interfaces: initiaevm.RegisterInterfaces,
		permissions: []string{authtypes.Minter, authtypes.Burner}, build: (*App).evmModule},
}

// evmModule is minievm's x/evm over go-ethereum's interpreter (xevm).
//
//lint:ignore SA1019 module.NewManager takes the VM module as this type in SDK v0.53
func (a *App) evmModule(cfg Config, _, _ string) (module.AppModule, error) {
	a.EVMKeeper = xevm.NewKeeper(a.keys[xevm.ModuleName], a.AccountKeeper, a.enc.Address, cfg.FeeDenom, a.minGasPrice)
	a.vmBank = evmBank{sdkKeepers: sdkKeepers{base: a.BankKeeper, acc: a.AccountKeeper}, evm: a.EVMKeeper, feeDenom: cfg.FeeDenom}
	return xevm.AppModule{K: a.EVMKeeper}, nil
}

// FeeDeductionGas is the gas the app's tx service adds to every simulation on vm (0 for a VM
// it does not run): each minitia's FeeDeductionGasAmount.
func FeeDeductionGas(vm vip.VM) uint64 { return vmModules[vm].feeDeductionGas }

// moveModule is x/move over the project's Move executor.
//
//lint:ignore SA1019 module.NewManager takes the VM module as this type in SDK v0.53
func (a *App) moveModule(cfg Config, _, _ string) (module.AppModule, error) {
	var supply xmove.Supply = a.BankKeeper
	if a.rollup() {
		// A minimove's balances are Move coins (the L1 stand-in's 0x1 has no coin module).
		a.moveBank = &moveBank{sdkKeepers: sdkKeepers{base: a.BankKeeper, acc: a.AccountKeeper}}
		supply = a.moveBank
	}
	k, err := xmove.NewKeeper(a.keys[xmove.ModuleName], xmove.Chain{
		Accounts: a.AccountKeeper, Addresses: a.enc.Address, Supply: supply, Blocked: a.BankKeeper.BlockedAddr,
		BaseDenom: cfg.FeeDenom, MinGasPrice: cfg.minGasPrice,
	}, cfg.Move...)
	if err != nil {
		return nil, fmt.Errorf("minitia: %w", err)
	}
	a.MoveKeeper = k
	if a.moveBank != nil {
		a.moveBank.move = k
		a.vmBank = *a.moveBank
	} else {
		a.BankKeeper.AppendSendRestriction(a.fungibleAssetSend)
	}
	return xmove.NewAppModule(k), nil
}

// movedCoins refuses a kept Move rollup made before its balances were Move coins: its 0x1
// (our framework) has no coin module, and its balances are x/bank's, which this app does
// not read.
func movedCoins(moveStore storetypes.KVStore) error {
	if moveStore.Has(movebcs.ModuleKey(xmove.StdAddress, "coin")) {
		return nil
	}
	return errors.New("minitia: this Move chain was made by an earlier vipharness: its 0x1 is not the MinitiaStdlib and its balances are not Move coins, so this version cannot run it; start it afresh (remove its data directory)")
}

// feeTokenMade refuses a kept EVM rollup made before its fee denom was an ERC-20: its
// balances are x/bank's, which this app does not read.
func feeTokenMade(evmStore storetypes.KVStore, denom string) error {
	if _, ok := xevm.FeeTokenIn(evmStore, denom); ok {
		return nil
	}
	return errors.New("minitia: this EVM chain was made by an earlier vipharness: its fee denom is an x/bank coin, not an ERC-20 as on a minievm, so this version cannot run it; start it afresh (remove its data directory)")
}

// fungibleAssetSend refuses a send as the bank of the initia L1 does (the L1 stand-in keeps
// x/bank; a Move rollup's bank moves Move coins, moveBank), whose
// balances are Move fungible assets with u64 amounts:
//   - an amount above u64: math.Int's Uint64 panics before any balance is looked at, and
//     BaseApp answers the recovered panic (code 111222, "recovered: Uint64() out of bounds");
//   - an amount above the sender's balance: 0x1::fungible_asset aborts the withdrawal
//     (errFungibleAssetBalance, which BaseApp answers as an error of no codespace).
//
// x/bank alone would answer insufficient funds to both.
func (a *App) fungibleAssetSend(ctx context.Context, from, to sdk.AccAddress, amt sdk.Coins) (sdk.AccAddress, error) {
	for _, c := range amt {
		_ = c.Amount.Uint64()
	}
	for _, c := range amt {
		if a.BankKeeper.SpendableCoin(ctx, from, c.Denom).Amount.LT(c.Amount) {
			return nil, errFungibleAssetBalance
		}
	}
	return to, nil
}

// errFungibleAssetBalance is the abort of 0x1::fungible_asset's withdraw when the store
// holds less than asked: EINSUFFICIENT_BALANCE (4) in the invalid-argument category (1),
// in the MoveVM's words. It is registered with no codespace, as the VM's errors are not:
// BaseApp answers it with codespace "undefined", code 1.
var errFungibleAssetBalance = errors.New("VM aborted: location=" + strings.Repeat("0", 63) + "1::fungible_asset, code=65540")

// wasmModule is x/wasm as miniwasm wires it.
//
//lint:ignore SA1019 module.NewManager takes the VM module as this type in SDK v0.53
func (a *App) wasmModule(cfg Config, home, authority string) (module.AppModule, error) {
	storeService := wasmStoreService{runtime.NewKVStoreService(a.keys[wasmtypes.StoreKey])}
	// x/wasm as miniwasm wires it: no staking, distribution or IBC keepers ("we do not
	// support staking"), and so no "staking" capability.
	a.wasmDir = filepath.Join(home, "wasm")
	if err := os.MkdirAll(a.wasmDir, 0o700); err != nil {
		return nil, fmt.Errorf("minitia: wasm home: %w", err)
	}
	caps := slices.DeleteFunc(wasmkeeper.BuiltInCapabilities(), func(c string) bool { return c == "staking" })
	nodeCfg := wasmtypes.DefaultNodeConfig()
	nodeCfg.SmartQueryGasLimit = cfg.QueryGasLimit
	simLimit := uint64(wasmSimulationGasLimit)
	nodeCfg.SimulationGasLimit = &simLimit
	// The VM is made here, as wasmd's keeper would make it, to be released on Close.
	var err error
	a.wasmVM, err = wasmvm.NewVMWithConfig(wasmvmtypes.VMConfig{Cache: wasmvmtypes.CacheOptions{
		BaseDir:                  a.wasmDir,
		AvailableCapabilities:    caps,
		MemoryCacheSizeBytes:     wasmvmtypes.NewSizeMebi(nodeCfg.MemoryCacheSize),
		InstanceMemoryLimitBytes: wasmvmtypes.NewSizeMebi(wasmContractMemoryLimitMiB),
	}}, false)
	if err != nil {
		return nil, fmt.Errorf("minitia: wasm VM: %w", err)
	}
	wk := wasmkeeper.NewKeeper(a.enc.Codec, storeService, a.AccountKeeper, a.BankKeeper,
		nil, nil, nil, nil, nil, nil,
		a.MsgServiceRouter(), a.GRPCQueryRouter(), a.wasmDir, nodeCfg, wasmtypes.VMConfig{}, caps, authority,
		wasmkeeper.WithWasmEngine(a.wasmVM))
	a.WasmKeeper = &wk
	a.BankKeeper.AppendSendRestriction(a.miniwasmSendHooks)
	return wasm.NewAppModule(a.enc.Codec, a.WasmKeeper, nil, a.AccountKeeper, a.BankKeeper, a.MsgServiceRouter(), nil), nil
}

// wasmSimulationGasLimit caps a simulation, as wasmd's node config does, so that a simulated
// tx without a gas limit cannot run forever.
const wasmSimulationGasLimit = 50_000_000

// wasmContractMemoryLimitMiB is a contract instance's memory limit, wasmd's.
const wasmContractMemoryLimitMiB = 32

func (a *App) initChainer(ctx sdk.Context, req *abci.RequestInitChain) (*abci.ResponseInitChain, error) {
	var state map[string]json.RawMessage
	if err := json.Unmarshal(req.AppStateBytes, &state); err != nil {
		return nil, fmt.Errorf("minitia: app state: %w", err)
	}
	if err := a.UpgradeKeeper.SetModuleVersionMap(ctx, a.mm.GetVersionMap()); err != nil {
		return nil, err
	}
	res, err := a.mm.InitGenesis(ctx, a.enc.Codec, state)
	if err != nil || !a.rollup() {
		return res, err
	}
	var gen opchildGenesis
	if raw, ok := state[opchildStoreKey]; ok {
		if err := json.Unmarshal(raw, &gen); err != nil {
			return nil, fmt.Errorf("minitia: opchild genesis: %w", err)
		}
	}
	return res, a.initOpchild(ctx, gen)
}

// rollup says the chain is a rollup (the L1 stand-in runs no opchild).
func (a *App) rollup() bool { return !a.cfg.TxGasPrices }

// Encoding is the chain's protobuf world (the same one clients sign with).
func (a *App) Encoding() *cosmostx.Encoding { return a.enc }

// DefaultGenesis is every module's default genesis state.
func (a *App) DefaultGenesis() map[string]json.RawMessage {
	return a.basics.DefaultGenesis(a.enc.Codec)
}

// RegisterAPIRoutes mounts every module's gateway routes, the tx and CometBFT services' and
// the node service's, on the API server.
func (a *App) RegisterAPIRoutes(srv *api.Server, _ serverconfig.APIConfig) {
	clientCtx := srv.ClientCtx
	authtx.RegisterGRPCGatewayRoutes(clientCtx, srv.GRPCGatewayRouter)
	registerCometGateway(clientCtx, srv)
	nodeservice.RegisterGRPCGatewayRoutes(clientCtx, srv.GRPCGatewayRouter)
	a.basics.RegisterGRPCGatewayRoutes(clientCtx, srv.GRPCGatewayRouter)
}

// Simulate runs txBytes as BaseApp simulates it and adds the VM's fee deduction gas to the
// gas used, as a minitia's tx service does: a simulation at 1x then covers the tx's delivery,
// fee and all, and CosmJS's fee "auto" (x1.4) covers even the small messages. An error's
// gas is raised too (the "gas used" a failed simulation reports).
func (a *App) Simulate(txBytes []byte) (sdk.GasInfo, *sdk.Result, error) {
	info, res, err := a.BaseApp.Simulate(txBytes)
	info.GasUsed += a.vm.feeDeductionGas
	return info, res, err
}

// RegisterTxService registers the tx service (simulate, broadcast, get, search).
func (a *App) RegisterTxService(clientCtx client.Context) {
	authtx.RegisterTxService(a.GRPCQueryRouter(), clientCtx, a.Simulate, a.enc.Registry)
}

// RegisterTendermintService registers the CometBFT service, node_info answering as a minitia.
func (a *App) RegisterTendermintService(clientCtx client.Context) {
	registerCometService(a, clientCtx)
}

// RegisterNodeService registers the node service (config: the minimum gas prices).
func (a *App) RegisterNodeService(clientCtx client.Context, cfg serverconfig.Config) {
	nodeservice.RegisterNodeService(clientCtx, a.GRPCQueryRouter(), cfg)
}

// Close releases the Wasm VM and the state.
func (a *App) Close() error {
	if a.wasmVM != nil {
		a.wasmVM.Cleanup()
		a.wasmVM = nil
	}
	if a.MoveKeeper != nil {
		if err := a.MoveKeeper.Close(); err != nil {
			return err
		}
		a.MoveKeeper = nil
	}
	return a.BaseApp.Close()
}
