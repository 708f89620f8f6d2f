package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
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
			g := &globals{terminal: terminal{errOut: &prompt}}
			err := g.confirm(tc.yes, strings.NewReader(tc.answer), "finalize stage 5 although it is empty")
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
