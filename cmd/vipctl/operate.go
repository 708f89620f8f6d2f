package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer/operation/operate"
	"github.com/vipharness/vipharness/deployer/tasks"
)

// operateOptions are operate's flags.
type operateOptions struct {
	*chainOptions
	file, format, command, listen  string
	envFile                        string
	every, poll, maxBackoff, srcTO time.Duration
	once, allowEmpty               bool
	policy                         computeOptions // --policy and its reading flags
}

func newOperateCmd(ro *rootOptions) *cobra.Command {
	o := &operateOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "operate (--file scores.csv | --command 'query ...' | --policy policy.yaml --bridge-id B)",
		Short: "Follow the L1 stage: push changed scores, and finalize each stage the L1 moves past with its final scores",
		Long: `operate is the recurring job of every stage. It polls the L1 stage; reads the open stage's
scores from a file (re-read when it changes) or a command (run every --every, printing CSV or
JSON, with VIP_STAGE in its environment and {stage} replaced in the command); and pushes only
the entries that differ from the contract's. When the L1 moves past stage N it pushes N's
final scores, reads them back, finalizes N and opens N+1; stages the L1 skipped are finalized
in order, each with its own scores. A failing or malformed source is logged and counted and
never leads to a push or a finalize; a stage is not finalized empty without --allow-empty.
One operator per contract (a lock in the state dir); SIGINT/SIGTERM stop it between writes.
--once runs one pass and exits (for cron and CI), 1 on any failure.

With --policy the operator computes each stage itself from the rollup's activity by the
published scoring policy, as scores compute does (the node, or --indexer), once the stage has
ended on the rollup; the scores go through the same journaled push, read-back and finalize,
and each stage's score file and manifest are kept in STATE_DIR/policy/<contract>/stage-N.`,
		Args: cobra.NoArgs,
		RunE: ro.runs(o.operate),
	}
	f := cmd.Flags()
	f.StringVar(&o.file, "file", "", "score file (.csv or .json), re-read when it changes; {stage} in the path is the stage")
	f.StringVar(&o.command, "command", "", "shell command that prints the stage's scores (CSV or JSON); VIP_STAGE and {stage} carry the stage")
	f.StringVar(&o.format, "format", "", "csv or json; default: the file's extension, or told from the command's output")
	f.DurationVar(&o.every, "every", operate.DefaultEvery, "how often the command is run (a file is re-read as soon as it changes)")
	f.DurationVar(&o.poll, "poll", operate.DefaultPoll, "how often the L1 stage is read")
	f.DurationVar(&o.maxBackoff, "max-backoff", operate.DefaultMaxBackoff, "longest wait after repeated failures")
	f.DurationVar(&o.srcTO, "source-timeout", 5*time.Minute, "how long the command may run")
	f.BoolVar(&o.once, "once", false, "run one pass and exit (cron, CI); exit 1 on any failure")
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "finalize a stage the source gives no scores for")
	f.StringVar(&o.policy.policy, "policy", "", "compute each stage by this scoring policy (YAML) once it ends")
	f.Uint64Var(&o.policy.bridgeID, "bridge-id", 0, "with --policy: the rollup's bridge id (for the manifest's merkle root)")
	f.StringArrayVar(&o.policy.params, "param", nil, "with --policy: override a policy param: name=value (repeatable)")
	f.StringVar(&o.policy.indexerURL, "indexer", "", "with --policy: read activity from this indexer (rollytics API) instead of the node")
	f.Uint64Var(&o.policy.logSpan, "log-span", tasks.DefaultLogSpan, "with --policy: blocks per eth_getLogs request")
	f.StringVar(&o.envFile, "env-file", "", envFileHelp())
	f.StringVar(&o.listen, "listen", "127.0.0.1:9464", "address of /metrics and /healthz (loopback by default; empty: none)")
	return o.addFlags(cmd, rollupFlags, l1Flags, pushFlags, signerGroup)
}

// operate runs the operator loop (or one pass, with --once) over the score source.
func (o *operateOptions) operate(ctx context.Context, sess session) error {
	if o.policy.policy != "" && !o.changed("bridge-id") {
		return invalid(errors.New("--policy needs --bridge-id: the bridge id every merkle leaf of the stage's manifest holds"))
	}
	file, command, listen := o.file, o.command, o.listen
	c, envFile, err := o.settings()
	if err != nil {
		return err
	}
	oo := tasks.OperateOptions{Every: o.every, Poll: o.poll, MaxBackoff: o.maxBackoff, AllowEmpty: o.allowEmpty, Store: sess.store()}
	var ps *tasks.PolicySource
	switch {
	case (file != "") && (command != "") || (file != "" || command != "") && o.policy.policy != "":
		return invalid(errors.New("pass one score source: --file, --command or --policy"))
	case o.policy.policy != "":
		if err := c.checkVMFlag(); err != nil {
			return err
		}
		p, err := loadPolicy(o.policy)
		if err != nil {
			return err
		}
		// Refused before the first pass, not at each stage.
		to, err := c.stageOptions(o.policy, p, 1)
		if err != nil {
			return err
		}
		if ps, err = tasks.NewPolicySource(to); err != nil {
			return classify(err)
		}
		oo.Source = ps
	case file != "":
		oo.Source = &operate.FileSource{Path: file, Format: o.format}
	case command != "":
		oo.Source = &operate.CommandSource{Argv: []string{"sh", "-c", command}, Format: o.format, Timeout: o.srcTO}
	default:
		return invalid(errors.New("no score source: pass --file (may hold {stage}), --command or --policy"))
	}
	if _, err := oo.Validated(); err != nil {
		return invalid(fmt.Errorf("--every and --poll must be positive and --max-backoff at least --poll"))
	}
	if listen != "" {
		if err := checkListen(listen); err != nil {
			return invalid(err)
		}
	}
	l1, err := c.l1Reader()
	if err != nil {
		return err
	}
	oo.Logger = operateLogger(sess)
	cfg, err := c.scorerConfig(ctx, sess, scorerRequest{logger: oo.Logger}) // the scorer's push logs too
	if err != nil {
		return err
	}
	s, closeFn, err := c.openWriter(ctx, sess, cfg)
	if err != nil {
		return err
	}
	follow := &envFollower{path: o.envFile, sess: sess, logger: oo.Logger, base: o.chainOptions, cfg: cfg, chain: tasks.Identify(ctx, s),
		seen: envFile, want: c, inUse: c, s: s, close: closeFn}
	defer func() { follow.close() }()
	if o.envFile != "" {
		oo.Reconnect = follow.reconnect
	}
	if ps != nil {
		follow.onUse = func(c *chainOptions) {
			if to, err := c.stageOptions(o.policy, ps.Policy(), 0); err == nil {
				ps.Use(to)
			}
		}
	}
	oo.Metrics = operate.NewMetrics()
	op, err := tasks.NewOperator(s, l1, oo)
	if err != nil {
		if errors.Is(err, operate.ErrLocked) {
			return invalid(fmt.Errorf("another vipctl operate runs for contract %s: %w", s.Contract(), err))
		}
		return err
	}
	defer op.Close()
	followHeap(ctx, time.Second)
	if o.once {
		if err := op.Once(ctx); err != nil {
			oo.Logger.Error("pass failed", "err", err)
			return classify(err)
		}
		oo.Logger.Info("pass complete")
		return nil
	}
	if listen != "" {
		stop, err := serveMetrics(listen, oo.Metrics.Handler(max(3*o.every, 3*o.poll, 2*o.maxBackoff)), oo.Logger)
		if err != nil {
			return err
		}
		defer stop()
	}
	return op.Run(ctx)
}

// settings are operate's options with its --env-file read over the environment (the
// options alone without one), and the version of the file read ("" without one). A file
// that cannot be read or parsed at start is refused: nothing has begun.
func (o *operateOptions) settings() (*chainOptions, string, error) {
	if o.envFile == "" {
		return o.chainOptions, "", nil
	}
	f, err := readEnvFile(o.envFile)
	if err != nil {
		return nil, "", invalid(fmt.Errorf("--env-file: %w", err))
	}
	return o.chainOptions.withEnvFile(f.vals), f.version(nil), nil
}

// operateLogger logs at info (debug with -v) on stderr, as JSON with --json.
func operateLogger(sess session) *slog.Logger {
	level := slog.LevelInfo
	if sess.verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		return adviseErrors(groups, humanDurations(groups, a))
	}}
	if sess.jsonOut {
		return slog.New(slog.NewJSONHandler(sess.errOut, opts))
	}
	return slog.New(slog.NewTextHandler(sess.errOut, opts))
}

// adviseErrors logs an error with the advice vipctl gives for it (advice), as the exit
// message would: the operator's loop logs a failed pass and goes on.
func adviseErrors(_ []string, a slog.Attr) slog.Attr {
	if err, ok := a.Value.Any().(error); a.Value.Kind() == slog.KindAny && ok {
		if more := advice(err); more != "" {
			a.Value = slog.StringValue(err.Error() + more)
		}
	}
	return a
}

// humanDurations writes a duration as "5s" rather than JSON's nanoseconds (5000000000).
func humanDurations(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.StringValue(a.Value.Duration().String())
	}
	return a
}

// checkListen accepts host:port; a host other than loopback is allowed, but must be named.
func checkListen(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", addr, err)
	}
	if host == "" {
		return fmt.Errorf("--listen %q: name the interface (127.0.0.1 keeps the endpoint local)", addr)
	}
	return nil
}

// serveMetrics serves h on addr until stop is called.
func serveMetrics(addr string, h http.Handler, logger *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for metrics on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics server", "err", err)
		}
	}()
	logger.Info("metrics and health", "url", "http://"+ln.Addr().String()+"/metrics", "health", "http://"+ln.Addr().String()+"/healthz")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
