// Command vipctl builds, deploys, operates and verifies the VIP scoring contract of a
// rollup, and runs local rollups to rehearse all of it.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/keys/ledger"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/operation/operate"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vm/evm"
)

// Exit codes a pipeline can trust.
const (
	exitOK       = 0
	exitFailure  = 1 // anything else: chain unreachable, I/O, ...
	exitInvalid  = 2 // bad flags or input: nothing was sent
	exitReverted = 3 // a transaction was rejected by the chain or contract
	exitMismatch = 4 // read-back differs from the input
)

// exitError carries an exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func invalid(err error) error  { return &exitError{exitInvalid, err} }
func reverted(err error) error { return &exitError{exitReverted, err} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := execute(ctx, newRoot())
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "vipctl:", err.Error()+advice(err))
	var ee *exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	os.Exit(exitFailure)
}

// advice is the flags that answer an error the library reports in its own words, "" for
// any other.
func advice(err error) string {
	switch {
	case errors.Is(err, scores.ErrNoFormat):
		return ": pass --format csv|json"
	case errors.Is(err, keys.ErrOnLedger):
		return ": pass --ledger (and --ledger-speculos for an emulator)"
	case errors.Is(err, audit.ErrNotFinalized):
		return " (--allow-open previews it)"
	case errors.Is(err, keys.ErrHDPath):
		return " (--hd-path, or HD_PATH)"
	case errors.Is(err, ledger.ErrNoHID):
		return " (--ledger-speculos HOST:PORT)"
	}
	var se *keys.SourcesError
	if errors.As(err, &se) {
		return " (--from, --keystore, --ledger)"
	}
	var same *operate.SameScoresError
	if errors.As(err, &same) {
		return " (vipctl scores update --stage N, vipctl stage finalize --stage N)"
	}
	var stuck *evm.StuckNonceError
	if errors.As(err, &stuck) {
		feeCap, tip := stuck.ReplacementFees()
		return fmt.Sprintf(": cast send --nonce %d --gas-price %s --priority-gas-price %s --private-key $PRIVATE_KEY --rpc-url $JSON_RPC_URL %s; then run this command again",
			stuck.Nonce, feeCap, tip, stuck.Sender.Hex())
	}
	return ""
}

// execute runs root; a command name it does not know is bad input, as a bad flag is.
func execute(ctx context.Context, root *cobra.Command) error {
	err := root.ExecuteContext(ctx)
	if err != nil && strings.HasPrefix(err.Error(), "unknown command ") {
		return invalid(err)
	}
	return err
}
