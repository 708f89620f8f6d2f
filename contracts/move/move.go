// Package move builds the Move VIP score contract (vip_score/) and the minimal 0x1
// framework it links against (framework/) with a Move compiler it is given, and serves the
// committed artifacts. The sources are embedded, so the deployer can rebuild the module
// with its own address as `vip_score` wherever it runs. The compiler is a dependency
// (Compiler): Initia's native one is reached only by build tooling and localnet/movevm, and a
// program that must not be disturbed by it runs it in a child process (CommandCompiler).
package move

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// Compiler builds the Move package at pkgDir (holding Move.toml) with its named addresses
// filled in; the modules land in pkgDir/build/<package>/bytecode_modules/*.mv.
type Compiler interface {
	Build(ctx context.Context, pkgDir string, named map[string]movebcs.Address) error
}

// ModuleDecoder describes compiled module bytes as JSON (libmovevm's decode_module_bytes).
type ModuleDecoder interface {
	DecodeModule(code []byte) (json.RawMessage, error)
}

//go:embed framework/Move.toml framework/sources/*.move vip_score/Move.toml vip_score/sources/*.move l1vip/Move.toml l1vip/sources/*.move
var sources embed.FS

//go:embed artifacts
var artifacts embed.FS

// DevDeployer is the address the committed artifact is built for: the first account of the
// well-known development mnemonic on Initia's coin type 60 path.
var DevDeployer = movebcs.MustAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")

// Build is a compiled package: the vip_score module and the framework modules, by name.
type Build struct {
	VipScore  []byte
	Framework map[string][]byte
}

// L1VIPAddress is the address the committed L1 stand-in module is built for (the stand-in's
// default vip module address).
var L1VIPAddress = movebcs.MustAddress("0xf1")

// copySources writes the embedded Move packages into dir.
func copySources(dir string) error {
	return fs.WalkDir(sources, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := sources.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// CompileL1VIP builds the L1 stand-in's vip module (l1vip/) with addr as its address.
func CompileL1VIP(ctx context.Context, c Compiler, addr movebcs.Address) ([]byte, error) {
	dir, err := os.MkdirTemp("", "vipharness-move-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := copySources(dir); err != nil {
		return nil, fmt.Errorf("copy Move sources: %w", err)
	}
	pkg := filepath.Join(dir, "l1vip")
	if err := c.Build(ctx, pkg, map[string]movebcs.Address{"vip": addr}); err != nil {
		return nil, err
	}
	code, err := os.ReadFile(filepath.Join(pkg, "build", "L1Vip", "bytecode_modules", "vip.mv"))
	if err != nil {
		return nil, fmt.Errorf("read compiled vip: %w", err)
	}
	return code, nil
}

// Compile builds vip_score with vipScore as its address, in a temporary copy of the sources.
func Compile(ctx context.Context, c Compiler, vipScore movebcs.Address) (Build, error) {
	dir, err := os.MkdirTemp("", "vipharness-move-")
	if err != nil {
		return Build{}, err
	}
	defer os.RemoveAll(dir)
	if err := copySources(dir); err != nil {
		return Build{}, fmt.Errorf("copy Move sources: %w", err)
	}
	pkg := filepath.Join(dir, "vip_score")
	if err := c.Build(ctx, pkg, map[string]movebcs.Address{"vip_score": vipScore}); err != nil {
		return Build{}, err
	}
	out := filepath.Join(pkg, "build", "VipScore", "bytecode_modules")
	b := Build{Framework: map[string][]byte{}}
	if b.VipScore, err = os.ReadFile(filepath.Join(out, "vip_score.mv")); err != nil {
		return Build{}, fmt.Errorf("read compiled vip_score: %w", err)
	}
	// The framework is built as a package of its own: the compiler writes attribute metadata
	// (#[view], #[event]) only for the root package's modules.
	fw := filepath.Join(dir, "framework")
	if err := c.Build(ctx, fw, nil); err != nil {
		return Build{}, fmt.Errorf("build framework: %w", err)
	}
	fwOut := filepath.Join(fw, "build", "VipFramework", "bytecode_modules")
	deps, err := filepath.Glob(filepath.Join(fwOut, "*.mv"))
	if err != nil || len(deps) == 0 {
		return Build{}, fmt.Errorf("no compiled framework modules in %s", fwOut)
	}
	for _, p := range deps {
		code, err := os.ReadFile(p)
		if err != nil {
			return Build{}, err
		}
		b.Framework[strings.TrimSuffix(filepath.Base(p), ".mv")] = code
	}
	return b, nil
}

// Module is the committed vip_score module, built for DevDeployer.
func Module() []byte { return mustRead("artifacts/vip_score.mv") }

// L1VIP is the committed L1 stand-in vip module, built for L1VIPAddress.
func L1VIP() []byte { return mustRead("artifacts/l1_vip.mv") }

// ABI is the committed JSON description of the vip_score module, as libmovevm decodes it.
func ABI() []byte { return mustRead("artifacts/vip_score.abi.json") }

// Framework is the committed framework modules (the 0x1 bundle for genesis), by name.
func Framework() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := artifacts.ReadDir("artifacts/framework")
	for _, e := range entries {
		out[strings.TrimSuffix(e.Name(), ".mv")] = mustRead("artifacts/framework/" + e.Name())
	}
	return out
}

// FrameworkBundle is the committed framework modules in name order, as genesis takes them.
func FrameworkBundle() [][]byte {
	fw := Framework()
	out := make([][]byte, 0, len(fw))
	for _, n := range FrameworkNames(fw) {
		out = append(out, fw[n])
	}
	return out
}

// FrameworkNames lists the framework modules in name order.
func FrameworkNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DescribeModule is the module's description as libmovevm decodes it, indented, for review
// in diffs.
func DescribeModule(d ModuleDecoder, code []byte) ([]byte, error) {
	raw, err := d.DecodeModule(code)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func mustRead(path string) []byte {
	b, err := artifacts.ReadFile(path)
	if err != nil {
		panic(fmt.Sprintf("movecontract: committed artifact %s: %v", path, err))
	}
	return b
}
