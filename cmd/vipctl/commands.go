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
)

// haltAfterDeployBroadcast=1 makes deploy stop right after its tx is handed to the node,
// before its outcome is known or journaled: crash tests kill vipctl there, then re-run it.
const haltAfterDeployBroadcast = "VIPCTL_HALT_AFTER_DEPLOY_BROADCAST"

// deployOptions are deploy's own flags.
type deployOptions struct {
	stage   uint64
	another bool
}

func newDeployCmd(g *globals) *cobra.Command {
	var o deployOptions
	cmd := &cobra.Command{
		Use:   "deploy",
		Short: "Deploy the scoring contract at the L1's current stage (or --stage / INIT_STAGE); safe to re-run",
		Long: `Deploy the scoring contract at the L1's current stage (or --stage / INIT_STAGE).

The signed deploy tx is journaled before it is broadcast: a re-run finishes a deploy an
earlier run sent instead of sending another, and a deployer that already has a healthy
deployment on the chain is told "already deployed" (exit 0, nothing sent) unless --new.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return g.deploy(cmd.Context(), o) },
	}
	cmd.Flags().Uint64Var(&o.stage, "stage", 0, "initial stage; default INIT_STAGE, else the L1's current stage")
	cmd.Flags().BoolVar(&o.another, "new", false, "deploy another contract although this deployer has a healthy one (not on Move: one module per deployer)")
	return g.addFlags(cmd, rollupFlags, l1Flags, signerGroup)
}

// deploy deploys the contract at the stage asked, else INIT_STAGE's, else the L1's.
func (g *globals) deploy(ctx context.Context, o deployOptions) error {
	st, err := g.resolveStage(ctx, o.stage)
	if err != nil {
		return err
	}
	s, closeFn, err := g.scorer(ctx, scorerRequest{})
	if err != nil {
		return err
	}
	defer closeFn()
	var opts []deployer.DeployOption
	if o.another {
		opts = append(opts, deployer.AnotherDeployment())
	}
	if os.Getenv(haltAfterDeployBroadcast) == "1" {
		opts = append(opts, deployer.OnBroadcast(func(hash string) {
			fmt.Fprintf(g.errOut, "halted after the broadcast of deploy tx %s (%s)\n", hash, haltAfterDeployBroadcast)
			<-ctx.Done()
		}))
	}
	d, err := s.Deploy(ctx, st, opts...)
	if err != nil {
		if errors.Is(err, deployer.ErrOnePerDeployer) {
			if o.another {
				err = fmt.Errorf("%w (--new cannot deploy another)", err)
			}
			return invalid(err)
		}
		return classify(err)
	}
	// The deployment this run ends with (new, finished or found) becomes the default
	// contract, so the state file and the journal name the same one.
	if err := g.saveDeployment(d); err != nil {
		return err
	}
	var human string
	switch d.Status {
	case deployer.StatusAlready:
		human = fmt.Sprintf("already deployed at %s stage %d (%s contract; nothing sent; --new deploys another)", d.Contract, d.InitStage, d.VM)
		if d.TxHash != "" {
			human += fmt.Sprintf("; deploy tx %s", d.TxHash)
		}
	case deployer.StatusResumed:
		human = fmt.Sprintf("finished the deploy an earlier run sent: %s contract %s at stage %d (tx %s, gas %d)", d.VM, d.Contract, d.InitStage, d.TxHash, d.GasUsed)
	default:
		human = fmt.Sprintf("deployed %s contract %s at stage %d (tx %s, gas %d)", d.VM, d.Contract, d.InitStage, d.TxHash, d.GasUsed)
	}
	if d.Status != deployer.StatusAlready && d.InitStage != st {
		human += fmt.Sprintf("\nnote: the earlier run deployed at stage %d, not the stage %d asked now", d.InitStage, st)
	}
	return g.printResult(d, human)
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

func newScoresCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "scores", Short: "Update and read scores"}
	cmd.AddCommand(newScoresUpdateCmd(g), newScoresGetCmd(g), newScoresComputeCmd(g))
	return cmd
}

// updateOptions are scores update's own flags.
type updateOptions struct {
	file, format       string
	stage              uint64
	dryRun, noReadBack bool
}

func newScoresUpdateCmd(g *globals) *cobra.Command {
	var o updateOptions
	cmd := &cobra.Command{
		Use:   "update --file scores.csv",
		Short: "Push a score file to a stage in journaled chunks (re-run to resume)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return g.updateScores(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.file, "file", "", "score file (.csv or .json)")
	f.StringVar(&o.format, "format", "", "csv or json; default from the file extension")
	f.Uint64Var(&o.stage, "stage", 0, "stage to write; default the L1's stage, when it is the contract's open stage")
	f.BoolVar(&o.dryRun, "dry-run", false, "validate and print the plan; send nothing")
	f.BoolVar(&o.noReadBack, "no-read-back", false, "skip reading the stage back after the push (vipctl verify does it later)")
	return g.addFlags(cmd, rollupFlags, l1Flags, pushFlags, signerGroup)
}

// updateScores validates the file, plans, pushes it in journaled chunks and reads the stage
// back (or only plans, with --dry-run).
func (g *globals) updateScores(ctx context.Context, o updateOptions) error {
	file, st := o.file, o.stage
	if file == "" {
		return invalid(fmt.Errorf("--file is required"))
	}
	var bar *progressbar.ProgressBar
	progress := func(done, total int) {
		if g.jsonOut || g.noProgress {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(g.errOut),
				progressbar.OptionSetDescription("scores"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
	}
	s, closeFn, err := g.writer(ctx, scorerRequest{progress: progress})
	if err != nil {
		return err
	}
	defer closeFn()
	set, err := loadScores(file, o.format, s.Codec())
	if err != nil {
		return err
	}
	if st == 0 {
		l1, err := g.optionalL1()
		if err != nil {
			return err
		}
		if st, err = guard.UpdateStage(ctx, s, l1); err != nil {
			return guarded(err)
		}
	}
	if o.dryRun {
		plan, err := s.PlanSet(ctx, st, set)
		if err != nil {
			return classify(err)
		}
		return g.printResult(plan, fmt.Sprintf("plan: stage %d, %d entries in %d chunks of <= %d, <= %d gas, %d chunks already confirmed; journal %s; nothing sent",
			plan.Stage, plan.Entries, plan.Chunks, plan.ChunkSize, plan.EstimatedGas, plan.AlreadyDone, plan.Journal))
	}
	res, err := s.UpdateSet(ctx, st, set)
	if err != nil {
		return classify(err)
	}
	human := fmt.Sprintf("stage %d: %d chunks confirmed (%d now, %d from an earlier run, %d re-broadcast), gas %d; journal %s",
		res.Stage, res.Confirmed+res.Resumed, res.Confirmed, res.Resumed, res.Rebroadcast, res.GasUsed, res.Journal)
	out := updateOutput{Result: res}
	if o.noReadBack {
		return g.printResult(out, human)
	}
	// Each chunk was confirmed by its result code alone: one read-back of the whole
	// stage proves what the contract now holds.
	rep, err := deployer.VerifySet(ctx, s, st, set)
	if err != nil {
		return classify(fmt.Errorf("read back stage %d after the push: %w", st, err))
	}
	out.ReadBack = &rep
	human += fmt.Sprintf("\nread back: %d/%d match, %d mismatches, total %d (sum of rows agrees: %v)",
		rep.Matched, rep.Input, rep.MismatchCount, rep.TotalScore, rep.TotalsAgree)
	if err := g.printResult(out, human); err != nil {
		return err
	}
	if !rep.OK() {
		return &exitError{exitMismatch, fmt.Errorf("stage %d read back after the push differs from %s (another writer, or a contract that does not store what it confirms)", st, file)}
	}
	return nil
}

func newScoresGetCmd(g *globals) *cobra.Command {
	var getStage uint64
	var addr string
	cmd := &cobra.Command{
		Use:   "get",
		Short: "Read the scores of a stage (or of one --address)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return g.getScores(cmd.Context(), getStage, addr) },
	}
	cmd.Flags().Uint64Var(&getStage, "stage", 0, "stage; default the open stage")
	cmd.Flags().StringVar(&addr, "address", "", "only this address")
	return g.addFlags(cmd, rollupFlags)
}

// getScores prints the scores of a stage (0: the open one), or of one address in it.
func (g *globals) getScores(ctx context.Context, getStage uint64, addr string) error {
	return g.withStage(ctx, getStage, func(ctx context.Context, s *deployer.Scorer, getStage uint64) error {
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
		if g.jsonOut {
			return g.printResult(rows, "")
		}
		return scores.Write(g.out, rows, scores.CSV)
	})
}

func newStageCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "stage", Short: "Show, finalize and sync stages"}
	cmd.AddCommand(newStageShowCmd(g), newStageFinalizeCmd(g), newStageSyncCmd(g))
	return cmd
}

func newStageShowCmd(g *globals) *cobra.Command {
	var st uint64
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Show a stage of the contract (default the open one), and the L1 stage when one is configured",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return g.showStage(cmd.Context(), st) },
	}
	cmd.Flags().Uint64Var(&st, "stage", 0, "stage; default the open stage")
	return g.addFlags(cmd, rollupFlags, l1Flags)
}

// showStage prints stage st (0: the open one) and, with an L1 configured, the L1's stage.
func (g *globals) showStage(ctx context.Context, st uint64) error {
	return g.withScorer(ctx, func(ctx context.Context, s *deployer.Scorer) error {
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
			deployer.StageInfo
			OpenStage uint64 `json:"open_stage"`
			L1Stage   uint64 `json:"l1_stage,omitempty"`
		}{StageInfo: info, OpenStage: open}
		if r, err := g.l1Reader(); err == nil {
			if out.L1Stage, err = r.Stage(ctx); err != nil {
				return fmt.Errorf("read L1 stage: %w", err)
			}
		}
		human := fmt.Sprintf("stage %d: exists=%v finalized=%v total_score=%d (open stage %d)", info.Stage, info.Exists, info.Finalized, info.TotalScore, open)
		if out.L1Stage != 0 {
			human += fmt.Sprintf(", L1 stage %d", out.L1Stage)
		}
		return g.printResult(out, human)
	})
}

// yesFlag is the consent of a stage command that would otherwise ask on a terminal.
func yesFlag(cmd *cobra.Command, yes *bool) {
	cmd.Flags().BoolVar(yes, "yes", false, "confirm what a stage command would otherwise ask on a terminal (required without one)")
}

func newStageFinalizeCmd(g *globals) *cobra.Command {
	var req guard.FinalizeRequest
	var yes bool
	cmd := &cobra.Command{
		Use:   "finalize",
		Short: "Finalize a stage: --stage N, or the open stage once the L1 has moved past it; a retry reports the earlier tx",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withWriter(cmd.Context(), func(ctx context.Context, s *deployer.Scorer) error {
				return g.finalizeStage(ctx, s, req, yes)
			})
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&req.Stage, "stage", 0, "stage to finalize; default the open stage, only when the L1 has moved past it")
	f.BoolVar(&req.AllowEmpty, "allow-empty", false, "finalize a stage whose total score is 0 (it stays empty for good)")
	f.BoolVar(&req.Force, "force", false, "finalize the --stage named although the L1 has not moved past it (or with no L1 configured)")
	yesFlag(cmd, &yes)
	return g.addFlags(cmd, rollupFlags, l1Flags, signerGroup)
}

func newStageSyncCmd(g *globals) *cobra.Command {
	var target uint64
	var yes bool
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Finalize stages one by one until the contract's open stage is the L1 stage",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return g.syncStage(cmd.Context(), target, yes) },
	}
	cmd.Flags().Uint64Var(&target, "to", 0, "target stage; default the L1's current stage")
	yesFlag(cmd, &yes)
	return g.addFlags(cmd, rollupFlags, l1Flags, signerGroup)
}

// syncStage finalizes the open stages, each recorded, until target (0: the L1's) is open.
func (g *globals) syncStage(ctx context.Context, target uint64, yes bool) error {
	return g.withWriter(ctx, func(ctx context.Context, s *deployer.Scorer) error {
		if target == 0 {
			r, err := g.l1Reader()
			if err != nil {
				return err
			}
			if target, err = r.Stage(ctx); err != nil {
				return fmt.Errorf("read L1 stage: %w", err)
			}
		}
		var refused error
		confirm := func(from, to uint64) bool {
			refused = g.confirm(yes, g.in, fmt.Sprintf("finalize stages %d..%d to reach the L1 stage %d", from, to, target))
			return refused == nil
		}
		rs, _ := g.recorded(s)
		done, err := deployer.SyncStage(ctx, rs, target, confirm)
		if refused != nil {
			return refused
		}
		if err != nil {
			return classify(err)
		}
		return g.printResult(map[string]any{"finalized": done, "open_stage": target}, fmt.Sprintf("finalized %v; open stage is %d", done, target))
	})
}

// updateOutput is what `scores update --json` prints: the push, and the stage read back
// after it (absent with --no-read-back).
type updateOutput struct {
	push.Result
	ReadBack *deployer.Report `json:"read_back,omitempty"`
}

func newVerifyCmd(g *globals) *cobra.Command {
	var file, format string
	var st uint64
	cmd := &cobra.Command{
		Use:   "verify --file scores.csv [--stage N]",
		Short: "Read a stage back and compare it with a score file (default: the stage the file was last pushed to, else the open stage)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return g.verify(cmd.Context(), file, format, st) },
	}
	cmd.Flags().StringVar(&file, "file", "", "score file")
	cmd.Flags().StringVar(&format, "format", "", "csv or json")
	cmd.Flags().Uint64Var(&st, "stage", 0, "stage; default the stage this file was last pushed to (from the journal), else the open stage")
	return g.addFlags(cmd, rollupFlags)
}

// verify reads stage st back and compares it with the score file.
func (g *globals) verify(ctx context.Context, file, format string, st uint64) error {
	if file == "" {
		return invalid(fmt.Errorf("--file is required"))
	}
	return g.withScorer(ctx, func(ctx context.Context, s *deployer.Scorer) error {
		set, err := loadScores(file, format, s.Codec())
		if err != nil {
			return err
		}
		if st == 0 {
			if st, err = g.lastPushedStage(ctx, s, set); err != nil {
				return err
			}
		}
		rep, err := deployer.VerifySet(ctx, s, st, set)
		if err != nil {
			return classify(err)
		}
		if err := g.printResult(rep, fmt.Sprintf("stage %d: %d/%d match, %d mismatches, %d other addresses, total %d (sum of rows agrees: %v), finalized %v",
			rep.Stage, rep.Matched, rep.Input, rep.MismatchCount, rep.Extra, rep.TotalScore, rep.TotalsAgree, rep.Finalized)); err != nil {
			return err
		}
		if !rep.OK() {
			return &exitError{exitMismatch, fmt.Errorf("stage %d differs from %s", st, file)}
		}
		return nil
	})
}

// withScorer opens the contract's Scorer for f and closes it after.
func (g *globals) withScorer(ctx context.Context, f func(ctx context.Context, s *deployer.Scorer) error) error {
	s, closeFn, err := g.scorer(ctx, scorerRequest{contract: true})
	if err != nil {
		return err
	}
	defer closeFn()
	return f(ctx, s)
}

// withWriter is withScorer for a command that sends txs: the contract is checked first.
func (g *globals) withWriter(ctx context.Context, f func(ctx context.Context, s *deployer.Scorer) error) error {
	s, closeFn, err := g.writer(ctx, scorerRequest{})
	if err != nil {
		return err
	}
	defer closeFn()
	return f(ctx, s)
}

// withStage opens the contract's Scorer, resolves stage (0 means the open stage), and runs f.
func (g *globals) withStage(ctx context.Context, stage uint64, f func(ctx context.Context, s *deployer.Scorer, stage uint64) error) error {
	return g.withScorer(ctx, func(ctx context.Context, s *deployer.Scorer) error {
		if stage == 0 {
			var err error
			if stage, err = s.OpenStage(ctx); err != nil {
				return classify(err)
			}
		}
		return f(ctx, s, stage)
	})
}
