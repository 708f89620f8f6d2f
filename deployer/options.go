package deployer

import (
	"log/slog"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/deployer/keys"
)

// Settings are what a Scorer takes, on every VM, set by one set of options: the push's
// knobs, the deployer's and the operator's signers, a contract to attach to, code to deploy
// instead of ours, and what a chain's limits and a VM's deploy need. Each VM's Dial reads
// the fields that apply to it and ignores the others.
type Settings struct {
	Knobs
	// Deployer deploys the contract (default: the operator); Operator updates scores and
	// finalizes stages. Either may be nil for read-only use.
	Deployer, Operator keys.Signer
	// Contract attaches to a deployed contract (an EVM address, a Move module's address, a
	// Wasm contract's bech32 address).
	Contract string
	// Code deploys other contract code than the committed artifact: EVM creation code with
	// the official constructor, a Wasm module, a Move module built for the deployer.
	Code []byte
	// AllowList adds accounts as score writers at deploy time (Move, Wasm); the deployer and
	// the operator always are.
	AllowList []string
	// GasPrice replaces a Cosmos node's reported minimum gas price.
	GasPrice *sdk.DecCoin
	// MaxTxBytes is the node's mempool tx size limit (0: CometBFT's 1 MiB);
	// SimulationGasLimit the chain's contract simulation gas limit (0: Initia's 3,000,000).
	MaxTxBytes         int
	SimulationGasLimit uint64
	// CodeID instantiates already stored Wasm code; Label and Admin are the instantiation's
	// (defaults: "vip-score" and the deployer; an empty Admin instantiates without one).
	CodeID uint64
	Label  string
	Admin  *string

	ext map[any]any // WithExtension's
}

// Option sets a Setting.
type Option func(*Settings)

// Apply is DefaultKnobs and nothing else, with opts applied in order.
func Apply(opts ...Option) Settings {
	s := Settings{Knobs: DefaultKnobs()}
	for _, o := range opts {
		o(&s)
	}
	if s.Deployer == nil {
		s.Deployer = s.Operator
	}
	return s
}

// WithOperator sets the operator's signer (a software key, a keyring or keystore key, a Ledger).
func WithOperator(k keys.Signer) Option { return func(s *Settings) { s.Operator = k } }

// WithDeployer sets the deployer's signer; it defaults to the operator's.
func WithDeployer(k keys.Signer) Option { return func(s *Settings) { s.Deployer = k } }

// WithContract attaches to a deployed contract.
func WithContract(addr string) Option { return func(s *Settings) { s.Contract = addr } }

// WithCode deploys code instead of the committed artifact.
func WithCode(code []byte) Option { return func(s *Settings) { s.Code = code } }

// WithAllowList adds accounts as score writers at deploy time.
func WithAllowList(addrs ...string) Option {
	return func(s *Settings) { s.AllowList = append(s.AllowList, addrs...) }
}

// WithGasPrice sets a Cosmos chain's gas price instead of the node's reported minimum.
func WithGasPrice(p sdk.DecCoin) Option { return func(s *Settings) { s.GasPrice = &p } }

// WithMaxTxBytes sets the node's mempool tx size limit.
func WithMaxTxBytes(n int) Option { return func(s *Settings) { s.MaxTxBytes = n } }

// WithSimulationGasLimit sets the chain's contract simulation gas limit.
func WithSimulationGasLimit(gas uint64) Option {
	return func(s *Settings) { s.SimulationGasLimit = gas }
}

// WithExtension carries a VM's own setting (a Move compiler) through the shared options,
// under key; the other VMs never read it.
func WithExtension(key, value any) Option {
	return func(s *Settings) {
		if s.ext == nil {
			s.ext = map[any]any{}
		}
		s.ext[key] = value
	}
}

// Extension is the value WithExtension set under key, or nil.
func (s Settings) Extension(key any) any { return s.ext[key] }

// WithCodeID instantiates already stored Wasm code instead of storing the contract again.
func WithCodeID(id uint64) Option { return func(s *Settings) { s.CodeID = id } }

// WithLabel sets a Wasm instantiation's label.
func WithLabel(l string) Option { return func(s *Settings) { s.Label = l } }

// WithAdmin sets a Wasm contract's admin, who may migrate it; "" instantiates without one.
func WithAdmin(addr string) Option { return func(s *Settings) { s.Admin = &addr } }

// WithJournalDir sets where push journals are kept (default journal.DefaultDir(), under the
// user's state directory); a relative dir is resolved against the working directory at Dial.
func WithJournalDir(dir string) Option { return func(s *Settings) { s.JournalDir = dir } }

// WithChunkSize fixes the entries per update tx; 0 (default) derives it from the chain's limits.
func WithChunkSize(n int) Option { return func(s *Settings) { s.ChunkSize = n } }

// WithWindow sets how many chunk txs may be in flight (default 8; 0 keeps the default).
func WithWindow(n int) Option {
	return func(s *Settings) {
		if n > 0 {
			s.Window = n
		}
	}
}

// WithPollInterval sets how often txs are looked up (default 25ms).
func WithPollInterval(d time.Duration) Option { return func(s *Settings) { s.Poll = d } }

// WithLogger sets where the push logs (default: nowhere); nil keeps the default.
func WithLogger(l *slog.Logger) Option {
	return func(s *Settings) {
		if l != nil {
			s.Logger = l
		}
	}
}

// WithProgress reports confirmed entries during an update; nil keeps none.
func WithProgress(f func(done, total int)) Option {
	return func(s *Settings) {
		if f != nil {
			s.Progress = f
		}
	}
}
