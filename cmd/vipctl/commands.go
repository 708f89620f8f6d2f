package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/guard"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/tasks"
	"github.com/vipharness/vipharness/deployer/vip"
)

// haltAfterDeployBroadcast=1 makes deploy stop right after its tx is handed to the node,
// before its outcome is known or journaled: crash tests kill vipctl there, then re-run it.
const haltAfterDeployBroadcast = "VIPCTL_HALT_AFTER_DEPLOY_BROADCAST"

// deployOptions are deploy's flags.
type deployOptions struct {
	*chainOptions
	stage   uint64
	another bool
}

func newDeployCmd(ro *rootOptions) *cobra.Command {
	o := &deployOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "deploy",
		Short: "Deploy the scoring contract at the L1's current stage (or --stage / INIT_STAGE); safe to re-run",
		Long: `Deploy the scoring contract at the L1's current stage (or --stage / INIT_STAGE).

The signed deploy tx is journaled before it is broadcast: a re-run finishes a deploy an
earlier run sent instead of sending another, and a deployer that already has a healthy
deployment on the chain is told "already deployed" (exit 0, nothing sent) unless --new.`,
		Args: cobra.NoArgs,
		RunE: ro.runs(o.deploy),
	}
	cmd.Flags().Uint64Var(&o.stage, "stage", 0, "initial stage; default INIT_STAGE, else the L1's current stage")
	cmd.Flags().BoolVar(&o.another, "new", false, "deploy another contract although this deployer has a healthy one (not on Move: one module per deployer)")
	return o.addFlags(cmd, rollupFlags, l1Flags, signerGroup)
}

// deploy deploys the contract at the stage asked, else INIT_STAGE's, else the L1's.
func (o *deployOptions) deploy(ctx context.Context, sess session) error {
	to := tasks.DeployOptions{Stage: o.stage, Store: sess.store(), Another: o.another,
		Open: func(ctx context.Context) (tasks.Deployer, func(), error) { return o.scorer(ctx, sess, scorerRequest{}) }}
	if to.Stage == 0 {
		var err error
		if to.Stage, err = initStage(); err != nil {
			return err
		}
	}
	if to.Stage == 0 {
		r, err := o.l1Reader()
		if err != nil {
			return err
		}
		to.L1 = r
	}
	if os.Getenv(haltAfterDeployBroadcast) == "1" {
		to.OnBroadcast = func(hash string) {
			fmt.Fprintf(sess.errOut, "halted after the broadcast of deploy tx %s (%s)\n", hash, haltAfterDeployBroadcast)
			<-ctx.Done()
		}
	}
	d, err := tasks.Deploy(ctx, to)
	if err != nil {
		if errors.Is(err, vip.ErrOnePerDeployer) {
			if o.another {
				err = fmt.Errorf("%w (--new cannot deploy another)", err)
			}
			return invalid(err)
		}
		return classify(err)
	}
	st := d.Asked
	var human string
	switch d.Status {
	case vip.StatusAlready:
		human = fmt.Sprintf("already deployed at %s stage %d (%s contract; nothing sent; --new deploys another)", d.Contract, d.InitStage, d.VM)
		if d.TxHash != "" {
			human += fmt.Sprintf("; deploy tx %s", d.TxHash)
		}
	case vip.StatusResumed:
		human = fmt.Sprintf("finished the deploy an earlier run sent: %s contract %s at stage %d (tx %s, gas %d)", d.VM, d.Contract, d.InitStage, d.TxHash, d.GasUsed)
	default:
		human = fmt.Sprintf("deployed %s contract %s at stage %d (tx %s, gas %d)", d.VM, d.Contract, d.InitStage, d.TxHash, d.GasUsed)
	}
	if d.Status != vip.StatusAlready && d.InitStage != st {
		human += fmt.Sprintf("\nnote: the earlier run deployed at stage %d, not the stage %d asked now", d.InitStage, st)
	}
	return sess.printResult(d.Deployment, human)
}

// loadScores reads and validates a score file for the VM into its compact canonical set;
// errors are invalid input.
// The Go heap is bounded around it for the rest of the command (boundHeap).
func loadScores(path, format string, codec scores.Codec) (*scores.Set, error) {
	boundHeap(scoreFileSize(path))
	set, err := scores.LoadSet(path, format, codec)
	if err != nil {
		return nil, invalid(err)
	}
	settleHeap()
	return set, nil
}

func newScoresCmd(ro *rootOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "scores", Short: "Update and read scores"}
	cmd.AddCommand(newScoresUpdateCmd(ro), newScoresGetCmd(ro), newScoresComputeCmd(ro))
	return cmd
}

// updateOptions are scores update's flags.
type updateOptions struct {
	*chainOptions
	file, format       string
	stage              uint64
	dryRun, noReadBack bool
}

func newScoresUpdateCmd(ro *rootOptions) *cobra.Command {
	o := &updateOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "update --file scores.csv",
		Short: "Push a score file to a stage in journaled chunks (re-run to resume)",
		Args:  cobra.NoArgs,
		RunE:  ro.runs(o.updateScores),
	}
	f := cmd.Flags()
	f.StringVar(&o.file, "file", "", "score file (.csv or .json)")
	f.StringVar(&o.format, "format", "", "csv or json; default from the file extension")
	f.Uint64Var(&o.stage, "stage", 0, "stage to write; default the L1's stage, when it is the contract's open stage")
	f.BoolVar(&o.dryRun, "dry-run", false, "validate and print the plan; send nothing")
	f.BoolVar(&o.noReadBack, "no-read-back", false, "skip reading the stage back after the push (vipctl verify does it later)")
	return o.addFlags(cmd, rollupFlags, l1Flags, pushFlags, signerGroup)
}

// updateScores validates the file, plans, pushes it in journaled chunks and reads the stage
// back (or only plans, with --dry-run).
func (o *updateOptions) updateScores(ctx context.Context, sess session) error {
	file, st := o.file, o.stage
	if file == "" {
		return invalid(fmt.Errorf("--file is required"))
	}
	var bar *progressbar.ProgressBar
	progress := func(done, total int) {
		// A bar redrawn with carriage returns is for a person: a log or CI gets none.
		if sess.jsonOut || sess.noProgress || !isTerminal(sess.errOut) {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(sess.errOut),
				progressbar.OptionSetDescription("scores"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
	}
	s, closeFn, err := o.writer(ctx, sess, scorerRequest{progress: progress})
	if err != nil {
		return err
	}
	defer closeFn()
	set, err := loadScores(file, o.format, s.Codec())
	if err != nil {
		return err
	}
	uo := tasks.UpdateOptions{Set: set, Stage: st, DryRun: o.dryRun, NoReadBack: o.noReadBack}
	if st == 0 {
		if uo.L1, err = o.optionalL1(); err != nil {
			return err
		}
	}
	u, err := tasks.UpdateScores(ctx, s, uo)
	if err != nil {
		return guarded(err)
	}
	if plan := u.Plan; plan != nil {
		return sess.printResult(plan, fmt.Sprintf("plan: stage %d, %d entries in %d chunks of <= %d, <= %d gas, %d chunks already confirmed; journal %s; nothing sent",
			plan.Stage, plan.Entries, plan.Chunks, plan.ChunkSize, plan.EstimatedGas, plan.AlreadyDone, plan.Journal))
	}
	res := u.Push
	human := fmt.Sprintf("stage %d: %d chunks confirmed (%d now, %d from an earlier run, %d re-broadcast), gas %d; journal %s",
		res.Stage, res.Confirmed+res.Resumed, res.Confirmed, res.Resumed, res.Rebroadcast, res.GasUsed, res.Journal)
	out := updateOutput{Result: *res, ReadBack: u.ReadBack}
	if rep := u.ReadBack; rep != nil {
		human += fmt.Sprintf("\nread back: %d/%d match, %d mismatches, total %d (sum of rows agrees: %v)",
			rep.Matched, rep.Input, rep.MismatchCount, rep.TotalScore, rep.TotalsAgree)
	}
	if err := sess.printResult(out, human); err != nil {
		return err
	}
	if !u.OK() {
		return &exitError{exitMismatch, fmt.Errorf("stage %d read back after the push differs from %s (another writer, or a contract that does not store what it confirms)", u.Stage, file)}
	}
	return nil
}

// getOptions are scores get's flags.
type getOptions struct {
	*chainOptions
	stage uint64
	addr  string
}

func newScoresGetCmd(ro *rootOptions) *cobra.Command {
	o := &getOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "get",
		Short: "Read the scores of a stage (or of one --address)",
		Args:  cobra.NoArgs,
		RunE:  ro.runs(o.getScores),
	}
	cmd.Flags().Uint64Var(&o.stage, "stage", 0, "stage; default the open stage")
	cmd.Flags().StringVar(&o.addr, "address", "", "only this address")
	return o.addFlags(cmd, rollupFlags)
}

// getScores prints the scores of a stage (0: the open one), or of one address in it.
func (o *getOptions) getScores(ctx context.Context, sess session) error {
	addr := o.addr
	return o.withStage(ctx, sess, o.stage, func(ctx context.Context, s *deployer.Scorer, getStage uint64) error {
		rows, err := s.Scores(ctx, getStage)
		if err != nil {
			return classify(err)
		}
		if addr != "" {
			want, err := s.CheckAddress(addr)
			if err != nil {
				return invalid(err)
			}
			var found []scores.Entry
			for _, r := range rows {
				if r.Addr == want {
					found = append(found, r)
				}
			}
			rows = found
		}
		if sess.jsonOut {
			return sess.printResult(rows, "")
		}
		return scores.Write(sess.out, rows, scores.CSV)
	})
}

func newStageCmd(ro *rootOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "stage", Short: "Show, finalize and sync stages"}
	cmd.AddCommand(newStageShowCmd(ro), newStageFinalizeCmd(ro), newStageSyncCmd(ro))
	return cmd
}

// stageShowOptions are stage show's flags.
type stageShowOptions struct {
	*chainOptions
	stage uint64
}

func newStageShowCmd(ro *rootOptions) *cobra.Command {
	o := &stageShowOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Show a stage of the contract (default the open one), and the L1 stage when one is configured",
		Args:  cobra.NoArgs,
		RunE:  ro.runs(o.showStage),
	}
	cmd.Flags().Uint64Var(&o.stage, "stage", 0, "stage; default the open stage")
	return o.addFlags(cmd, rollupFlags, l1Flags)
}

// showStage prints the stage asked (0: the open one) and, with an L1 configured, the L1's
// stage.
func (o *stageShowOptions) showStage(ctx context.Context, sess session) error {
	st := o.stage
	return o.withScorer(ctx, sess, func(ctx context.Context, s *deployer.Scorer) error {
		open, err := s.OpenStage(ctx)
		if err != nil {
			return classify(err)
		}
		which := st
		if which == 0 {
			which = open
		}
		info, err := s.StageInfo(ctx, which)
		if err != nil {
			return classify(err)
		}
		out := struct {
			vip.StageInfo
			OpenStage uint64 `json:"open_stage"`
			L1Stage   uint64 `json:"l1_stage,omitempty"`
		}{StageInfo: info, OpenStage: open}
		if r, err := o.l1Reader(); err == nil {
			if out.L1Stage, err = r.Stage(ctx); err != nil {
				return fmt.Errorf("read L1 stage: %w", err)
			}
		}
		human := fmt.Sprintf("stage %d: exists=%v finalized=%v total_score=%d (open stage %d)", info.Stage, info.Exists, info.Finalized, info.TotalScore, open)
		if out.L1Stage != 0 {
			human += fmt.Sprintf(", L1 stage %d", out.L1Stage)
		}
		return sess.printResult(out, human)
	})
}

// yesFlag is the consent of a stage command that would otherwise ask on a terminal.
func yesFlag(cmd *cobra.Command, yes *bool) {
	cmd.Flags().BoolVar(yes, "yes", false, "confirm what a stage command would otherwise ask on a terminal (required without one)")
}

// finalizeOptions are stage finalize's flags.
type finalizeOptions struct {
	*chainOptions
	req guard.FinalizeRequest
	yes bool
}

func newStageFinalizeCmd(ro *rootOptions) *cobra.Command {
	o := &finalizeOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "finalize",
		Short: "Finalize a stage: --stage N, or the open stage once the L1 has moved past it; a retry reports the earlier tx",
		Args:  cobra.NoArgs,
		RunE: ro.runs(func(ctx context.Context, sess session) error {
			return o.withWriter(ctx, sess, func(ctx context.Context, s *deployer.Scorer) error {
				return o.finalizeStage(ctx, sess, s, o.req, o.yes)
			})
		}),
	}
	f := cmd.Flags()
	f.Uint64Var(&o.req.Stage, "stage", 0, "stage to finalize; default the open stage, only when the L1 has moved past it")
	f.BoolVar(&o.req.AllowEmpty, "allow-empty", false, "finalize a stage whose total score is 0 (it stays empty for good)")
	f.BoolVar(&o.req.Force, "force", false, "finalize the --stage named although the L1 has not moved past it (or with no L1 configured)")
	yesFlag(cmd, &o.yes)
	return o.addFlags(cmd, rollupFlags, l1Flags, signerGroup)
}

// syncOptions are stage sync's flags.
type syncOptions struct {
	*chainOptions
	target     uint64
	yes, empty bool
}

func newStageSyncCmd(ro *rootOptions) *cobra.Command {
	o := &syncOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Finalize stages one by one until the contract's open stage is the L1 stage",
		Args:  cobra.NoArgs,
		RunE:  ro.runs(o.syncStage),
	}
	cmd.Flags().Uint64Var(&o.target, "to", 0, "target stage; default the L1's current stage")
	cmd.Flags().BoolVar(&o.empty, "allow-empty", false, "also finalize stages whose total score is 0 (they stay empty for good)")
	yesFlag(cmd, &o.yes)
	return o.addFlags(cmd, rollupFlags, l1Flags, signerGroup)
}

// syncStage finalizes the open stages, each recorded, until the target (0: the L1's) is open.
func (o *syncOptions) syncStage(ctx context.Context, sess session) error {
	so := tasks.SyncOptions{Target: o.target, AllowEmpty: o.empty, Confirm: func(from, to, target uint64) error {
		return sess.confirm(o.yes, fmt.Sprintf("finalize stages %d..%d to reach the L1 stage %d", from, to, target))
	}}
	return o.withWriter(ctx, sess, func(ctx context.Context, s *deployer.Scorer) error {
		if so.Target == 0 {
			r, err := o.l1Reader()
			if err != nil {
				return err
			}
			so.L1 = r
		}
		rs := sess.store().Recorded(s)
		res, err := tasks.SyncStages(ctx, rs, so)
		var empty *tasks.EmptyStagesError
		switch {
		case errors.As(err, &empty):
			return invalid(fmt.Errorf("%w: finalizing closes them empty for good; push their scores first, or pass --allow-empty; nothing was sent", err))
		case err != nil:
			return classify(err)
		}
		return sess.printResult(map[string]any{"finalized": res.Finalized, "open_stage": res.Open}, fmt.Sprintf("finalized %v; open stage is %d", res.Finalized, res.Open))
	})
}

// updateOutput is what `scores update --json` prints: the push, and the stage read back
// after it (absent with --no-read-back).
type updateOutput struct {
	push.Result
	ReadBack *deployer.Report `json:"read_back,omitempty"`
}

// verifyOptions are verify's flags.
type verifyOptions struct {
	*chainOptions
	file, format string
	stage        uint64
}

func newVerifyCmd(ro *rootOptions) *cobra.Command {
	o := &verifyOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "verify --file scores.csv [--stage N]",
		Short: "Read a stage back and compare it with a score file (default: the stage the file was last pushed to, else the open stage)",
		Args:  cobra.NoArgs,
		RunE:  ro.runs(o.verify),
	}
	cmd.Flags().StringVar(&o.file, "file", "", "score file")
	cmd.Flags().StringVar(&o.format, "format", "", "csv or json")
	cmd.Flags().Uint64Var(&o.stage, "stage", 0, "stage; default the stage this file was last pushed to (from the journal), else the open stage")
	return o.addFlags(cmd, rollupFlags)
}

// verify reads the stage asked back and compares it with the score file.
func (o *verifyOptions) verify(ctx context.Context, sess session) error {
	file, format, st := o.file, o.format, o.stage
	if file == "" {
		return invalid(fmt.Errorf("--file is required"))
	}
	return o.withScorer(ctx, sess, func(ctx context.Context, s *deployer.Scorer) error {
		set, err := loadScores(file, format, s.Codec())
		if err != nil {
			return err
		}
		rep, err := tasks.VerifyScores(ctx, s, tasks.VerifyOptions{Set: set, Stage: st, Store: sess.store(), Logger: sess.logger})
		if err != nil {
			return classify(err)
		}
		if err := sess.printResult(rep, fmt.Sprintf("stage %d: %d/%d match, %d mismatches, %d other addresses, total %d (sum of rows agrees: %v), finalized %v",
			rep.Stage, rep.Matched, rep.Input, rep.MismatchCount, rep.Extra, rep.TotalScore, rep.TotalsAgree, rep.Finalized)); err != nil {
			return err
		}
		if !rep.OK() {
			return &exitError{exitMismatch, fmt.Errorf("stage %d differs from %s", rep.Stage, file)}
		}
		return nil
	})
}

// withScorer opens the contract's Scorer for f, checked read-only (reader), and closes it
// after.
func (o *chainOptions) withScorer(ctx context.Context, sess session, f func(ctx context.Context, s *deployer.Scorer) error) error {
	s, closeFn, err := o.reader(ctx, sess, scorerRequest{})
	if err != nil {
		return err
	}
	defer closeFn()
	return f(ctx, s)
}

// withWriter is withScorer for a command that sends txs: the contract is checked first.
func (o *chainOptions) withWriter(ctx context.Context, sess session, f func(ctx context.Context, s *deployer.Scorer) error) error {
	s, closeFn, err := o.writer(ctx, sess, scorerRequest{})
	if err != nil {
		return err
	}
	defer closeFn()
	return f(ctx, s)
}

// withStage opens the contract's Scorer, resolves stage (0 means the open stage), and runs f.
func (o *chainOptions) withStage(ctx context.Context, sess session, stage uint64, f func(ctx context.Context, s *deployer.Scorer, stage uint64) error) error {
	return o.withScorer(ctx, sess, func(ctx context.Context, s *deployer.Scorer) error {
		if stage == 0 {
			var err error
			if stage, err = s.OpenStage(ctx); err != nil {
				return classify(err)
			}
		}
		return f(ctx, s, stage)
	})
}
