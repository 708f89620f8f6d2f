// Package minitiad runs Initia's own rollup node, `minitiad` of minievm, miniwasm or
// minimove, as a single-node rollup: the real binaries are the specification the project's
// own rollups answer to. A team brings its binary (a release archive, its own build), run as
// a child process, or its image (Initia's ghcr.io/initia-labs/mini*, its own), every
// minitiad command run in a container of it; either way the engine sets it up as a
// sequencer at genesis, as a rollup team's node is, with one sequence: a fresh home, funded
// accounts of both coin types, the opchild validator, a minimum gas price, and its served
// listeners reachable on 127.0.0.1 only. Nothing of the binaries is in this repository.
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

	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/container"
)

// Binary is the node's name in every release archive.
const Binary = "minitiad"

// Dist is vm's rollup distribution as Initia names it (minievm, miniwasm, minimove: the
// folder a binary is looked for under, node_info's application name), from the VM's
// descriptor; "" for a VM without one.
func Dist(vm vip.VM) string {
	spec, err := vip.Describe(vm)
	if err != nil {
		return ""
	}
	return spec.Minitia
}

// Engine starts Initia's real rollups from their minitiad binaries, as child processes,
// or from their images, in containers. Where a VM's minitiad comes from, first found:
// Images, Binaries, $VIPHARNESS_MINI<VM>_IMAGE (ImageEnvVar), then Find's binary; with
// Containers, a binary found is packaged into a local image (PackageImage) and run from it.
type Engine struct {
	// Binaries names the minitiad of a VM; a VM not named is looked up by Find.
	Binaries map[vip.VM]string
	// Images names the image of a VM (a VM both names is an error).
	Images map[vip.VM]Image
	// Containers runs every VM from an image (the engine is then "minitia-image"): its
	// image, else the VM's minitiad packaged into LocalImage(vm).
	Containers bool
	// Bridge is the OPinit bridge the rollup's opchild module knows from genesis, as a
	// rollup registered on its L1 does (the L1 stand-in's registration); zero: none.
	Bridge Bridge
	Logger *slog.Logger
}

var _ localnet.Engine = Engine{}

// Name is "minitia", or "minitia-image" with Containers.
func (e Engine) Name() string {
	if e.Containers {
		return "minitia-image"
	}
	return "minitia"
}

// source is where a VM's rollup comes from: an image, or a binary (packaged into an image
// first when pack).
type source struct {
	image Image
	bin   string
	pack  bool
}

func (s source) String() string {
	switch {
	case s.image.Ref != "":
		return "image " + s.image.Ref
	case s.pack:
		return s.bin + ", packaged into an image"
	}
	return s.bin
}

func (e Engine) source(vm vip.VM) (source, error) {
	img, bin := e.Images[vm], e.Binaries[vm]
	switch {
	case img.Ref != "" && bin != "":
		return source{}, fmt.Errorf("minitia engine: %s has both an image (%s) and a minitiad (%s): name one", vm, img.Ref, bin)
	case img.Ref != "":
		return source{image: img}, nil
	case bin != "":
		if err := executable(bin); err != nil {
			return source{}, fmt.Errorf("minitia engine: %s minitiad %s: %w", vm, bin, err)
		}
		return source{bin: bin, pack: e.Containers}, nil
	}
	ref, err := FindImage(vm)
	if err != nil || ref.Ref != "" {
		return source{image: ref}, err
	}
	if bin, err = Find(vm); err != nil {
		if e.Containers {
			return source{}, fmt.Errorf("%w for %s: set %s to a %s image (ghcr.io/initia-labs/%s:<version>, a team's own), or give a minitiad to package: %w",
				ErrNoImage, vm, ImageEnvVar(vm), Dist(vm), Dist(vm), err)
		}
		return source{}, err
	}
	return source{bin: bin, pack: e.Containers}, nil
}

// Available reports whether vm's minitiad is here (a binary, or an image and a Docker
// engine that answers), and where it was looked for if not.
func (e Engine) Available(ctx context.Context, vm vip.VM) error {
	src, err := e.source(vm)
	if err != nil {
		return err
	}
	if src.image.Ref != "" || src.pack {
		if err := container.DockerAvailable(ctx); err != nil {
			return fmt.Errorf("minitia engine: %s from %s: %w", vm, src, err)
		}
	}
	return nil
}

// StartRollup starts vm's minitiad as a single-node rollup.
func (e Engine) StartRollup(ctx context.Context, vm vip.VM) (localnet.Rollup, error) {
	src, err := e.source(vm)
	if err != nil {
		return nil, err
	}
	logger := e.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if src.pack {
		if src.image, err = PackageImage(ctx, src.bin, vm); err != nil {
			return nil, err
		}
	}
	if src.image.Ref != "" {
		return StartImage(ctx, src.image, vm, e.Bridge, logger)
	}
	return Start(ctx, src.bin, vm, e.Bridge, logger)
}

// ImageEnvVar is the environment variable that names vm's image
// (VIPHARNESS_MINIEVM_IMAGE, VIPHARNESS_MINIWASM_IMAGE, VIPHARNESS_MINIMOVE_IMAGE).
func ImageEnvVar(vm vip.VM) string { return EnvVar(vm) + "_IMAGE" }

// EntrypointEnvVar names the words that run minitiad in the images the environment names
// (space-separated; default DefaultEntrypoint).
const EntrypointEnvVar = "VIPHARNESS_MINITIA_ENTRYPOINT"

// ErrNoImage is a VM whose image is nowhere the engine looks.
var ErrNoImage = errors.New("no minitia image")

// FindImage is the image ImageEnvVar(vm) names (with EntrypointEnvVar's words), or a zero
// Image when it is unset. Naming a binary too (EnvVar(vm)) is an error: the engine would
// not know which to run.
func FindImage(vm vip.VM) (Image, error) {
	ref := os.Getenv(ImageEnvVar(vm))
	if ref == "" {
		return Image{}, nil
	}
	if bin := os.Getenv(EnvVar(vm)); bin != "" {
		return Image{}, fmt.Errorf("minitia engine: both %s=%s and %s=%s are set: unset one", ImageEnvVar(vm), ref, EnvVar(vm), bin)
	}
	return Image{Ref: ref, Entrypoint: strings.Fields(os.Getenv(EntrypointEnvVar))}, nil
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
