// Command buildmove compiles the Move VIP score contract and its framework with Initia's
// compiler (installed by `make setup`) and writes the committed artifacts in
// contracts/move/artifacts: `make contracts`. It is build tooling, so it may load the native
// compiler in its own process; the product (contracts/, deployer/) never does.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/localnet/movevm"
)

func main() {
	out := flag.String("out", filepath.Join("contracts", "move", "artifacts"), "artifact folder")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "buildmove:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	c, err := movevm.OpenCompiler(movevm.Dir())
	if err != nil {
		return err
	}
	vm, err := movevm.OpenVM(movevm.Dir())
	if err != nil {
		return err
	}
	ctx := context.Background()
	b, err := movecontract.Compile(ctx, c, movecontract.DevDeployer)
	if err != nil {
		return err
	}
	l1vip, err := movecontract.CompileL1VIP(ctx, c, movecontract.L1VIPAddress)
	if err != nil {
		return err
	}
	abi, err := movecontract.DescribeModule(vm, b.VipScore)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "framework"), 0o755); err != nil {
		return err
	}
	files := map[string][]byte{"vip_score.mv": b.VipScore, "vip_score.abi.json": abi, "l1_vip.mv": l1vip}
	for name, code := range b.Framework {
		files[filepath.Join("framework", name+".mv")] = code
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("wrote %d files to %s (vip_score.mv %d bytes, %d framework modules)\n", len(files), out, len(b.VipScore), len(b.Framework))
	return nil
}
