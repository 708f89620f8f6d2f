package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd is `vipctl man --dir DIR`: a man page (section 1) for every command, from the
// same definitions as --help. Hidden: `make man` and the release build run it.
func newManCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:    "man --dir DIR",
		Short:  "Write a man page for every vipctl command into a folder",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return invalid(fmt.Errorf("--dir is required"))
			}
			n, err := writeManPages(cmd.Root(), dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d man pages to %s\n", n, dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "folder for the pages (made if missing)")
	return cmd
}

// writeManPages writes root's man pages into dir, one per available command (the default
// completion and help commands included), and returns how many. The pages carry no date
// stamp of their own: SOURCE_DATE_EPOCH, else today, dates them.
func writeManPages(root *cobra.Command, dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("man pages: %w", err)
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	noGenTag(root)
	header := &doc.GenManHeader{Title: "VIPCTL", Section: "1", Source: "vipctl " + buildInfo().Version, Manual: "vipctl manual"}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return 0, fmt.Errorf("man pages into %s: %w", dir, err)
	}
	return countCommands(root), nil
}

// noGenTag leaves out cobra's "Auto generated" history line, on c and every subcommand.
func noGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		noGenTag(sub)
	}
}

// countCommands is the number of commands GenManTree writes a page for: c and its available
// subcommands, recursively.
func countCommands(c *cobra.Command) int {
	n := 1
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			n += countCommands(sub)
		}
	}
	return n
}
