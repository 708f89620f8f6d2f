package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/keys/ledger"
	"github.com/vipharness/vipharness/deployer/operation/stage"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scorers"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/move"
)

// globals are what the commands share: the terminal, the state folder, and each group of
// shared flags (flags.go), which a command registers only when it reads them.
type globals struct {
	terminal
	stateDir string
	rollupSettings
	l1Settings
	pushSettings
	signer signerFlags
}

// terminal is where a command reads and writes, and how (the root's flags).
type terminal struct {
	in         io.Reader // the command's input: prompts are read from it
	out        io.Writer
	errOut     io.Writer
	logger     *slog.Logger
	jsonOut    bool
	verbose    bool
	noProgress bool
}

// rollupSettings are the rollupFlags group: which rollup and contract.
type rollupSettings struct {
	vm, rpc, cometRPC, rest string
	gasPrice, keyType       string
	contract                string
}

// l1Settings are the l1Flags group: where the L1's VIP stage is read.
type l1Settings struct {
	l1REST, vipAddr, network string
	// l1Flag and l1Env are the L1 settings split by source (l1REST, vipAddr and network
	// merge them), so contradictions can be refused; l1Split says they were recorded.
	l1Flag, l1Env l1Values
	l1Split       bool
}

// pushSettings are the pushFlags group: how a push is sized.
type pushSettings struct {
	chunkSize, window int
}

func newRoot() *cobra.Command {
	g := &globals{terminal: terminal{in: os.Stdin, out: os.Stdout, errOut: os.Stderr}}
	root := &cobra.Command{
		Use:           "vipctl",
		Short:         "Deploy, operate and verify the VIP scoring contract of a rollup",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			g.in = cmd.InOrStdin()
			g.out = cmd.OutOrStdout() // os.Stdout unless a caller (a test) set another
			level := slog.LevelWarn
			if g.verbose {
				level = slog.LevelDebug
			}
			g.logger = slog.New(slog.NewTextHandler(g.errOut, &slog.HandlerOptions{Level: level}))
			if _, err := deployer.ParseVM(g.vm); err != nil {
				return invalid(err)
			}
			if err := checkFlags(cmd.Flags()); err != nil {
				return err
			}
			g.l1Flag, g.l1Env = l1Inputs(cmd.Flags())
			g.l1Split = true
			// Journals and deployments are found again on a re-run by this path: pin it now.
			dir, err := filepath.Abs(g.stateDir)
			if err != nil {
				return invalid(fmt.Errorf("--state-dir %q: %w", g.stateDir, err))
			}
			g.stateDir = dir
			return nil
		},
	}
	// A flag that does not parse (--stage -1, --window x) is bad input, as one out of range.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return invalid(err) })
	f := root.PersistentFlags()
	f.StringVar(&g.stateDir, "state-dir", envOr("VIPHARNESS_DIR", ".vipharness"), "where deployments and journals are kept; relative to the working directory (env VIPHARNESS_DIR)")
	f.BoolVar(&g.jsonOut, "json", false, "print machine-readable JSON")
	f.BoolVarP(&g.verbose, "verbose", "v", false, "debug logs on stderr")
	f.BoolVar(&g.noProgress, "no-progress", false, "no progress bar")

	root.AddCommand(newDeployCmd(g), newScoresCmd(g), newStageCmd(g), newVerifyCmd(g), newLocalnetCmd(g), newDemoCmd(g), newKeysCmd(g), newIndexerCmd(g), newRouterCmd(g), newSetupCmd(g))
	// Before registration: does the rollup and its contract conform.
	root.AddCommand(newCheckCmd(g))
	// Step 8, every stage: follow the L1.
	root.AddCommand(newOperateCmd(g))
	// After finalize: the agent's snapshot and users' proofs.
	root.AddCommand(newAuditCmd(g))
	// Registration (steps 2, 6 and 7 of the program).
	root.AddCommand(newPreflightCmd(g), newRegistryCmd(g), newWhitelistCmd(g))
	root.AddCommand(newMoveBuildCmd())
	argsAreInput(root)
	return root
}

// argsAreInput makes a wrong number or kind of arguments bad input (exit 2) on every
// command, as a flag that does not parse is.
func argsAreInput(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return invalid(err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		argsAreInput(sub)
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// printResult writes v as JSON with --json, else the human text.
func (g *globals) printResult(v any, human string) error {
	if g.jsonOut {
		enc := json.NewEncoder(g.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(g.out, human)
	return err
}

// l1Reader resolves the L1 source from flags, env and presets; contradictions are refused.
func (g *globals) l1Reader() (*stage.Reader, error) {
	src, err := g.l1Source(true)
	if err != nil {
		return nil, err
	}
	if src.REST.Value == "" || src.VIP.Value == "" {
		return nil, invalid(errors.New("no L1 to read the stage from: pass --stage (or INIT_STAGE), or --l1-rest and --vip-address, or --network"))
	}
	return stage.NewReader(src.REST.Value, src.VIP.Value), nil
}

// l1Configured reports whether any L1 setting is given (flag, environment or preset): the
// one test of "is there an L1" for every command.
func (g *globals) l1Configured() bool { return g.l1REST != "" || g.vipAddr != "" || g.network != "" }

// optionalL1Reader is the configured L1's reader, nil when no L1 is configured; an L1
// configured in part is refused (l1Reader).
func (g *globals) optionalL1Reader() (*stage.Reader, error) {
	if !g.l1Configured() {
		return nil, nil
	}
	return g.l1Reader()
}

// l1Source resolves the L1 settings (resolveL1); needREST says whether the command reads
// the L1. A refusal is bad input (exit 2).
func (g *globals) l1Source(needREST bool) (l1Source, error) {
	flag, env := g.l1Flag, g.l1Env
	if !g.l1Split { // globals built without the root command: the values are all it has
		flag, env = l1Values{Network: g.network, REST: g.l1REST, VIP: g.vipAddr}, l1Values{}
	}
	src, err := resolveL1(flag, env, needREST)
	if err != nil {
		return src, invalid(err)
	}
	return src, nil
}

// resolveStage is the explicit stage, else the L1's current stage.
func (g *globals) resolveStage(ctx context.Context, explicit uint64) (uint64, error) {
	if explicit != 0 {
		return explicit, nil
	}
	if v := os.Getenv("INIT_STAGE"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			return 0, invalid(fmt.Errorf("INIT_STAGE %q is not a stage number >= 1", v))
		}
		return n, nil
	}
	r, err := g.l1Reader()
	if err != nil {
		return 0, err
	}
	st, err := r.Stage(ctx)
	if err != nil {
		return 0, fmt.Errorf("read L1 stage: %w", err)
	}
	return st, nil
}

// deployment is what the state file remembers per chain.
type deployment struct {
	deployer.Deployment
	Time time.Time `json:"time"`
}

func (g *globals) statePath(vm deployer.VM, chainID string) string {
	return filepath.Join(g.stateDir, "deployments", fmt.Sprintf("%s-%s.json", vm, chainID))
}

func (g *globals) saveDeployment(d deployer.Deployment) error {
	path := g.statePath(d.VM, d.ChainID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save deployment: %w", err)
	}
	b, err := json.MarshalIndent(deployment{Deployment: d, Time: time.Now().UTC()}, "", "  ")
	if err != nil {
		return fmt.Errorf("save deployment: %w", err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func (g *globals) loadDeployment(vm deployer.VM, chainID string) (string, error) {
	b, err := os.ReadFile(g.statePath(vm, chainID))
	if errors.Is(err, os.ErrNotExist) {
		return "", invalid(fmt.Errorf("no contract: pass --contract (or CONTRACT_ADDRESS), or deploy on chain %s first", chainID))
	}
	if err != nil {
		return "", err
	}
	var d deployment
	if err := json.Unmarshal(b, &d); err != nil {
		return "", fmt.Errorf("read deployment state %s: %w", g.statePath(vm, chainID), err)
	}
	return d.Contract, nil
}

// scorerRequest is what a command asks of its Scorer beyond the shared flags, which it
// passes instead of setting them on the globals.
type scorerRequest struct {
	vm       deployer.VM // the VM the command found; "" is --vm's
	contract bool        // attach --contract, or the one this tool deployed on the chain
	code     []byte      // deploy this build instead of ours (check --artifact)
	logger   *slog.Logger
	progress func(done, total int)
}

// scorer opens the Scorer r asks for, with the signer flags' or the environment's keys.
func (g *globals) scorer(ctx context.Context, r scorerRequest) (*deployer.Scorer, func(), error) {
	cfg, err := g.scorerConfig(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	if r.contract {
		cfg.Contract = g.contract
		cfg.ContractFor = func(chainID string) (string, error) { return g.loadDeployment(cfg.VM, chainID) }
	}
	s, err := scorers.Open(ctx, cfg)
	if err != nil {
		return nil, nil, classify(err)
	}
	return s, s.Close, nil
}

// scorerConfig is the rollup's endpoints, the deployer's and operator's signers (the signer
// flags' one, else the environment's keys; either may be absent), the gas price and the
// push's knobs.
func (g *globals) scorerConfig(ctx context.Context, r scorerRequest) (deployer.Config, error) {
	vm := r.vm
	if vm == "" {
		var err error
		if vm, err = deployer.ParseVM(g.vm); err != nil {
			return deployer.Config{}, invalid(err)
		}
	}
	logger := r.logger
	if logger == nil {
		logger = g.logger
	}
	cfg := deployer.Config{
		VM: vm, JSONRPC: g.rpc, CometRPC: g.cometRPC, REST: g.rest, Code: r.code,
		Push: deployer.PushConfig{JournalDir: g.journalDir(), ChunkSize: g.chunkSize, Window: g.window, Logger: logger, Progress: r.progress},
	}
	if !scorers.MustDescribe(vm).Cosmos {
		if g.rpc == "" {
			return cfg, invalid(errors.New("no rollup RPC: pass --rpc or set JSON_RPC_URL"))
		}
	} else {
		if g.cometRPC == "" || g.rest == "" {
			return cfg, invalid(fmt.Errorf("a %s rollup needs its CometBFT RPC and REST URLs: pass --comet-rpc and --rest (or set COMET_RPC_URL and REST_URL)", vm))
		}
		if g.gasPrice != "" {
			p, err := cosmostx.ParseGasPrice(g.gasPrice)
			if err != nil {
				return cfg, invalid(err)
			}
			cfg.Cosmos.GasPrice = &p
		}
	}
	// Only a Move deployer compiles (vip_score is built for its address); other VMs ignore it.
	comp, err := moveCompiler()
	if err != nil {
		return cfg, err
	}
	cfg.Move.Build = move.Builder(comp)
	if cfg.Deployer, cfg.Operator, err = g.signers(ctx, vm); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// cosmosKeyType is --key-type, else the VM's key type.
func (g *globals) cosmosKeyType(vm deployer.VM) (keys.KeyType, error) {
	if g.keyType == "" {
		return scorers.DefaultKeyType(vm), nil
	}
	k, err := keys.ParseKeyType(g.keyType)
	if err != nil {
		return "", invalid(fmt.Errorf("--key-type: %w", err))
	}
	return k, nil
}

// classify maps errors to exit codes.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	var ce *push.ChunkError
	if _, ok := deployer.AsContractError(err); ok || errors.As(err, &ce) {
		return reverted(err)
	}
	if errors.Is(err, deployer.ErrBadAddress) {
		return invalid(err)
	}
	if ce := (*deployer.ConfigError)(nil); errors.As(err, &ce) {
		return invalid(fmt.Errorf("%w: %s", err, configAdvice(ce.Field)))
	}
	if errors.Is(err, deployer.ErrNoSigner) {
		return fmt.Errorf("%w: set PRIVATE_KEY or MNEMONIC, or pass --from, --keystore or --ledger", err)
	}
	if ledger.Interrupted(err) {
		return fmt.Errorf("%w\nnothing more was sent; run the same command again to resume from the journal", err)
	}
	return err
}

// configAdvice names the flags and environment variables that set a deployer.Config field.
func configAdvice(field string) string {
	switch field {
	case "VM":
		return "pass --vm evm, move or wasm (or set VM)"
	case "JSONRPC":
		return "pass --rpc (or set JSON_RPC_URL)"
	case "CometRPC and REST":
		return "pass --comet-rpc and --rest (or set COMET_RPC_URL and REST_URL)"
	case "Push.ChunkSize":
		return "--chunk-size"
	case "Push.Window":
		return "--window"
	case "Push.JournalDir":
		return "--state-dir (or VIPHARNESS_DIR)"
	case "Cosmos.GasPrice":
		return "--gas-price (or GAS_PRICE)"
	}
	return "a setting of this build, not a flag: report it"
}
