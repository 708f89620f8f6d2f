package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/localnet/ledger"
)

// ledgerStandInOptions are localnet ledger's own flags.
type ledgerStandInOptions struct {
	mnemonicFile string
	fromEnv      bool
	delay        time.Duration
	refuse       string
}

// newLedgerStandInCmd serves the Ledger stand-in (the Ethereum app emulated at the APDU
// level) on a Speculos port, to rehearse --ledger flows without a device.
func newLedgerStandInCmd(ro *rootOptions) *cobra.Command {
	var o ledgerStandInOptions
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Serve a Ledger stand-in (Ethereum app, Speculos APDU protocol on 127.0.0.1) for --ledger --ledger-speculos",
		Long: `Serve a stand-in for a Ledger device running the Ethereum app, on Speculos' TCP APDU
protocol on 127.0.0.1. Its keys derive from the mnemonic in --mnemonic-file (default: the
public development mnemonic "test ... junk", never for real funds). Every request the user
would confirm on the device is printed; it approves them all, unless --refuse N makes the
user refuse the N-th request (N+ : the N-th and every later one), to rehearse a refusal
mid-push. Ctrl-C stops.`,
		Args: cobra.NoArgs,
		RunE: ro.runs(func(ctx context.Context, sess session) error { return serveLedgerStandIn(ctx, sess, o) }),
	}
	cmd.Flags().StringVar(&o.mnemonicFile, "mnemonic-file", "", "file holding the stand-in's mnemonic (default: the public test mnemonic)")
	cmd.Flags().BoolVar(&o.fromEnv, "mnemonic-from-env", false, "take the mnemonic from MNEMONIC (the funded account 'vipctl localnet up' writes to its env file)")
	cmd.Flags().DurationVar(&o.delay, "confirm-delay", 0, "time the simulated user takes to confirm each request")
	cmd.Flags().StringVar(&o.refuse, "refuse", "", "the simulated user refuses the N-th request (N), or the N-th and every later one (N+)")
	return cmd
}

// serveLedgerStandIn serves the Ledger stand-in until interrupted.
func serveLedgerStandIn(ctx context.Context, sess session, o ledgerStandInOptions) error {
	mnemonicFile, fromEnv, delay, refuse := o.mnemonicFile, o.fromEnv, o.delay, o.refuse
	mnemonic := "test test test test test test test test test test test junk"
	if mnemonicFile != "" {
		b, err := os.ReadFile(mnemonicFile)
		if err != nil {
			return invalid(fmt.Errorf("--mnemonic-file: %w", err))
		}
		mnemonic = strings.TrimSpace(string(b))
	}
	if fromEnv {
		if mnemonic = os.Getenv("MNEMONIC"); mnemonic == "" {
			return invalid(errors.New("--mnemonic-from-env: MNEMONIC is not set (source the localnet env file)"))
		}
	}
	nth, onward, err := parseRefuse(refuse)
	if err != nil {
		return invalid(err)
	}
	dev, err := ledger.NewDevice(mnemonic, ledger.WithConfirmDelay(delay))
	if err != nil {
		return invalid(errors.New("the stand-in's mnemonic is not a valid BIP39 mnemonic"))
	}
	switch {
	case nth > 0 && onward:
		dev.RejectFrom(nth)
	case nth > 0:
		dev.RejectNth(nth)
	}
	srv, err := ledger.Serve(dev)
	if err != nil {
		return err
	}
	defer srv.Close()
	addr0, _ := srv.Address(keys.EVMPath(0))
	if err := sess.printResult(map[string]string{"speculos": srv.Addr(), "account_0": addr0.Hex()},
		fmt.Sprintf("Ledger stand-in (Ethereum app) on %s; account 0 %s\nuse --ledger --ledger-speculos %s; Ctrl-C stops", srv.Addr(), addr0.Hex(), srv.Addr())); err != nil {
		return err
	}
	seen := 0
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			log := srv.Confirmations()
			for _, c := range log[seen:] {
				shown := strings.Join(c.Screens, " | ")
				if len(shown) > 240 {
					shown = shown[:240] + "..."
				}
				answer := "approved"
				if !c.Approved {
					answer = "REFUSED"
				}
				fmt.Fprintf(sess.errOut, "device: %s %s %s: %s\n", answer, c.Kind, c.Path, shown)
			}
			seen = len(log)
		}
	}
}

// parseRefuse reads --refuse: "" (approve all), "N" or "N+" with N >= 1.
func parseRefuse(v string) (n int, onward bool, err error) {
	if v == "" {
		return 0, false, nil
	}
	num, onward := strings.CutSuffix(v, "+")
	n, err = strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0, false, fmt.Errorf("--refuse %q: want N or N+ with N >= 1 (the N-th request the user is asked to confirm)", v)
	}
	return n, onward, nil
}
