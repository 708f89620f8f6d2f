package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/evm"
)

// exitCode is the code main would exit with for err.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}

// Every numeric knob is checked before a command does anything: out of range is exit 2,
// naming the flag.
func TestNumericFlagsInRange(t *testing.T) {
	for _, tc := range []struct {
		args []string
		bad  string // the flag named in the refusal; "" for accepted
	}{
		{[]string{"scores", "update", "--chunk-size", "-5"}, "--chunk-size"},
		{[]string{"scores", "update", "--chunk-size", "0"}, ""},
		{[]string{"scores", "update", "--chunk-size", "250"}, ""},
		{[]string{"scores", "update", "--window", "0"}, "--window"},
		{[]string{"scores", "update", "--window", "-1"}, "--window"},
		{[]string{"scores", "update", "--window", "1"}, ""},
		{[]string{"scores", "update", "--window", fmt.Sprint(deployer.MaxWindow)}, ""},
		{[]string{"scores", "update", "--window", fmt.Sprint(deployer.MaxWindow + 1)}, "--window"},
		{[]string{"operate", "--window", "0"}, "--window"}, // a push flag on another command
		{[]string{"operate", "--every", "0s"}, "--every"},
		{[]string{"operate", "--poll", "-1s"}, "--poll"},
		{[]string{"operate", "--max-backoff", "0s"}, "--max-backoff"},
		{[]string{"operate", "--source-timeout", "-5m"}, "--source-timeout"},
		{[]string{"operate", "--every", "5s", "--poll", "1s"}, ""},
		{[]string{"preflight", "--first-push", "0"}, "--first-push"},
		{[]string{"demo", "--generate", "-1"}, "--generate"},
		{[]string{"demo", "--l1-stage", "0"}, "--l1-stage"},
		{[]string{"localnet", "up", "--l1-stage", "0"}, "--l1-stage"},
		{[]string{"localnet", "up", "--l1-advance-every", "-1s"}, "--l1-advance-every"},
		{[]string{"localnet", "up", "--l1-advance-every", "0s"}, ""},
		{[]string{"localnet", "ledger", "--confirm-delay", "-1s"}, "--confirm-delay"},
		{[]string{"keys", "show", "--account", "2147483648"}, "--account"},
		{[]string{"keys", "show", "--account", "3"}, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cmd, rest, err := newRoot().Find(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Fatal(err)
			}
			err = checkFlags(cmd.Flags())
			if tc.bad == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if exitCode(err) != exitInvalid || !strings.Contains(err.Error(), tc.bad+" ") {
				t.Fatalf("got exit %d, %v; want exit %d naming %s", exitCode(err), err, exitInvalid, tc.bad)
			}
		})
	}
}

// The checks run before the command: no endpoint is dialled, nothing read.
func TestFlagRefusalsComeFirst(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"scores", "update", "--file", "/nonexistent.csv", "--rpc", "http://127.0.0.1:1", "--chunk-size", "-5"}, "--chunk-size -5"},
		{[]string{"scores", "update", "--file", "/nonexistent.csv", "--rpc", "http://127.0.0.1:1", "--window", "0"}, "--window 0"},
		{[]string{"stage", "finalize", "--stage", "-1"}, `"-1" for "--stage"`}, // does not parse as a u64
		{[]string{"operate", "--file", "x.csv", "--every", "nope"}, `"nope" for "--every"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			root := newRoot()
			root.SetArgs(append([]string{"--state-dir", t.TempDir()}, tc.args...))
			root.SetOut(io.Discard)
			root.SetErr(io.Discard)
			err := root.ExecuteContext(context.Background())
			if exitCode(err) != exitInvalid || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got exit %d, %v; want exit %d saying %q", exitCode(err), err, exitInvalid, tc.says)
			}
		})
	}
}

type fakeChecker struct {
	addr string
	err  error
}

func (f fakeChecker) CheckInterface(context.Context) (string, error) {
	return "ok", f.err
}

// An address that is not a scoring contract is bad input; a node that cannot be asked is not.
func TestCheckContract(t *testing.T) {
	const addr = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	for _, tc := range []struct {
		name string
		s    contractChecker
		code int
		says string
	}{
		{"speaks the interface", fakeChecker{addr: addr}, exitOK, ""},
		{"no code: a plain account", fakeChecker{addr, errors.New("no contract code at " + addr)}, exitInvalid, "is not a scoring contract"},
		{"other code", fakeChecker{addr, errors.New("the code does not dispatch finalizeStage(uint64)")}, exitInvalid, "finalizeStage"},
		{"node unreachable", fakeChecker{addr, fmt.Errorf("read the code: %w", &url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: syscall.ECONNREFUSED})}, exitFailure, "connection refused"},
		{"the operator may not write", fakeChecker{addr, &vip.CheckError{Contract: addr, Kind: vip.ErrCannotWrite, Stage: 5, Err: &evm.RevertError{Name: "PermissionDenied"}}}, exitReverted, "PermissionDenied"},
		{"no operator key", fakeChecker{addr, fmt.Errorf("prove the operator may write: %w", &vip.MissingKeyError{Role: "operator"})}, exitFailure, "set PRIVATE_KEY or MNEMONIC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkContract(context.Background(), addr, tc.s)
			if exitCode(err) != tc.code || (tc.says != "" && !strings.Contains(err.Error(), tc.says)) {
				t.Fatalf("got exit %d, %v; want exit %d saying %q", exitCode(err), err, tc.code, tc.says)
			}
			if tc.code == exitInvalid && !strings.Contains(err.Error(), addr) {
				t.Fatalf("%v does not name the address", err)
			}
		})
	}
}

// pflag takes a backquoted word in a flag's usage as the name of its value (--engine make
// nodes): usage text quotes with ' instead.
func TestFlagUsageNamesNoValueByAccident(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if strings.Contains(f.Usage, "`") {
					t.Errorf("%s --%s: backquotes in usage %q", c.CommandPath(), f.Name, f.Usage)
				}
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
}

// operate logs durations as people write them, in JSON and in text.
func TestOperateLogsDurationsAsText(t *testing.T) {
	for _, jsonOut := range []bool{true, false} {
		var buf strings.Builder
		operateLogger(session{errOut: &buf, jsonOut: jsonOut}).Info("operator started", "every", 5*time.Second, "poll", 1500*time.Millisecond)
		if out := buf.String(); strings.Contains(out, "5000000000") || !strings.Contains(out, "5s") || !strings.Contains(out, "1.5s") {
			t.Errorf("json %v: %s", jsonOut, out)
		}
	}
}
