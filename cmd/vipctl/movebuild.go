package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// moveBuildCmd is the child side of moveCompiler: Initia's Move compiler changes the working
// directory of the process it runs in and prints there, so vipctl runs it in a child
// process of its own (vipctl move-build PKGDIR NAME=0xADDRESS...), never in the process that
// journals and prints results.
func newMoveBuildCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "move-build PACKAGE_DIR [NAME=0xADDRESS...]",
		Short:  "Compile a Move package in place with Initia's compiler (used by vipctl itself)",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, named, err := movecontract.ParseBuildArgs(args)
			if err != nil {
				return invalid(err)
			}
			c, err := movevm.OpenCompiler(movevm.Dir())
			if err != nil {
				return err
			}
			return c.Build(cmd.Context(), dir, named)
		},
	}
}

// moveCompiler compiles Move packages in a child vipctl (move-build).
func moveCompiler() (movecontract.Compiler, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the vipctl binary to run the Move compiler: %w", err)
	}
	return movecontract.CommandCompiler{Path: self, Args: []string{"move-build"}}, nil
}
