package move

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strings"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// CommandCompiler runs a Move compiler in a child process, so that the compiler's change of
// working directory and its printing stay out of the calling process. The child is Path with
// Args, then the package directory, then one name=0x<address> argument per named address
// (BuildArgs); ParseBuildArgs reads them back on the child's side. A failed build's error
// carries what the child printed.
type CommandCompiler struct {
	Path string
	Args []string
}

// Build runs the child for pkgDir and waits for it; ctx ends it.
func (c CommandCompiler) Build(ctx context.Context, pkgDir string, named map[string]movebcs.Address) error {
	if c.Path == "" {
		return fmt.Errorf("build Move package %s: no compiler command", pkgDir)
	}
	cmd := exec.CommandContext(ctx, c.Path, append(append([]string{}, c.Args...), BuildArgs(pkgDir, named)...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return fmt.Errorf("build Move package %s: %s: %w\n%s", pkgDir, c.Path, err, msg)
		}
		return fmt.Errorf("build Move package %s: %s: %w", pkgDir, c.Path, err)
	}
	return nil
}

// BuildArgs is the child's argument list for pkgDir: the directory, then name=0x<address>
// for each named address in name order.
func BuildArgs(pkgDir string, named map[string]movebcs.Address) []string {
	names := make([]string, 0, len(named))
	for n := range named {
		names = append(names, n)
	}
	sort.Strings(names)
	args := []string{pkgDir}
	for _, n := range names {
		args = append(args, n+"="+named[n].String())
	}
	return args
}

// ParseBuildArgs reads BuildArgs back.
func ParseBuildArgs(args []string) (pkgDir string, named map[string]movebcs.Address, err error) {
	if len(args) == 0 || args[0] == "" {
		return "", nil, fmt.Errorf("want a Move package directory, then name=0x<address> pairs")
	}
	named = map[string]movebcs.Address{}
	for _, a := range args[1:] {
		name, addr, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return "", nil, fmt.Errorf("named address %q: want name=0x<address>", a)
		}
		if _, dup := named[name]; dup {
			return "", nil, fmt.Errorf("named address %q given twice", name)
		}
		if named[name], err = movebcs.ParseAddress(addr); err != nil {
			return "", nil, fmt.Errorf("named address %s: %w", name, err)
		}
	}
	return args[0], named, nil
}
