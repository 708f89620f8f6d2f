package minitia

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/localnet/feeroutes"
	"github.com/vipharness/vipharness/localnet/minitia/xmove"
)

// Defaults of a local minitia, in one place.
const (
	DefaultBech32Prefix  = "init"
	DefaultFeeDenom      = "umin"
	DefaultMinGasPrice   = "0.15"
	DefaultFundedCount   = 2
	DefaultMaxTxBytes    = 1 << 20
	DefaultQueryGasLimit = 3_000_000
	// DefaultBlockTime is the interval between blocks: fast, for tests. A minitia makes a
	// block every 500ms; pass that for realistic measurements.
	DefaultBlockTime = 100 * time.Millisecond
	// EVMEmptyBlockInterval is how often an idle EVM rollup makes an empty block: minievm's
	// create_empty_blocks_interval (it makes none otherwise but the one after txs).
	EVMEmptyBlockInterval = time.Minute
	// AppName is what abci_info's data reports on every minitia.
	AppName = "minitia"
	// BinaryName is node_info's application_version.app_name on a minitia.
	BinaryName = "minitiad"
)

// DefaultGenesisBalance is each funded account's balance of the fee denom.
var DefaultGenesisBalance = sdkmath.NewInt(1_000_000_000_000_000)

// Config is one local minitia's settings. The zero value of a field means its default;
// Validate fills the defaults and refuses what cannot run.
type Config struct {
	// VM is the rollup's VM module: vip.Wasm (wasmd's x/wasm), vip.EVM (x/evm, xevm) or vip.Move (x/move
	// over Initia's libmovevm).
	VM vip.VM
	// ChainID is the Cosmos chain id (default "vip-<vm>-1").
	ChainID      string
	Bech32Prefix string
	FeeDenom     string
	// MinGasPrice is the minimum gas price in fee denom units per gas, a decimal ("0.15").
	MinGasPrice string
	// GenesisBalance is each funded account's balance.
	GenesisBalance sdkmath.Int
	// Mnemonics are funded first; then GeneratedAccounts fresh ones (default 2; -1 for none).
	Mnemonics         []string
	GeneratedAccounts int
	// KeyType is the kind of the accounts Funded reports (default eth_secp256k1, coin type
	// 60, as Initia's wallets derive); the other kind of the same mnemonic is funded too, so
	// CosmJS (secp256k1, coin type 118) and Initia.js both find funds.
	KeyType vip.KeyType
	// MaxBlockGas is the consensus block gas limit (0: none).
	MaxBlockGas int64
	// MaxTxBytes is the largest tx the mempool takes.
	MaxTxBytes int64
	// QueryGasLimit bounds a query's gas.
	QueryGasLimit uint64
	// Version is what abci_info reports as the version (a minitia's release tag).
	Version string
	// NodeName is node_info's application_version.name (default "mini" + the VM's module),
	// BinaryName its app_name (default "minitiad"), AppName abci_info's data (default
	// "minitia"): the L1 stand-in answers as initia, initiad and initia.
	NodeName, BinaryName, AppName string
	// TxGasPrices serves Initia's tx module gas price routes, the L1's (the L1 stand-in);
	// a minitia answers them 501 Not Implemented.
	TxGasPrices bool
	// BlockTime is the interval between blocks (CometBFT's timeout_commit).
	BlockTime time.Duration
	// GenesisTime is the genesis time (default now).
	GenesisTime time.Time
	// RPCAddr, APIAddr and GRPCAddr are host:port listen addresses; empty picks a free
	// 127.0.0.1 port.
	RPCAddr, APIAddr, GRPCAddr string
	// JSONRPCAddr and JSONRPCWSAddr are an EVM rollup's Ethereum JSON-RPC listen addresses,
	// over HTTP and WebSocket (empty: a free port).
	JSONRPCAddr, JSONRPCWSAddr string
	// Home keeps the node's files (keys, WAL, the Wasm code cache); empty means a temporary
	// folder removed on Close. State is in memory unless Persist.
	Home string
	// Persist keeps the chain in Home (which it needs): the app's and CometBFT's stores on
	// disk (goleveldb), the genesis, the validator key and the funded mnemonics (0600). A
	// Home that holds a chain resumes it: the same chain id, accounts and state; the
	// genesis settings of Config (accounts, Genesis, GenesisTime) are not applied again.
	Persist bool
	Logger  *slog.Logger
	// Bridge is the OPinit bridge the rollup is registered under on its L1 (nil: none). Its
	// opchild state comes from genesis, as on a minitia: bridge_info, and the first
	// mnemonic's eth_secp256k1 account as the bridge executor, admin, challenger, proposer
	// and batch submitter.
	Bridge *feeroutes.Bridge
	// Move configures the Move executor (library folder, genesis packages).
	Move []xmove.Option
	// Genesis edits the app state before the chain starts (e.g. a Move module bundle).
	Genesis func(GenesisState) error

	minGasPrice sdkmath.LegacyDec
}

// GenesisState is the app state by module name, as the genesis file holds it.
type GenesisState = map[string]json.RawMessage

// Validate fills defaults and checks the settings.
func (c *Config) Validate() error {
	if c.Persist && c.Home == "" {
		return fmt.Errorf("minitia: Persist needs a Home to keep the chain in")
	}
	if _, ok := vmModules[c.VM]; !ok {
		return fmt.Errorf("minitia: VM %q has no module here (want wasm, move or evm)", c.VM)
	}
	spec := vip.MustDescribe(c.VM)
	if c.ChainID == "" {
		c.ChainID = "vip-" + string(c.VM) + "-1"
	}
	if c.Bech32Prefix == "" {
		c.Bech32Prefix = DefaultBech32Prefix
	}
	if c.FeeDenom == "" {
		c.FeeDenom = DefaultFeeDenom
	}
	if err := sdk.ValidateDenom(c.FeeDenom); err != nil {
		return fmt.Errorf("minitia: fee denom: %w", err)
	}
	if c.MinGasPrice == "" {
		c.MinGasPrice = DefaultMinGasPrice
	}
	p, err := sdkmath.LegacyNewDecFromStr(c.MinGasPrice)
	if err != nil || p.IsNegative() {
		return fmt.Errorf("minitia: min gas price %q is not a non-negative decimal", c.MinGasPrice)
	}
	c.minGasPrice = p
	if c.GenesisBalance.IsNil() {
		c.GenesisBalance = DefaultGenesisBalance
	}
	switch {
	case c.GeneratedAccounts == 0:
		c.GeneratedAccounts = DefaultFundedCount
	case c.GeneratedAccounts < 0:
		c.GeneratedAccounts = 0
	}
	if c.KeyType == "" {
		c.KeyType = vip.EthSecp256k1
	}
	if c.KeyType != vip.EthSecp256k1 && c.KeyType != vip.Secp256k1 {
		return fmt.Errorf("minitia: key type %q (want %s or %s)", c.KeyType, vip.EthSecp256k1, vip.Secp256k1)
	}
	if c.MaxBlockGas < 0 {
		return errors.New("minitia: max block gas is negative")
	}
	if b := c.Bridge; b != nil && (b.ID == 0 || b.L1ChainID == "") {
		return fmt.Errorf("minitia: bridge %+v: want a bridge id and the L1's chain id", *b)
	}
	if c.Bridge != nil && c.TxGasPrices {
		return errors.New("minitia: a bridge is a rollup's: the L1 stand-in has none")
	}
	if c.MaxTxBytes == 0 {
		c.MaxTxBytes = DefaultMaxTxBytes
	}
	if c.QueryGasLimit == 0 {
		c.QueryGasLimit = DefaultQueryGasLimit
	}
	if c.Version == "" {
		c.Version = "v0.0.0-vipharness"
	}
	if c.NodeName == "" {
		c.NodeName = spec.Minitia
	}
	if c.BinaryName == "" {
		c.BinaryName = BinaryName
	}
	if c.AppName == "" {
		c.AppName = AppName
	}
	if c.BlockTime == 0 {
		c.BlockTime = DefaultBlockTime
	}
	if c.BlockTime < 10*time.Millisecond {
		return fmt.Errorf("minitia: block time %s is below 10ms", c.BlockTime)
	}
	if c.GenesisTime.IsZero() {
		c.GenesisTime = time.Now().UTC()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// MinGasPrices are the validated minimum gas prices (after Validate).
func (c Config) MinGasPrices() sdk.DecCoins {
	return sdk.NewDecCoins(sdk.NewDecCoinFromDec(c.FeeDenom, c.minGasPrice))
}
