package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/registration/preflight"
	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

// preflightOptions are preflight's own flags.
// preflightOptions are preflight's flags.
type preflightOptions struct {
	*chainOptions
	firstPush int
}

func newPreflightCmd(ro *rootOptions) *cobra.Command {
	o := &preflightOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "preflight",
		Short: "Check a rollup, the L1 and the accounts before a deploy; every finding says what to do",
		Long: "Checks the rollup's faces (--comet-rpc, --rest, and --rpc on EVM), its VM, version and chain\n" +
			"id, names the minitiad release that matches its version for this OS and architecture, reads\n" +
			"the L1's VIP stage (--network, or --l1-rest and --vip-address), checks that the deployer and\n" +
			"operator keys in the environment hold enough for the estimated deploy and first push, and on\n" +
			"minievm that the EVM chain id is the one Initia derives from the chain id. With --contract it\n" +
			"checks the contract exists, has the official interface and keeps up with the L1 stage.\n" +
			"Exit 0 when nothing fails (warnings allowed), 1 when a check fails; --json for pipelines.",
		Args: cobra.NoArgs,
		RunE: ro.runs(o.preflight),
	}
	cmd.Flags().IntVar(&o.firstPush, "first-push", 1000, "addresses the first score push is estimated for")
	return o.addFlags(cmd, rollupFlags, l1Flags, signerGroup)
}

// preflight checks the rollup, the L1 and the accounts and prints every finding.
func (o *preflightOptions) preflight(ctx context.Context, sess session) error {
	vmSet := o.changed("vm") // --vm given: the VM is not detected
	cfg := preflight.Config{CometRPC: o.cometRPC, REST: o.rest, JSONRPC: o.rpc, FirstPush: o.firstPush,
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, ContractAddress: o.contract, Client: &probe.Client{REST: o.rest, JSONRPC: o.rpc}}
	if vmSet || os.Getenv("VM") != "" {
		cfg.VM, _ = vip.ParseVM(o.vm)
	} else if o.rest == "" && o.rpc != "" {
		cfg.VM = vip.EVM
	}
	r, err := o.optionalL1Reader()
	if err != nil {
		return err
	}
	if r != nil {
		cfg.L1 = r
	}
	vm := cfg.VM
	if vm == "" && o.rest != "" {
		if ni, err := cfg.Client.NodeInfo(ctx); err == nil {
			vm, _ = vip.ByNodeName(ni.Name)
		}
	}
	if cfg.Accounts, err = o.preflightAccounts(ctx, sess, vm); err != nil {
		return err
	}
	if o.contract != "" && vm != "" {
		c := &probe.Client{REST: o.rest, JSONRPC: o.rpc}
		open := func(ctx2 context.Context) (uint64, error) {
			s, closeFn, err := o.scorer(ctx2, sess, scorerRequest{vm: vm, contract: true})
			if err != nil {
				return 0, err
			}
			defer closeFn()
			return s.OpenStage(ctx2)
		}
		cfg.Contract = preflight.ContractOf(vm, c, o.contract, open)
	}
	rep := preflight.Run(ctx, cfg)
	for i := range rep.Findings {
		rep.Findings[i].Fix = preflightFix(rep.Findings[i])
	}
	if err := sess.printResult(rep, preflightTable(rep)); err != nil {
		return err
	}
	if !rep.OK {
		return &exitError{exitFailure, fmt.Errorf("preflight: %d check(s) failed", rep.Count(preflight.Fail))}
	}
	return nil
}

// preflightAccounts are the deployer and operator (signer flags or environment) (the operator defaults to
// the deployer, which then pays for both) with the gas each is expected to spend.
func (c *chainOptions) preflightAccounts(ctx context.Context, sess session, vm vip.VM) ([]preflight.Account, error) {
	if vm == "" {
		return nil, nil
	}
	var dep, op string
	cosmos := vip.MustDescribe(vm).Cosmos
	if cosmos && (c.cometRPC == "" || c.rest == "") {
		return nil, nil // the findings say the endpoints are missing
	}
	d, o, err := c.signers(ctx, sess, vm)
	if err != nil {
		return nil, err
	}
	addr := func(s keys.Signer) (string, error) { return s.Address().Hex(), nil }
	if cosmos {
		prefix, err := (&probe.Client{REST: c.rest}).Bech32Prefix(ctx)
		if err != nil {
			prefix = "init" // the REST finding says why it did not answer
		}
		addr = func(s keys.Signer) (string, error) { return bech32.ConvertAndEncode(prefix, s.Address().Bytes()) }
	}
	if d != nil {
		if dep, err = addr(d); err != nil {
			return nil, err
		}
	}
	if o != nil {
		if op, err = addr(o); err != nil {
			return nil, err
		}
	}
	switch {
	case dep == "" && op == "":
		return nil, nil
	case op == "" || op == dep:
		return []preflight.Account{{Role: "deployer (and operator)", Address: dep, Deploys: true, Pushes: true}}, nil
	case dep == "":
		return []preflight.Account{{Role: "operator", Address: op, Pushes: true}}, nil
	}
	return []preflight.Account{{Role: "deployer", Address: dep, Deploys: true}, {Role: "operator", Address: op, Pushes: true}}, nil
}

func preflightTable(rep preflight.Report) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "CHECK\tSTATUS\tDETAIL")
	for _, f := range rep.Findings {
		fmt.Fprintf(w, "%s\t%s\t%s\n", f.Check, strings.ToUpper(string(f.Status)), f.Detail)
		if f.Fix != "" && f.Status != preflight.OK {
			fmt.Fprintf(w, "\t\t-> %s\n", f.Fix)
		}
	}
	_ = w.Flush()
	fmt.Fprintf(&b, "%d ok, %d warn, %d fail, %d skipped", rep.Count(preflight.OK), rep.Count(preflight.Warn), rep.Count(preflight.Fail), rep.Count(preflight.Skip))
	return b.String()
}

// preflightFix is a finding's fix in vipctl's words: the flags (and environment variables)
// of the inputs it names, and the command it asks for.
func preflightFix(f preflight.Finding) string {
	fix := f.Fix
	if len(f.Inputs) > 0 {
		flags := make([]string, 0, len(f.Inputs))
		for _, in := range f.Inputs {
			flags = append(flags, preflightInput(in, f.Value))
		}
		fix += ": pass " + strings.Join(flags, ", ")
	}
	switch f.Then {
	case preflight.ActDeploy:
		fix += " (vipctl deploy)"
	case preflight.ActFinalize:
		fix += " (vipctl stage finalize, or vipctl operate)"
	}
	return fix
}

// preflightInput names the flag and environment variable that give a preflight input.
func preflightInput(in preflight.Input, value string) string {
	switch in {
	case preflight.InCometRPC:
		return "--comet-rpc (COMET_RPC_URL)"
	case preflight.InREST:
		return "--rest (REST_URL)"
	case preflight.InJSONRPC:
		return "--rpc (JSON_RPC_URL) on EVM"
	case preflight.InVM:
		if value != "" {
			return "--vm " + value
		}
		return "--vm"
	case preflight.InL1:
		return "--network mainnet|testnet (or --l1-rest and --vip-address)"
	case preflight.InStage:
		return "--stage to deploy at"
	case preflight.InContract:
		return "--contract"
	case preflight.InKeys:
		return "MNEMONIC (or PRIVATE_KEY) and OPERATOR_MNEMONIC, or the signer flags"
	}
	return string(in)
}
