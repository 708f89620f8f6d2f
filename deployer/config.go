package deployer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/vip"
)

// The defaults of a Config, here and nowhere else.
const (
	// DefaultWindow is how many chunk txs are in flight at once; MaxWindow bounds it (more
	// txs of one sender than a node's pool queues for it only end in drops and waits:
	// geth's default is 16 pending and 64 queued).
	DefaultWindow = push.DefaultWindow
	MaxWindow     = 256
	// DefaultPoll is how often sent txs are looked up.
	DefaultPoll = push.DefaultPoll
	// DefaultGasAdjustment multiplies a Cosmos tx's simulated gas into its gas limit.
	DefaultGasAdjustment = 1.3
	// DefaultMaxTxBytes is CometBFT's default mempool max_tx_bytes; a node's own value is
	// not visible over RPC.
	DefaultMaxTxBytes = 1 << 20
)

// Config is everything a Scorer takes, on every VM, in one value: where the rollup is, who
// signs, which contract, how a push runs, and what only one kind of VM reads, as typed
// fields. The zero value of a field is its default; Validated fills the defaults and
// checks the value once, and Open dials it with the driver of VM.
type Config struct {
	// VM is the rollup's VM (Open dials by its driver).
	VM vip.VM
	// JSONRPC is an EVM rollup's JSON-RPC URL; CometRPC and REST are a Move or Wasm
	// rollup's CometBFT RPC and Cosmos REST URLs.
	JSONRPC, CometRPC, REST string
	// Operator updates scores and finalizes stages; Deployer deploys the contract (default:
	// the operator). Either may be nil for read-only use.
	Operator, Deployer keys.Signer
	// Contract attaches to a deployed contract (an EVM address, a Move module's address, a
	// Wasm contract's bech32 address). When it is "" and ContractFor is set, the contract
	// is looked up by the chain id the node reports (one dial, no second).
	Contract    string
	ContractFor func(chainID string) (string, error)
	// Code deploys other contract code than the committed artifact: EVM creation code with
	// the official constructor, a Wasm module, a Move module built for the deployer.
	Code []byte

	Push   PushConfig
	Cosmos CosmosConfig
	Move   MoveConfig
}

// PushConfig is how updates and deploys are sent.
type PushConfig struct {
	// JournalDir is where journals are kept ("": journal.DefaultDir(), under the user's
	// state directory); a relative folder is made absolute by Validated.
	JournalDir string
	// ChunkSize fixes the entries per update tx; 0 derives it from the chain's limits.
	ChunkSize int
	// Window is how many chunk txs may be in flight (0: DefaultWindow; at most MaxWindow).
	Window int
	// Poll is how often sent txs are looked up (0: DefaultPoll).
	Poll time.Duration
	// Logger is where the push logs (nil: nowhere); Progress is told the entries confirmed
	// during an update (nil: nothing).
	Logger   *slog.Logger
	Progress func(done, total int)
}

// CosmosConfig is what only a Move or Wasm rollup reads.
type CosmosConfig struct {
	// GasPrice replaces the node's reported minimum gas price.
	GasPrice *sdk.DecCoin
	// GasAdjustment multiplies simulated gas into a gas limit (0: DefaultGasAdjustment;
	// at least 1).
	GasAdjustment float64
	// MaxTxBytes is the node's mempool tx size limit (0: DefaultMaxTxBytes).
	MaxTxBytes int
}

// MoveConfig is what only a Move rollup reads.
type MoveConfig struct {
	// Build compiles vip_score for the deployer at a 32-byte Move address other than the
	// development one (the module carries its address): move.Builder of a Move compiler.
	// Without it (and without Code) only the committed artifact, built for the development
	// deployer, can be deployed.
	Build func(ctx context.Context, deployer [32]byte) ([]byte, error)
}

// ConfigError is a Config field whose value cannot be used: the field (as the Config names
// it, "Push.Window"), the value, and why. The library names fields; a command maps them to
// its own flags.
type ConfigError struct {
	Field string
	Value any
	Err   error
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("config %s %v: %v", e.Field, e.Value, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Validated is c with every default filled (and the journal folder made absolute), or the
// first of its fields that cannot be used, as a *ConfigError. It is idempotent.
func (c Config) Validated() (Config, error) {
	if c.VM != "" {
		if _, err := vip.ParseVM(string(c.VM)); err != nil {
			return c, &ConfigError{Field: "VM", Value: c.VM, Err: err}
		}
	}
	if c.Deployer == nil {
		c.Deployer = c.Operator
	}
	p, err := c.Push.validated()
	if err != nil {
		return c, err
	}
	c.Push = p
	switch g := c.Cosmos.GasAdjustment; {
	case g == 0:
		c.Cosmos.GasAdjustment = DefaultGasAdjustment
	case g < 1:
		return c, &ConfigError{Field: "Cosmos.GasAdjustment", Value: g, Err: errors.New("want at least 1")}
	}
	switch n := c.Cosmos.MaxTxBytes; {
	case n == 0:
		c.Cosmos.MaxTxBytes = DefaultMaxTxBytes
	case n < 0:
		return c, &ConfigError{Field: "Cosmos.MaxTxBytes", Value: n, Err: errors.New("want a positive size")}
	}
	if p := c.Cosmos.GasPrice; p != nil && (p.Denom == "" || p.Amount.IsNil() || p.Amount.IsNegative()) {
		return c, &ConfigError{Field: "Cosmos.GasPrice", Value: p, Err: errors.New("want an amount and a denom, such as 0.025stake")}
	}
	return c, nil
}

// validated is p with its defaults filled, or the field that cannot be used.
func (p PushConfig) validated() (PushConfig, error) {
	if p.ChunkSize < 0 {
		return p, &ConfigError{Field: "Push.ChunkSize", Value: p.ChunkSize, Err: errors.New("want 0 (derived from the chain's limits) or more")}
	}
	switch {
	case p.Window == 0:
		p.Window = DefaultWindow
	case p.Window < 0 || p.Window > MaxWindow:
		return p, &ConfigError{Field: "Push.Window", Value: p.Window, Err: fmt.Errorf("want 1 to %d", MaxWindow)}
	}
	switch {
	case p.Poll == 0:
		p.Poll = DefaultPoll
	case p.Poll < 0:
		return p, &ConfigError{Field: "Push.Poll", Value: p.Poll, Err: errors.New("want a positive interval")}
	}
	if p.Logger == nil {
		p.Logger = slog.New(slog.DiscardHandler)
	}
	if p.Progress == nil {
		p.Progress = func(int, int) {}
	}
	dir, err := JournalDir(p.JournalDir)
	if err != nil {
		return p, &ConfigError{Field: "Push.JournalDir", Value: p.JournalDir, Err: err}
	}
	p.JournalDir = dir
	return p, nil
}

// open validates cfg, dials the VM's Contract with dial, attaches it to cfg's contract (or
// ContractFor's, by the chain id the node reported) and returns its Scorer.
func open(ctx context.Context, cfg Config, dial func(context.Context, Config) (Contract, error)) (*Scorer, error) {
	cfg, err := cfg.Validated()
	if err != nil {
		return nil, err
	}
	c, err := dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	contract := cfg.Contract
	if contract == "" && cfg.ContractFor != nil {
		if contract, err = cfg.ContractFor(c.ChainID()); err != nil {
			c.Close()
			return nil, err
		}
	}
	if contract != "" {
		if err := c.Attach(contract); err != nil {
			c.Close()
			return nil, err
		}
	}
	return &Scorer{c: c, k: cfg.Push}, nil
}
