package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer/operation/guard"
)

func TestConfirm(t *testing.T) {
	tests := []struct {
		name     string
		yes      bool
		terminal bool
		answer   string
		ok       bool
		says     string // in the refusal, or in the prompt
	}{
		{name: "--yes needs no terminal", yes: true, ok: true},
		{name: "no terminal, no --yes", says: "pass --yes"},
		{name: "terminal, y", terminal: true, answer: "y\n", ok: true, says: "[y/N]"},
		{name: "terminal, yes", terminal: true, answer: "YES\n", ok: true},
		{name: "terminal, enter", terminal: true, answer: "\n", says: "not confirmed"},
		{name: "terminal, closed", terminal: true, says: "not confirmed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			was := stdinIsTerminal
			stdinIsTerminal = func(io.Reader) bool { return tc.terminal }
			defer func() { stdinIsTerminal = was }()
			var prompt bytes.Buffer
			sess := session{in: strings.NewReader(tc.answer), errOut: &prompt}
			err := sess.confirm(tc.yes, "finalize stage 5 although it is empty")
			if tc.ok != (err == nil) {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if err != nil {
				var ee *exitError
				if !errors.As(err, &ee) || ee.code != exitInvalid {
					t.Fatalf("a refusal must exit %d: %v", exitInvalid, err)
				}
			}
			if tc.says != "" && !strings.Contains(prompt.String()+errString(err), tc.says) {
				t.Fatalf("prompt %q / err %v do not say %q", prompt.String(), err, tc.says)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A guard's refusal reaches the operator with the flags that answer it, and exits 2.
func TestGuardedNamesTheFlags(t *testing.T) {
	tests := []struct {
		name string
		r    guard.RefusedError
		says []string
	}{
		{"forced without a stage", guard.RefusedError{Op: "finalize", Why: guard.ForceWithoutStage, Open: 5, L1Stage: 5},
			[]string{"--force needs --stage", "--stage 5 --force", "stage 6 too"}},
		{"finalize, no stage, no L1", guard.RefusedError{Op: "finalize", Why: guard.NoStage, Open: 5}, []string{"which stage", "--stage 5", "--l1-rest", "--network"}},
		{"update, no stage, no L1", guard.RefusedError{Op: "update scores", Why: guard.NoStage}, []string{"update scores: which stage", "--stage N", "--vip-address"}},
		{"open stage, L1 not past", guard.RefusedError{Op: "finalize", Why: guard.L1NotPast, Open: 5, L1Stage: 5}, []string{"open stage is 5", "L1 is at stage 5", "--stage 5 --force"}},
		{"named stage, L1 not past", guard.RefusedError{Op: "finalize", Why: guard.L1NotPast, Stage: 5, Open: 5, L1Stage: 5}, []string{"has not moved past stage 5", "pass --force"}},
		{"no L1 to tell", guard.RefusedError{Op: "finalize", Why: guard.NoL1, Stage: 5, Open: 5}, []string{"no L1", "--network", "pass --force"}},
		{"empty", guard.RefusedError{Op: "finalize", Why: guard.EmptyStage, Stage: 7, Open: 7, L1Stage: 8}, []string{"stage 7 is empty", "--allow-empty"}},
		{"not open", guard.RefusedError{Op: "finalize", Why: guard.NotOpen, Stage: 7, Open: 5}, []string{"stage 7 is not open", "open stage is 5"}},
		{"contract behind", guard.RefusedError{Op: "update scores", Why: guard.ContractBehind, Open: 6, L1Stage: 7}, []string{"L1 is at stage 7", "open stage is 6", "vipctl stage sync", "--stage 6"}},
		{"contract ahead", guard.RefusedError{Op: "update scores", Why: guard.ContractAhead, Open: 6, L1Stage: 5}, []string{"ahead of the L1 at stage 5", "cannot move a contract back", "--stage 6"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			err := guarded(fmt.Errorf("wrapped: %w", &r))
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != exitInvalid {
				t.Fatalf("a refusal must exit %d: %v", exitInvalid, err)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not say %q", err, s)
				}
			}
		})
	}
}

func TestIsTerminalRefusesPipesAndBuffers(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, f := range map[string]any{"pipe reader": r, "pipe writer": w, "buffer": &bytes.Buffer{}, "nil": nil} {
		if isTerminal(f) {
			t.Errorf("%s: a terminal", name)
		}
	}
}
