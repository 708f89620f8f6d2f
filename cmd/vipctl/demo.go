package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/fixtures"
	"github.com/vipharness/vipharness/localnet"
)

// demoReport is what `vipctl demo` prints.
type demoReport struct {
	VM             string        `json:"vm"`
	Engine         string        `json:"engine"`
	L1Stage        uint64        `json:"l1_stage"`
	RollupVersion  string        `json:"rollup_version"`
	Contract       string        `json:"contract"`
	DeployGas      uint64        `json:"deploy_gas"`
	Entries        int           `json:"entries"`
	Chunks         int           `json:"chunks"`
	UpdateGas      uint64        `json:"update_gas"`
	GasPerEntry    uint64        `json:"gas_per_entry"`
	EntriesPerSec  float64       `json:"entries_per_second"`
	Finalized      uint64        `json:"finalized_stage"`
	OpenStageAfter uint64        `json:"open_stage_after"`
	Verified       bool          `json:"verified"`
	TotalScore     uint64        `json:"total_score"`
	Elapsed        time.Duration `json:"elapsed_ns"`
	StartToReady   time.Duration `json:"start_to_ready_ns"` // the rollup's, before the job
}

// demoOptions are demo's flags.
type demoOptions struct {
	*chainOptions // --vm alone
	l1Stage       uint64
	generate      int
	engineName    string
	minitiad      string
	image         string
	imageCmd      string
}

func newDemoCmd(ro *rootOptions) *cobra.Command {
	o := &demoOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole job on an embedded rollup: read the L1 stage, deploy, push scores, finalize, verify",
		Args:  cobra.NoArgs,
		RunE:  ro.runs(o.demo),
	}
	cmd.Flags().Uint64Var(&o.l1Stage, "l1-stage", 7, "stage the L1 stand-in reports")
	cmd.Flags().IntVar(&o.generate, "generate", 2000, "generated entries pushed beside the fixture score file")
	cmd.Flags().StringVar(&o.engineName, "engine", "embedded", "embedded (in-process; EVM as a minievm is built), embedded-geth (in-process, EVM on go-ethereum's simulated chain), process (geth/wasmd from 'make nodes'), container (Docker) or minitia (Initia's own minitiad: a binary, or an image with --image)")
	cmd.Flags().StringVar(&o.minitiad, "minitiad", "", "with --engine minitia and --vm: that VM's minitiad binary (default $VIPHARNESS_MINIEVM / _MINIWASM / _MINIMOVE, else <cache>/minitia/<minievm|miniwasm|minimove>/minitiad)")
	addImageFlags(cmd, &o.image, &o.imageCmd)
	return o.addFlags(cmd, "vm")
}

// demo runs the whole job on a local rollup of each VM (or of --vm's) and prints the reports.
func (o *demoOptions) demo(ctx context.Context, sess session) error {
	l1Stage, generate, engineName, vmSet := o.l1Stage, o.generate, o.engineName, o.changed("vm")
	// Every VM with a deployer, unless --vm (or VM) picks one.
	vms := []vip.VM{vip.EVM, vip.Wasm, vip.Move}
	if vmSet || os.Getenv("VM") != "" {
		vm, _ := vip.ParseVM(o.vm)
		vms = []vip.VM{vm}
	}
	choice := engineChoice{name: engineName, minitiad: o.minitiad, image: o.image, imageCmd: o.imageCmd}
	if err := choice.checkMinitia(); err != nil {
		return err
	}
	if (o.minitiad != "" || o.image != "") && len(vms) > 1 {
		return invalid(fmt.Errorf("--minitiad and --image name one VM's rollup: pass --vm evm, wasm or move with it"))
	}
	var reps []demoReport
	for i, vm := range vms {
		if i > 0 && !sess.jsonOut {
			fmt.Fprintln(sess.out)
		}
		rep, err := runDemo(ctx, sess, choice, vm, l1Stage, generate)
		if err != nil {
			return classify(fmt.Errorf("demo %s: %w", vm, err))
		}
		reps = append(reps, rep)
		if !sess.jsonOut {
			if err := sess.printResult(nil, demoText(rep)); err != nil {
				return err
			}
		}
	}
	if !sess.jsonOut {
		return nil
	}
	if len(reps) == 1 {
		return sess.printResult(reps[0], "")
	}
	return sess.printResult(reps, "")
}

func demoText(rep demoReport) string {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "L1 stage (vip::ModuleStore)\t%d\n", rep.L1Stage)
	fmt.Fprintf(w, "rollup version (abci_info)\t%s\n", rep.RollupVersion)
	fmt.Fprintf(w, "contract (%s, %s)\t%s (deploy gas %d)\n", rep.VM, rep.Engine, rep.Contract, rep.DeployGas)
	fmt.Fprintf(w, "scores pushed\t%d entries in %d chunks, %d gas (%d per entry), %.0f entries/s\n", rep.Entries, rep.Chunks, rep.UpdateGas, rep.GasPerEntry, rep.EntriesPerSec)
	fmt.Fprintf(w, "finalized\tstage %d, total score %d; open stage now %d\n", rep.Finalized, rep.TotalScore, rep.OpenStageAfter)
	fmt.Fprintf(w, "read back\t%s\n", map[bool]string{true: "every score matches the input", false: "MISMATCH"}[rep.Verified])
	fmt.Fprintf(w, "wall time\t%s\n", rep.Elapsed.Round(time.Millisecond))
	w.Flush()
	return strings.TrimRight(b.String(), "\n")
}

func runDemo(ctx context.Context, sess session, choice engineChoice, vm vip.VM, l1Stage uint64, generate int) (demoReport, error) {
	start := time.Now()
	rep := demoReport{VM: string(vm), Engine: choice.name}
	st, err := startLocalStack(ctx, sess, choice, vm, l1Stage)
	if err != nil {
		return rep, err
	}
	defer st.stop()
	rep.StartToReady = st.ready

	if rep.L1Stage, err = l1node.NewReader(st.l1.URL(), st.l1.VIPAddress(), nil).Stage(ctx); err != nil {
		return rep, fmt.Errorf("read L1 stage: %w", err)
	}
	info, err := cosmosnode.New("", st.rollup.Endpoints().CometRPC, nil).ABCIInfo(ctx)
	if err != nil {
		return rep, fmt.Errorf("read rollup version: %w", err)
	}
	rep.RollupVersion = info.Version

	journalDir, err := os.MkdirTemp("", "vipctl-demo-journal-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(journalDir)
	s, closeFn, err := devScorer(ctx, sess, st.rollup, journalDir)
	if err != nil {
		return rep, err
	}
	defer closeFn()
	d, err := s.Deploy(ctx, rep.L1Stage)
	if err != nil {
		return rep, err
	}
	rep.Contract, rep.DeployGas = d.Contract, d.GasUsed

	f, err := fixtures.FS.Open("scores/small.csv")
	if err != nil {
		return rep, fmt.Errorf("open fixture score set: %w", err)
	}
	entries, err := scores.Parse(f, scores.CSV)
	f.Close()
	if err != nil {
		return rep, fmt.Errorf("parse fixture score set: %w", err)
	}
	if prefix := s.Bech32Prefix(); prefix != "" {
		// The fixture's 20-byte addresses, in the chain's bech32 form.
		if entries, err = scores.ToBech32(entries, prefix); err != nil {
			return rep, err
		}
		entries = append(entries, scores.GenerateBech32(generate, 1, prefix)...)
	} else {
		entries = append(entries, scores.Generate(generate, 1)...)
	}
	canonical, err := scores.Validate(entries, s.CheckAddress)
	if err != nil {
		return rep, fmt.Errorf("validate demo scores: %w", err)
	}
	pushStart := time.Now()
	res, err := s.UpdateScores(ctx, rep.L1Stage, canonical)
	if err != nil {
		return rep, err
	}
	rep.Entries, rep.Chunks, rep.UpdateGas = len(canonical), res.Chunks, res.GasUsed
	rep.GasPerEntry = res.GasUsed / uint64(len(canonical))
	rep.EntriesPerSec = float64(len(canonical)) / time.Since(pushStart).Seconds()

	if _, err := s.FinalizeStage(ctx, rep.L1Stage); err != nil {
		return rep, err
	}
	rep.Finalized = rep.L1Stage
	if rep.OpenStageAfter, err = s.OpenStage(ctx); err != nil {
		return rep, err
	}
	v, err := deployer.Verify(ctx, s, rep.L1Stage, canonical)
	if err != nil {
		return rep, err
	}
	rep.Verified, rep.TotalScore = v.OK() && v.Finalized, v.TotalScore
	rep.Elapsed = time.Since(start)
	if !rep.Verified {
		return rep, &exitError{exitMismatch, fmt.Errorf("demo read-back differs: %d mismatches", v.MismatchCount)}
	}
	return rep, nil
}

// devScorer opens a Scorer for the rollup's VM signing with its first funded dev account.
func devScorer(ctx context.Context, sess session, r localnet.Rollup, journalDir string) (*deployer.Scorer, func(), error) {
	secret, err := hex.DecodeString(r.Funded()[0].PrivateKey)
	if err != nil {
		return nil, nil, fmt.Errorf("dev key: %w", err)
	}
	ep := r.Endpoints()
	op, err := deployer.SoftSigner(r.VM(), "", secret, "operator")
	if err != nil {
		return nil, nil, err
	}
	cfg := deployer.Config{VM: r.VM(), JSONRPC: ep.JSONRPC, CometRPC: ep.CometRPC, REST: ep.REST,
		Operator: op, Push: deployer.PushConfig{JournalDir: journalDir, Logger: sess.logger}}
	// The dev rollups fund fresh accounts: a Move deployer compiles vip_score for its address.
	comp, err := moveCompiler()
	if err != nil {
		return nil, nil, err
	}
	cfg.Move.Build = move.Builder(comp)
	s, err := deployer.Open(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return s, s.Close, nil
}
