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

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys/ledger"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/tasks"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/move"
)

// rootOptions are the root's own flags, for every command: how a command writes, and where
// its state is kept. Cobra alone writes them, while it parses.
type rootOptions struct {
	stateDir   string
	jsonOut    bool
	verbose    bool
	noProgress bool
}

// session is one run of a command: where it reads and writes and how (the root's flags),
// and the state folder. A command's body gets it, made before the body runs, and it is
// never changed after.
type session struct {
	in         io.Reader // the command's input: prompts are read from it
	out        io.Writer
	errOut     io.Writer
	logger     *slog.Logger
	jsonOut    bool
	verbose    bool
	noProgress bool
	stateDir   string // absolute: journals and deployments are found again by it on a re-run
}

// session is the run of cmd: its input and outputs (os.Stdin, os.Stdout and os.Stderr
// unless a caller, a test, set others), a logger at the level --verbose asks, and the state
// folder pinned to an absolute path.
func (ro *rootOptions) session(cmd *cobra.Command) (session, error) {
	dir, err := filepath.Abs(ro.stateDir)
	if err != nil {
		return session{}, invalid(fmt.Errorf("--state-dir %q: %w", ro.stateDir, err))
	}
	level := slog.LevelWarn
	if ro.verbose {
		level = slog.LevelDebug
	}
	errOut := cmd.ErrOrStderr()
	return session{in: cmd.InOrStdin(), out: cmd.OutOrStdout(), errOut: errOut,
		logger:  slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: level})),
		jsonOut: ro.jsonOut, verbose: ro.verbose, noProgress: ro.noProgress, stateDir: dir}, nil
}

// runs is a command's RunE that hands body this run's session.
func (ro *rootOptions) runs(body func(ctx context.Context, sess session) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		sess, err := ro.session(cmd)
		if err != nil {
			return err
		}
		return body(cmd.Context(), sess)
	}
}

func newRoot() *cobra.Command {
	ro := &rootOptions{}
	root := &cobra.Command{
		Use:           "vipctl",
		Short:         "Deploy, operate and verify the VIP scoring contract of a rollup",
		SilenceUsage:  true,
		SilenceErrors: true,
		// Checks only: a command's settings are its own options, read by its body.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := vip.ParseVM(vmSetting(cmd)); err != nil {
				return invalid(err)
			}
			return checkFlags(cmd.Flags())
		},
	}
	// A flag that does not parse (--stage -1, --window x) is bad input, as one out of range.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return invalid(err) })
	f := root.PersistentFlags()
	f.StringVar(&ro.stateDir, "state-dir", envOr("VIPHARNESS_DIR", ".vipharness"), "where deployments and journals are kept; relative to the working directory (env VIPHARNESS_DIR)")
	f.BoolVar(&ro.jsonOut, "json", false, "print machine-readable JSON")
	f.BoolVarP(&ro.verbose, "verbose", "v", false, "debug logs on stderr")
	f.BoolVar(&ro.noProgress, "no-progress", false, "no progress bar (none is drawn when stderr is not a terminal)")

	root.AddCommand(newDeployCmd(ro), newScoresCmd(ro), newStageCmd(ro), newVerifyCmd(ro), newLocalnetCmd(ro), newDemoCmd(ro), newKeysCmd(ro), newIndexerCmd(ro), newRouterCmd(ro), newSetupCmd(ro))
	// Before registration: does the rollup and its contract conform.
	root.AddCommand(newCheckCmd(ro))
	// Step 8, every stage: follow the L1.
	root.AddCommand(newOperateCmd(ro))
	// After finalize: the agent's snapshot and users' proofs.
	root.AddCommand(newAuditCmd(ro))
	// Registration (steps 2, 6 and 7 of the program).
	root.AddCommand(newPreflightCmd(ro), newRegistryCmd(ro), newWhitelistCmd(ro))
	root.AddCommand(newMoveBuildCmd())
	root.AddCommand(newVersionCmd(ro), newManCmd())
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
func (sess session) printResult(v any, human string) error {
	if sess.jsonOut {
		enc := json.NewEncoder(sess.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(sess.out, human)
	return err
}

// l1Reader resolves the L1 source from flags, env and presets; contradictions are refused.
func (o *l1Options) l1Reader() (*l1node.Reader, error) {
	src, err := o.l1Source(true)
	if err != nil {
		return nil, err
	}
	if src.REST.Value == "" || src.VIP.Value == "" {
		return nil, invalid(errors.New("no L1 to read the stage from: pass --stage (or INIT_STAGE), or --l1-rest and --vip-address, or --network"))
	}
	return l1node.NewReader(src.REST.Value, src.VIP.Value, nil), nil
}

// l1Configured reports whether any L1 setting is given (flag, environment or preset): the
// one test of "is there an L1" for every command.
func (o *l1Options) l1Configured() bool { return o.l1REST != "" || o.vipAddr != "" || o.network != "" }

// optionalL1Reader is the configured L1's reader, nil when no L1 is configured; an L1
// configured in part is refused (l1Reader).
func (o *l1Options) optionalL1Reader() (*l1node.Reader, error) {
	if !o.l1Configured() {
		return nil, nil
	}
	return o.l1Reader()
}

// l1Source resolves the L1 settings (resolveL1); needREST says whether the command reads
// the L1. A refusal is bad input (exit 2).
func (o *l1Options) l1Source(needREST bool) (l1Source, error) {
	var flag, env l1Values
	if o.flags != nil {
		flag, env = l1Inputs(o.flags, o.getenv)
	} else { // options built without a command: the values are all they have
		flag = l1Values{Network: o.network, REST: o.l1REST, VIP: o.vipAddr}
	}
	src, err := resolveL1(flag, env, needREST)
	if err != nil {
		return src, invalid(err)
	}
	return src, nil
}

// initStage is INIT_STAGE's stage, 0 when it is not set.
func initStage() (uint64, error) {
	v := os.Getenv("INIT_STAGE")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 {
		return 0, invalid(fmt.Errorf("INIT_STAGE %q is not a stage number >= 1", v))
	}
	return n, nil
}

// store is the state dir's deployment store.
func (sess session) store() tasks.Store { return tasks.Store{Dir: sess.stateDir} }

func (sess session) statePath(vm vip.VM, chainID string) string {
	return sess.store().Path(vm, chainID)
}

func (sess session) loadDeployment(vm vip.VM, chainID string) (string, error) {
	d, err := sess.store().Load(vm, chainID)
	if errors.Is(err, tasks.ErrNotRemembered) {
		return "", invalid(fmt.Errorf("no contract: pass --contract (or CONTRACT_ADDRESS), or deploy on chain %s first", chainID))
	}
	return d.Contract, err
}

// sameChain refuses a remembered deployment on a chain started again under its chain id.
func (sess session) sameChain(ctx context.Context, s *deployer.Scorer) error {
	if err := sess.store().CheckSameChain(ctx, s); err != nil {
		return invalid(err)
	}
	return nil
}

// scorerRequest is what a command asks of its Scorer beyond its shared flags.
type scorerRequest struct {
	vm       vip.VM // the VM the command found; "" is --vm's
	contract bool   // attach --contract, or the one this tool deployed on the chain
	code     []byte // deploy this build instead of ours (check --artifact)
	logger   *slog.Logger
	progress func(done, total int)
}

// scorer opens the Scorer r asks for, with the signer flags' or the environment's keys.
func (o *chainOptions) scorer(ctx context.Context, sess session, r scorerRequest) (*deployer.Scorer, func(), error) {
	cfg, err := o.scorerConfig(ctx, sess, r)
	if err != nil {
		return nil, nil, err
	}
	return o.openScorer(ctx, sess, cfg, r.contract)
}

// openScorer dials the rollup cfg names; attach attaches --contract, or the one this tool
// deployed on the chain (refused on a chain started again under its id).
func (o *chainOptions) openScorer(ctx context.Context, sess session, cfg deployer.Config, attach bool) (*deployer.Scorer, func(), error) {
	if attach {
		cfg.Contract = o.contract
		cfg.ContractFor = func(chainID string) (string, error) { return sess.loadDeployment(cfg.VM, chainID) }
	}
	s, err := deployer.Open(ctx, cfg)
	if err != nil {
		return nil, nil, classify(err)
	}
	if attach && o.contract == "" {
		if err := sess.sameChain(ctx, s); err != nil {
			s.Close()
			return nil, nil, err
		}
	}
	return s, s.Close, nil
}

// scorerConfig is the rollup's endpoints, the deployer's and operator's signers (the signer
// flags' one, else the environment's keys; either may be absent), the gas price and the
// push's knobs.
func (o *chainOptions) scorerConfig(ctx context.Context, sess session, r scorerRequest) (deployer.Config, error) {
	vm := r.vm
	if vm == "" {
		var err error
		if vm, err = vip.ParseVM(o.vm); err != nil {
			return deployer.Config{}, invalid(err)
		}
	}
	logger := r.logger
	if logger == nil {
		logger = sess.logger
	}
	cfg := deployer.Config{
		VM: vm, Code: r.code,
		Push: deployer.PushConfig{JournalDir: sess.store().JournalDir(), ChunkSize: o.chunkSize, Window: o.window, Logger: logger, Progress: r.progress},
	}
	if err := o.rollupEndpoints(&cfg); err != nil {
		return cfg, err
	}
	// Only a Move deployer compiles (vip_score is built for its address); other VMs ignore it.
	comp, err := moveCompiler()
	if err != nil {
		return cfg, err
	}
	cfg.Move.Build = move.Builder(comp)
	if cfg.Deployer, cfg.Operator, err = o.signers(ctx, sess, vm); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// rollupEndpoints sets cfg's endpoints and gas price (cfg.VM's) from o, and refuses
// what the VM needs and o lacks.
func (o *chainOptions) rollupEndpoints(cfg *deployer.Config) error {
	cfg.JSONRPC, cfg.CometRPC, cfg.REST, cfg.Cosmos.GasPrice = o.rpc, o.cometRPC, o.rest, nil
	if !vip.MustDescribe(cfg.VM).Cosmos {
		if o.rpc == "" {
			return invalid(errors.New("no rollup RPC: pass --rpc or set JSON_RPC_URL"))
		}
		return nil
	}
	if o.cometRPC == "" || o.rest == "" {
		return invalid(fmt.Errorf("a %s rollup needs its CometBFT RPC and REST URLs: pass --comet-rpc and --rest (or set COMET_RPC_URL and REST_URL)", cfg.VM))
	}
	if o.gasPrice != "" {
		p, err := cosmostx.ParseGasPrice(o.gasPrice)
		if err != nil {
			return invalid(err)
		}
		cfg.Cosmos.GasPrice = &p
	}
	return nil
}

// cosmosKeyType is --key-type, else the VM's key type.
func (o *rollupOptions) cosmosKeyType(vm vip.VM) (vip.KeyType, error) {
	if o.keyType == "" {
		return vip.MustDescribe(vm).KeyType, nil
	}
	k, err := vip.ParseKeyType(o.keyType)
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
	if _, ok := vip.AsContractError(err); ok || errors.As(err, &ce) {
		return reverted(err)
	}
	if errors.Is(err, vip.ErrBadAddress) || errors.Is(err, deployer.ErrTotalOverflow) {
		return invalid(err)
	}
	if ce := (*deployer.ConfigError)(nil); errors.As(err, &ce) {
		return invalid(fmt.Errorf("%w: %s", err, configAdvice(ce.Field)))
	}
	if errors.Is(err, vip.ErrNoSigner) {
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
	case "L1REST and VIPModule":
		return "pass --l1-rest and --vip-address, or --network"
	case "CometRPC or Indexer":
		return "pass --comet-rpc (or set COMET_RPC_URL) or --indexer"
	case "Indexer":
		return "--indexer"
	case "Stage":
		return "--stage"
	case "Policy.VM":
		return "the vm field of the --policy file"
	}
	return "a setting of this build, not a flag: report it"
}
