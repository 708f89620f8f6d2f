package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer/keys"
)

func newKeysCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Create or inspect the deployer and operator accounts"}
	var out, prefix string
	create := &cobra.Command{
		Use:   "new --out FILE",
		Short: "Create an account from a new 24-word mnemonic, written to FILE (mode 0600), never printed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return invalid(errors.New("keys new: --out FILE is required: the mnemonic is written there, never printed"))
			}
			if prefix != "" && prefix != "OPERATOR_" {
				return invalid(fmt.Errorf("keys new: --prefix %q: want empty (deployer) or OPERATOR_", prefix))
			}
			acct, mnemonic, err := keys.New()
			if err != nil {
				return err
			}
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return invalid(fmt.Errorf("keys new: %w (refusing to overwrite a key file)", err))
			}
			_, werr := fmt.Fprintf(f, "export %sMNEMONIC=%q\nexport %sMNEMONIC_INDEX=0\n", prefix, mnemonic, prefix)
			if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
				return fmt.Errorf("keys new: write %s: %w", out, err)
			}
			return g.printResult(map[string]string{"address": acct.Address().Hex(), "file": out},
				fmt.Sprintf("new account %s; mnemonic written to %s (source it to use it; back it up)", acct.Address().Hex(), out))
		},
	}
	create.Flags().StringVar(&out, "out", "", "file to write the mnemonic to (created with mode 0600; must not exist)")
	create.Flags().StringVar(&prefix, "prefix", "", "variable prefix: empty for the deployer, OPERATOR_ for the operator")

	show := &cobra.Command{
		Use:   "show",
		Short: "Print the deployer and operator addresses the environment's keys give (never the keys)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res := map[string]string{}
			human := ""
			for _, role := range []keys.Role{keys.Deployer, keys.Operator} {
				a, err := keys.FromEnv(role)
				if err != nil {
					return invalid(err)
				}
				res[role.String()] = a.Address().Hex()
				human += fmt.Sprintf("%-9s %s\n", role, a)
			}
			return g.printResult(res, human[:len(human)-1])
		},
	}
	cmd.AddCommand(create, show)
	return cmd
}
