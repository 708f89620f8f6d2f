package main

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// leaves are the commands that run something, by path.
func leaves(root *cobra.Command) map[string]*cobra.Command {
	out := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && c != root && c.Name() != "help" && !strings.HasPrefix(c.CommandPath(), "vipctl completion") {
			out[strings.TrimPrefix(c.CommandPath(), "vipctl ")] = c
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// Each command carries the shared flags it reads and no others: the stand-in servers,
// setup and the registration writers take no push or signer flags, every command that
// signs takes the signer flags. A new command must say here what it takes.
func TestEachCommandHasTheFlagsItReads(t *testing.T) {
	want := map[string][]string{
		"deploy":            {rollupFlags, l1Flags, signerGroup},
		"scores update":     {rollupFlags, l1Flags, pushFlags, signerGroup},
		"scores get":        {rollupFlags},
		"scores compute":    {rollupFlags, l1Flags}, // the stage's times from the L1; --compare reads the contract
		"stage show":        {rollupFlags, l1Flags},
		"stage finalize":    {rollupFlags, l1Flags, signerGroup},
		"stage sync":        {rollupFlags, l1Flags, signerGroup},
		"verify":            {rollupFlags},
		"check":             {rollupFlags, l1Flags, pushFlags, signerGroup},
		"operate":           {rollupFlags, l1Flags, pushFlags, signerGroup},
		"audit":             {rollupFlags, l1Flags},
		"preflight":         {rollupFlags, l1Flags, signerGroup},
		"keys new":          {"vm", "key-type", signerGroup},
		"keys show":         {"vm", "key-type", signerGroup},
		"demo":              {"vm"},
		"localnet up":       {"vm"},
		"localnet ledger":   nil,
		"indexer serve":     {"rpc", "comet-rpc", "rest"},
		"router serve":      {"rpc"},
		"setup":             nil,
		"registry":          {"rpc", "rest", "network"},
		"registry validate": nil,
		"whitelist":         {"vm", "rest", "contract", l1Flags, "sender"}, // its own --sender: the proposal's
		"move-build":        nil,
		"version":           nil,
		"man":               nil,
	}
	shared := map[string]bool{}
	for _, names := range flagGroups {
		for _, n := range names {
			shared[n] = true
		}
	}
	got := leaves(newRoot())
	for path, cmd := range got {
		names, ok := want[path]
		if !ok {
			t.Errorf("vipctl %s: not in this test's table: say which shared flags it takes", path)
			continue
		}
		var expect []string
		for _, n := range names {
			if g, ok := flagGroups[n]; ok {
				expect = append(expect, g...)
			} else {
				expect = append(expect, n)
			}
		}
		var has []string
		cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if shared[f.Name] {
				has = append(has, f.Name)
			}
		})
		slices.Sort(expect)
		slices.Sort(has)
		if !slices.Equal(has, expect) {
			t.Errorf("vipctl %s: shared flags %v, want %v", path, has, expect)
		}
	}
	for path := range want {
		if got[path] == nil {
			t.Errorf("vipctl %s: no such command", path)
		}
	}
}

// How arguments and flags are taken: a flag a command does not have, a missing or extra
// argument, a bad value, flags before the command's name; each refusal is bad input (exit 2)
// and names the problem, before any endpoint is dialled.
func TestArgumentsAndFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		says string // "" : accepted up to the point where it would dial (no rollup named)
	}{
		{"a push flag on setup", []string{"setup", "--chunk-size", "5"}, "unknown flag: --chunk-size"},
		{"a signer flag on registry", []string{"registry", "--ledger"}, "unknown flag: --ledger"},
		{"a signer flag on the router", []string{"router", "serve", "--from", "op"}, "unknown flag: --from"},
		{"a push flag on stage finalize", []string{"stage", "finalize", "--window", "2"}, "unknown flag: --window"},
		{"an argument deploy does not take", []string{"deploy", "extra"}, `unknown command "extra"`},
		{"registry validate without its path", []string{"registry", "validate"}, "accepts 1 arg"},
		{"scores update without a file", []string{"scores", "update", "--rpc", "http://127.0.0.1:1"}, "--file is required"},
		{"an unknown vm", []string{"deploy", "--vm", "solana"}, `unknown vm "solana"`},
		{"a value flag before the command's name", []string{"--vm", "solana", "deploy"}, `unknown vm "solana"`},
		{"an unknown command", []string{"deplyo"}, `unknown command "deplyo"`},
		{"no rollup to read", []string{"scores", "get", "--vm", "evm", "--rpc", ""}, "no rollup RPC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("JSON_RPC_URL", "")
			wantRefused(t, tc.args, tc.says)
		})
	}
}

// Each command binds the shared flags to options of its own: a value one command parses is
// seen by no other, whose flag keeps its default.
func TestCommandsShareNoSettings(t *testing.T) {
	cmds := leaves(newRoot())
	for path, cmd := range cmds {
		for _, name := range []string{"rpc", "vip-address", "window", "from"} {
			f := cmd.Flags().Lookup(name)
			if f == nil {
				continue
			}
			if err := cmd.Flags().Set(name, "7"); err != nil {
				t.Fatalf("vipctl %s --%s: %v", path, name, err)
			}
			for other, oc := range cmds {
				if of := oc.Flags().Lookup(name); other != path && of != nil && of.Value.String() != of.DefValue {
					t.Errorf("vipctl %s --%s 7 set vipctl %s's --%s to %q", path, name, other, name, of.Value)
				}
			}
			if err := cmd.Flags().Set(name, f.DefValue); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A run's session is the command's input and outputs, the root's output flags, and the
// state folder as an absolute path; building it changes neither the root's options nor
// another run's session.
func TestSessionOfARun(t *testing.T) {
	ro := &rootOptions{stateDir: "state", jsonOut: true}
	cmd := &cobra.Command{Use: "x"}
	var out, errOut strings.Builder
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetIn(strings.NewReader("y\n"))
	sess, err := ro.session(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(sess.stateDir) || filepath.Base(sess.stateDir) != "state" || ro.stateDir != "state" {
		t.Fatalf("state dir %q (root options %q)", sess.stateDir, ro.stateDir)
	}
	if err := sess.printResult(map[string]int{"n": 1}, "one"); err != nil || !strings.Contains(out.String(), `"n": 1`) {
		t.Fatalf("printed %q, %v", out.String(), err)
	}
	sess.logger.Warn("to the command's error output")
	if !strings.Contains(errOut.String(), "to the command's error output") {
		t.Fatalf("logged %q", errOut.String())
	}
	other, err := (&rootOptions{stateDir: "elsewhere"}).session(&cobra.Command{Use: "y"})
	if err != nil || other.jsonOut || filepath.Base(other.stateDir) != "elsewhere" || sess.jsonOut != true {
		t.Fatalf("another run: %+v, %v", other, err)
	}
}

// wantRefused runs vipctl with args (in a fresh state folder) and wants bad input: exit 2,
// with an error that says says.
func wantRefused(t *testing.T, args []string, says string) {
	t.Helper()
	root := newRoot()
	root.SetArgs(append([]string{"--state-dir", t.TempDir()}, args...))
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	err := execute(context.Background(), root)
	if err == nil || !strings.Contains(err.Error(), says) {
		t.Fatalf("got %v; want an error saying %q", err, says)
	}
	if code := exitCode(err); code != exitInvalid {
		t.Fatalf("exit %d for %v; want %d (bad input)", code, err, exitInvalid)
	}
}
