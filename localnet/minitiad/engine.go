// Package minitiad runs Initia's own rollup node, `minitiad` of minievm, miniwasm or
// minimove, as a single-node rollup: the real binaries are the specification the project's
// own rollups answer to. A team brings its binary (a release archive, its own build); the
// engine sets it up as a sequencer at genesis, as a rollup team's node is: a fresh home,
// funded accounts of both coin types, the opchild validator, a minimum gas price and every
// listener on 127.0.0.1. Nothing of the binaries is in this repository.
package minitiad

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vipharness/vipharness/deployer/scorers"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
)

// Binary is the node's name in every release archive.
const Binary = "minitiad"

// Dist is vm's rollup distribution as Initia names it (minievm, miniwasm, minimove: the
// folder a binary is looked for under, node_info's application name), from the VM's
// descriptor; "" for a VM without one.
func Dist(vm vip.VM) string {
	spec, err := scorers.Describe(vm)
	if err != nil {
		return ""
	}
	return spec.Minitia
}

// Engine starts Initia's real rollups from their minitiad binaries.
type Engine struct {
	// Binaries names the minitiad of a VM; a VM not named is looked up by Find.
	Binaries map[vip.VM]string
	Logger   *slog.Logger
}

var _ localnet.Engine = Engine{}

// Name is "minitia".
func (Engine) Name() string { return "minitia" }

// Available reports whether a minitiad for vm is here, and where it was looked for if not.
func (e Engine) Available(_ context.Context, vm vip.VM) error {
	_, err := e.binary(vm)
	return err
}

// StartRollup starts vm's minitiad as a single-node rollup.
func (e Engine) StartRollup(ctx context.Context, vm vip.VM) (localnet.Rollup, error) {
	bin, err := e.binary(vm)
	if err != nil {
		return nil, err
	}
	logger := e.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return Start(ctx, bin, vm, logger)
}

func (e Engine) binary(vm vip.VM) (string, error) {
	if p := e.Binaries[vm]; p != "" {
		if err := executable(p); err != nil {
			return "", fmt.Errorf("minitia engine: %s minitiad %s: %w", vm, p, err)
		}
		return p, nil
	}
	return Find(vm)
}

// EnvVar is the environment variable that names vm's minitiad
// (VIPHARNESS_MINIEVM, VIPHARNESS_MINIWASM, VIPHARNESS_MINIMOVE).
func EnvVar(vm vip.VM) string { return "VIPHARNESS_" + strings.ToUpper(Dist(vm)) }

// ErrNoBinary is a VM whose minitiad is nowhere the engine looks.
var ErrNoBinary = errors.New("no minitiad")

// Dirs are the folders a VM's minitiad is looked for in, each holding <dist>/minitiad (with
// the shared libraries the release archive carries beside it): $VIPHARNESS_MINITIA when set,
// else the cache folders (.cache/minitia in a checkout, <user cache dir>/vipharness/minitia).
func Dirs() []string {
	if d := os.Getenv("VIPHARNESS_MINITIA"); d != "" {
		return []string{d}
	}
	return localnet.CacheDirs("minitia")
}

// Find locates vm's minitiad: the path in EnvVar(vm), else <dir>/<dist>/minitiad in Dirs.
// The error names every place it looked.
func Find(vm vip.VM) (string, error) {
	name := Dist(vm)
	if name == "" {
		return "", fmt.Errorf("minitia engine: no rollup distribution for VM %q", vm)
	}
	if p := os.Getenv(EnvVar(vm)); p != "" {
		if err := executable(p); err != nil {
			return "", fmt.Errorf("minitia engine: %s=%s: %w", EnvVar(vm), p, err)
		}
		return p, nil
	}
	var looked []string
	for _, d := range Dirs() {
		p := filepath.Join(d, name, Binary)
		if executable(p) == nil {
			return p, nil
		}
		looked = append(looked, p)
	}
	return "", fmt.Errorf("%w for %s: set %s to a %s minitiad (a release archive's, or a team's own build), or put it at %s",
		ErrNoBinary, vm, EnvVar(vm), name, strings.Join(looked, " or "))
}

func executable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return errors.New("is a directory")
	}
	if st.Mode()&0o111 == 0 {
		return errors.New("is not executable")
	}
	if _, err := exec.LookPath(p); err != nil {
		return err
	}
	return nil
}
