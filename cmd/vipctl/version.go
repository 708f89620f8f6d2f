package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set by the release build (.goreleaser.yaml) with -ldflags "-X main.version=... -X
// main.commit=... -X main.date=..."; a plain go build leaves them empty and buildInfo falls
// back to what the Go toolchain stamped (the module version, the VCS revision).
var (
	version string
	commit  string
	date    string
)

// versionInfo is what `vipctl version` prints.
type versionInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Date     string `json:"date,omitempty"`
	Modified bool   `json:"modified,omitempty"` // built from a work tree with uncommitted changes
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// buildInfo is this binary's version: the release stamps, else the toolchain's.
func buildInfo() versionInfo {
	v := versionInfo{Version: version, Commit: commit, Date: date,
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v.orUnknown()
	}
	if v.Version == "" && bi.Main.Version != "" {
		v.Version = bi.Main.Version // "(devel)" in a checkout
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if v.Commit == "" {
				v.Commit = s.Value
			}
		case "vcs.time":
			if v.Date == "" {
				v.Date = s.Value
			}
		case "vcs.modified":
			v.Modified = s.Value == "true" && commit == ""
		}
	}
	return v.orUnknown()
}

func (v versionInfo) orUnknown() versionInfo {
	if v.Version == "" {
		v.Version = "(devel)"
	}
	if v.Commit == "" {
		v.Commit = "unknown"
	}
	return v
}

// String is the human line: "vipctl v1.2.0 (commit 1a2b3c4, 2026-11-28T10:00:00Z, go1.26.8 linux/amd64)".
func (v versionInfo) String() string {
	c := v.Commit
	if v.Modified {
		c += "-dirty"
	}
	s := fmt.Sprintf("vipctl %s (commit %s", v.Version, c)
	if v.Date != "" {
		s += ", " + v.Date
	}
	return s + ", " + v.Go + " " + v.Platform + ")"
}

func newVersionCmd(ro *rootOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print vipctl's version, commit and build",
		Args:  cobra.NoArgs,
		RunE: ro.runs(func(_ context.Context, sess session) error {
			v := buildInfo()
			return sess.printResult(v, v.String())
		}),
	}
}
