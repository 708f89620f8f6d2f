package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/guard"
	"github.com/vipharness/vipharness/deployer/tasks"
)

// optionalL1 is the configured L1, or nil when none is: the guards then refuse what needs it.
func (o *l1Options) optionalL1() (guard.L1, error) {
	r, err := o.optionalL1Reader()
	if r == nil {
		return nil, err
	}
	return r, nil
}

// stdinIsTerminal reports whether a person can answer a prompt read from in: a terminal.
// (a variable so tests can stand in for a person at a terminal)
var stdinIsTerminal = func(in io.Reader) bool { return isTerminal(in) }

// isTerminal reports whether f (a reader or writer) is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// confirm asks on a terminal (the command's input); without one it refuses unless --yes was
// given.
func (sess session) confirm(yes bool, question string) error {
	if yes {
		return nil
	}
	if !stdinIsTerminal(sess.in) {
		return invalid(fmt.Errorf("%s: needs confirmation and there is no terminal to ask; pass --yes to confirm", question))
	}
	fmt.Fprintf(sess.errOut, "%s? [y/N] ", question)
	line, _ := bufio.NewReader(sess.in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return invalid(fmt.Errorf("%s: not confirmed; nothing was sent", question))
}

// guarded maps a guard's refusal to the invalid-input exit code (nothing was sent), worded
// with the flags that answer it.
func guarded(err error) error {
	var r *guard.RefusedError
	if errors.As(err, &r) {
		return invalid(errors.New(refusalText(r)))
	}
	return classify(err)
}

// configureL1 is the advice when a decision needs the L1 and none is configured.
const configureL1 = "configure the L1 (--l1-rest and --vip-address, or --network)"

// refusalText is a guard's refusal in vipctl's words: what was refused and the flags that
// name a stage or consent to the risk.
func refusalText(r *guard.RefusedError) string {
	open, st, l1 := r.Open, r.Stage, r.L1Stage
	switch {
	case r.Why == guard.ForceWithoutStage:
		return fmt.Sprintf("finalize: --force needs --stage: name the stage to close early (the contract's open stage is %d: --stage %d --force), so a retry cannot close stage %d too", open, open, open+1)
	case r.Why == guard.NoStage && r.Op == "finalize":
		return fmt.Sprintf("finalize: which stage? the contract's open stage is %d; pass --stage %d, or %s so the open stage is finalized only once the L1 has moved past it", open, open, configureL1)
	case r.Why == guard.NoStage:
		return fmt.Sprintf("%s: which stage? pass --stage N, or %s so the L1's current stage is written", r.Op, configureL1)
	case r.Why == guard.L1NotPast && st == 0:
		return fmt.Sprintf("finalize: the contract's open stage is %d and the L1 is at stage %d: the L1 has not moved past stage %d, so nothing was finalized (to close it early anyway: --stage %d --force)", open, l1, open, open)
	case r.Why == guard.L1NotPast:
		return r.Error() + " (pass --force to do it anyway)"
	case r.Why == guard.NoL1:
		return fmt.Sprintf("%s: %s, or pass --force to finalize it regardless", r.Error(), configureL1)
	case r.Why == guard.EmptyStage:
		return r.Error() + " (pass --allow-empty to finalize it empty)"
	case r.Why == guard.ContractBehind:
		return fmt.Sprintf("%s (`vipctl stage sync`), or pass --stage %d to write stage %d anyway", r.Error(), open, open)
	case r.Why == guard.ContractAhead:
		return fmt.Sprintf("%s: `vipctl stage sync` cannot move a contract back, so pass --stage %d once the L1 reaches it", r.Error(), open)
	}
	return r.Error()
}

// finalizeStage runs a guarded, recorded finalize.
func (o *l1Options) finalizeStage(ctx context.Context, sess session, s *deployer.Scorer, req guard.FinalizeRequest, yes bool) error {
	l1, err := o.optionalL1()
	if err != nil {
		return err
	}
	rs := sess.store().Recorded(s)
	f, err := tasks.FinalizeStage(ctx, rs, tasks.FinalizeOptions{FinalizeRequest: req, L1: l1, Confirm: func(d guard.FinalizeDecision) error {
		return sess.confirm(yes, fmt.Sprintf("finalize stage %d although %s", d.Stage, guard.Describe(d.Risks)))
	}})
	if err != nil {
		return guarded(err)
	}
	type result struct {
		guard.FinalizeDecision
		TxHash string `json:"tx_hash"`
	}
	d := f.FinalizeDecision
	if d.Done {
		shown := f.TxHash
		switch {
		case f.TxErr != nil:
			shown = "unknown: " + f.TxErr.Error()
		case f.TxHash == "":
			shown = "not recorded here and not found in the chain's events"
		}
		return sess.printResult(result{d, f.TxHash}, fmt.Sprintf("stage %d already finalized (tx %s); nothing sent", d.Stage, shown))
	}
	return sess.printResult(result{d, f.TxHash}, fmt.Sprintf("finalized stage %d (tx %s); stage %d is open", d.Stage, f.TxHash, d.Stage+1))
}
