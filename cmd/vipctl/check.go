package main

import (
	"context"
	"crypto/rand"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/conformance"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

// checkOptions are check's flags.
type checkOptions struct {
	*chainOptions
	artifact, junit string
	st              uint64
}

func newCheckCmd(ro *rootOptions) *cobra.Command {
	o := &checkOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check that a rollup and a scoring contract conform: deploy a fresh one and run the named checks",
		Long: "Deploys a fresh scoring contract (ours, or your own build with --artifact: the creation code\n" +
			"(.bin, hex) or a Foundry/Hardhat JSON artifact (its ABI checked first) for EVM, the compiled\n" +
			"module (.mv) for Move, the .wasm for Wasm) at a stage (--stage,\n" +
			"else the L1's current stage, else 1) on the rollup given by the usual endpoint flags, and runs\n" +
			"the conformance checks: updates of one, many and a full chunk, overwrites, totals, paged\n" +
			"read-back, finalize, the next stage opened and untouched, the refusals and events the official\n" +
			"interface defines. With --contract ADDR (or CONTRACT_ADDRESS), checks an existing deployment\n" +
			"read-only instead: its interface (EVM selectors, the Move module's ABI, the Wasm query shapes),\n" +
			"its open stage beside the L1's, its totals. The VM is detected from the rollup unless --vm (or VM)\n" +
			"names it.\n" +
			"Exit 0 only when no check fails; --json and --junit FILE for pipelines.",
		Args: cobra.NoArgs,
		RunE: ro.runs(o.runChecks),
	}
	cmd.Flags().StringVar(&o.artifact, "artifact", "", "deploy this build instead of ours: .bin (hex creation code) or a Foundry/Hardhat .json for EVM, .mv for Move, .wasm for Wasm")
	cmd.Flags().Uint64Var(&o.st, "stage", 0, "stage to deploy at (default: the L1's current stage, else 1)")
	cmd.Flags().StringVar(&o.junit, "junit", "", "also write the checks as a JUnit XML report to this file")
	return o.addFlags(cmd, rollupFlags, l1Flags, pushFlags, signerGroup)
}

// runChecks deploys a fresh contract and runs the conformance checks, or inspects the
// contract named, read-only; it prints the checks and exits 4 when one fails.
func (o *checkOptions) runChecks(ctx context.Context, sess session) error {
	artifact, junit, st := o.artifact, o.junit, o.st
	vmSet := o.changed("vm") // --vm given: the VM is not detected
	vm, err := vip.ParseVM(o.vm)
	if err != nil {
		return invalid(err)
	}
	if !vmSet && os.Getenv("VM") == "" {
		if vm, err = o.detectVM(ctx); err != nil {
			return err
		}
	}
	req := scorerRequest{vm: vm}
	if artifact != "" {
		if req.code, err = readArtifact(vm, artifact); err != nil {
			return invalid(err)
		}
	}
	var l1Stage uint64
	if r, err := o.l1Reader(); err == nil {
		if l1Stage, err = r.Stage(ctx); err != nil {
			return fmt.Errorf("read L1 stage: %w", err)
		}
	}
	var rep conformance.Report
	if o.contract != "" {
		// An existing deployment: read-only checks, nothing is sent.
		if artifact != "" || st != 0 {
			return invalid(errors.New("--contract checks an existing deployment read-only; --artifact and --stage are for a fresh deploy"))
		}
		req.contract = true
		s, closeFn, err := o.scorer(ctx, sess, req)
		if err != nil {
			return err
		}
		defer closeFn()
		rep = conformance.Inspect(ctx, s, l1Stage)
	} else {
		if st == 0 {
			st = max(l1Stage, 1)
		}
		s, closeFn, err := o.scorer(ctx, sess, req)
		if err != nil {
			return err
		}
		defer closeFn()
		if vip.MustDescribe(vm).OneContractPerDeployer && artifact == "" {
			// An account holds one vip_score module: a fresh publisher, funded by the
			// deployer, lets check run again and again on one chain. (A team's own .mv
			// is built for its deployer's address, so --artifact publishes from there.)
			fresh, err := o.freshAccount(ctx, sess, vm, s, "", 40_000_000)
			if err != nil {
				return fmt.Errorf("a fresh Move publisher: %w", err)
			}
			defer fresh.Close()
			s = fresh
		}
		rep = conformance.Run(ctx, conformance.SubjectFor(s, o.strangerFor(sess, vm, s)), st)
	}
	if junit != "" {
		if err := writeJUnit(junit, rep); err != nil {
			return err
		}
	}
	checkAdvice(&rep)
	if err := sess.printResult(rep, checkTable(rep)); err != nil {
		return err
	}
	if !rep.OK() {
		_, fail, _ := rep.Counts()
		return &exitError{exitMismatch, fmt.Errorf("%d conformance check(s) failed", fail)}
	}
	return nil
}

// detectVM names the rollup's VM: an Initia rollup's node_info says minievm, minimove or
// miniwasm (wasmd says wasmd); a rollup with only a JSON-RPC face is EVM.
func (o *rollupOptions) detectVM(ctx context.Context) (vip.VM, error) {
	if o.rest != "" {
		info, err := cosmosnode.New(o.rest, "", nil).NodeInfo(ctx)
		if err != nil {
			return "", fmt.Errorf("detect the VM: %w", err)
		}
		if vm, ok := vip.ByNodeName(info.Name); ok {
			return vm, nil
		}
		return "", invalid(fmt.Errorf("detect the VM: node_info names application %q (%s), not minievm, minimove or miniwasm: pass --vm", info.AppName, info.Name))
	}
	if o.rpc != "" {
		return vip.EVM, nil
	}
	return "", invalid(errors.New("no rollup to check: pass --rpc (EVM JSON-RPC), or --comet-rpc and --rest (or set JSON_RPC_URL, or COMET_RPC_URL and REST_URL)"))
}

// readArtifact reads a contract build for vm (vip.Spec.ReadArtifact): for EVM the
// creation code (hex, or a Foundry or Hardhat artifact whose ABI is checked against the
// interface), the module's bytes else.
func readArtifact(vm vip.VM, path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--artifact: %w", err)
	}
	spec := vip.MustDescribe(vm)
	code, err := spec.ReadArtifact(b)
	if err != nil {
		return nil, fmt.Errorf("--artifact %s (want %s): %w", path, spec.Artifact, err)
	}
	return code, nil
}

// strangerFor opens Scorers with a fresh key that is on no allow list. EVM calls need no
// account; on a Cosmos rollup the chain simulates only for an existing account, so the
// deployer funds the stranger with what a few simulations cost.
func (o *chainOptions) strangerFor(sess session, vm vip.VM, s *deployer.Scorer) func(ctx context.Context, contract string) (conformance.Target, error) {
	return func(ctx context.Context, contract string) (conformance.Target, error) {
		return o.freshAccount(ctx, sess, vm, s, contract, 2_000_000)
	}
}

// freshAccount opens a Scorer whose deployer and operator is a new key, attached to contract
// if set. On a Cosmos rollup the environment's deployer first funds it with the fees of gas.
func (o *chainOptions) freshAccount(ctx context.Context, sess session, vm vip.VM, s *deployer.Scorer, contract string, gas uint64) (*deployer.Scorer, error) {
	cfg, err := o.scorerConfig(ctx, sess, scorerRequest{vm: vm})
	if err != nil {
		return nil, err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	kind, err := o.keyKind(vm)
	if err != nil {
		return nil, err
	}
	fresh, err := deployer.SoftSigner(vm, kind, secret, "operator")
	if err != nil {
		return nil, err
	}
	funder := cfg.Deployer
	if funder == nil {
		funder = cfg.Operator
	}
	if vip.MustDescribe(vm).Cosmos && funder == nil {
		return nil, invalid(errors.New("no deployer key to fund a fresh account with: set PRIVATE_KEY or MNEMONIC, or pass --from, --keystore or --ledger"))
	}
	price, err := deployer.FundFresh(ctx, s, funder, fresh, gas)
	if err != nil {
		return nil, err
	}
	if price != nil {
		cfg.Cosmos.GasPrice = price
	}
	cfg.Operator, cfg.Deployer, cfg.Contract = fresh, nil, contract
	cfg.Push = deployer.PushConfig{JournalDir: cfg.Push.JournalDir}
	return deployer.Open(ctx, cfg)
}

func checkTable(rep conformance.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s contract %s, stage %d\n", rep.VM, orNone(rep.Contract), rep.Stage)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, c := range rep.Checks {
		fmt.Fprintf(w, "%s\t%s\t%.2fs\t%s\n", strings.ToUpper(string(c.Status)), c.Name, c.Seconds, c.Detail)
	}
	w.Flush()
	p, f, s := rep.Counts()
	fmt.Fprintf(&b, "%d passed, %d failed, %d skipped", p, f, s)
	return b.String()
}

// writeJUnit writes the checks as one JUnit test suite.
func writeJUnit(path string, rep conformance.Report) error {
	type failure struct {
		Message string `xml:"message,attr"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      float64  `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Skipped   *failure `xml:"skipped,omitempty"`
	}
	type suite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	p, f, s := rep.Counts()
	out := suite{Name: fmt.Sprintf("vipctl check %s %s", rep.VM, rep.Contract), Tests: p + f + s, Failures: f, Skipped: s}
	for _, c := range rep.Checks {
		tc := testcase{Name: c.Name, Classname: "conformance." + string(rep.VM), Time: c.Seconds}
		switch c.Status {
		case conformance.Fail:
			tc.Failure = &failure{Message: c.Detail}
		case conformance.Skip:
			tc.Skipped = &failure{Message: c.Detail}
		}
		out.Cases = append(out.Cases, tc)
	}
	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	if err := os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	return nil
}

// checkAdvice adds to each check's detail the flags or the command its remedy is.
func checkAdvice(rep *conformance.Report) {
	for i, c := range rep.Checks {
		switch c.Then {
		case conformance.GiveL1:
			rep.Checks[i].Detail += " (--l1-rest and --vip-address, or --network)"
		case conformance.SyncStages:
			rep.Checks[i].Detail += " (`vipctl stage sync`)"
		}
	}
}
