package registry

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer/registration/probe"
)

// Write refuses inputs before it reads the rollup (the unreachable REST URL below is never
// dialled) and writes nothing when it refuses.
func TestWriteRefusesBeforeReading(t *testing.T) {
	unreachable := &probe.Client{REST: "http://127.0.0.1:1"}
	png := []byte("\x89PNG\r\n\x1a\n")
	for _, tc := range []struct {
		name  string
		req   func(out string) Request
		input string
	}{
		{"a logo file with no checkout", func(out string) Request {
			return Request{Inputs: sampleInputs(), Rollup: unreachable, Out: out, Logo: png}
		}, "logo-file"},
		{"a logo file beside a logo URL", func(out string) Request {
			in := sampleInputs()
			in.Logo = "https://example.com/logo.png"
			return Request{Inputs: in, Rollup: unreachable, RegistryDir: out, Logo: png}
		}, "logo-file"},
		{"no REST endpoint", func(out string) Request {
			return Request{Inputs: sampleInputs(), Out: out}
		}, "rest"},
		{"a bad name", func(out string) Request {
			in := sampleInputs()
			in.Name = "Not A Name"
			return Request{Inputs: in, Rollup: unreachable, Out: out}
		}, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			_, err := Write(context.Background(), tc.req(out))
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.input) {
				t.Fatalf("got %v; want an input error about %s", err, tc.input)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("something was written: %v", err)
			}
		})
	}
}
