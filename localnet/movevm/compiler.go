package movevm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"syscall"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// BuildOptions are the compiler settings of a build.
type BuildOptions struct {
	// NamedAddresses fills the package's named addresses (e.g. vip_score = the deployer).
	NamedAddresses map[string]movebcs.Address
	// BytecodeVersion defaults to 7, CompilerVersion to "2.0" and LanguageVersion to "2.1":
	// the latest stable versions, what `minitiad move build` uses. Compiler 2.1 marks its
	// bytecode unstable, and a real minimove refuses to publish it
	// (UNSTABLE_BYTECODE_REJECTED).
	BytecodeVersion uint32
	CompilerVersion string
	LanguageVersion string
	DevMode         bool
}

// Compiler is libcompiler.
type Compiler struct{ lib *library }

// OpenCompiler loads libcompiler from dir (see Dir), checking its pinned sha256.
func OpenCompiler(dir string) (*Compiler, error) {
	l, err := open(dir, CompilerLib)
	if err != nil {
		return nil, fmt.Errorf("open Move compiler: %w", err)
	}
	return &Compiler{lib: l}, nil
}

// Build compiles the Move package at pkgDir (holding Move.toml) offline with the named
// addresses filled in; the modules land in pkgDir/build/<package>/bytecode_modules/*.mv. The
// library writes there itself.
//
// The library changes the process's working directory and prints to fds 1 and 2 while it
// runs: Build restores the one and captures the others, but anything else the process does
// meanwhile sees both. A program that must not be disturbed runs it in a child process (see
// contracts/move.CommandCompiler). ctx is not consulted: the library cannot be interrupted.
func (c *Compiler) Build(_ context.Context, pkgDir string, named map[string]movebcs.Address) error {
	opts := BuildOptions{NamedAddresses: named}
	abs, err := filepath.Abs(pkgDir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(abs, "Move.toml")); err != nil {
		return fmt.Errorf("build Move package %s: no Move.toml: %w", pkgDir, err)
	}
	// The compiler changes the process's working directory to the package; calls are
	// serialized and the directory restored, so relative paths keep their meaning.
	buildMu.Lock()
	defer buildMu.Unlock()
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	var out []byte
	out, err = quietStdout(func() error {
		_, err := c.lib.callSlice("build_move_package", compilerArguments(abs, opts))
		return err
	})
	if err != nil && len(bytes.TrimSpace(out)) > 0 {
		err = fmt.Errorf("%w\n%s", err, ansi.ReplaceAll(bytes.TrimSpace(out), nil))
	}
	if cerr := os.Chdir(wd); cerr != nil && err == nil {
		err = fmt.Errorf("restore working directory %s: %w", wd, cerr)
	}
	if err != nil {
		return fmt.Errorf("build Move package %s: %w", pkgDir, err)
	}
	return nil
}

var buildMu sync.Mutex

// ansi matches terminal colour codes in the compiler's diagnostics.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// quietStdout runs f with the process's stdout and stderr (fds 1 and 2) sent to a temporary
// file and returns what was written there: the compiler prints progress and diagnostics
// itself, which must not end up in a CLI's output (or its --json). Anything else the
// process writes to them meanwhile is captured too; builds are short and serialized.
func quietStdout(f func() error) ([]byte, error) {
	tmp, err := os.CreateTemp("", "vipharness-movec-")
	if err != nil {
		return nil, f()
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	var saved [2]int
	for i, fd := range []int{1, 2} {
		if saved[i], err = syscall.Dup(fd); err != nil {
			return nil, f()
		}
		defer syscall.Close(saved[i])
	}
	for _, fd := range []int{1, 2} {
		_ = syscall.Dup3(int(tmp.Fd()), fd, 0)
	}
	ferr := f()
	for i, fd := range []int{1, 2} {
		_ = syscall.Dup3(saved[i], fd, 0)
	}
	out, _ := os.ReadFile(tmp.Name())
	return out, ferr
}

// compilerArguments is the BCS of libcompiler's CompilerArguments { package_path:
// Option<String>, verbose: bool, build_config: BuildConfig { dev_mode, test_mode,
// generate_docs, generate_abis: bool, install_dir: Option<String>, force_recompilation,
// fetch_deps_only, skip_fetch_latest_git_deps: bool, bytecode_version: u32,
// compiler_version, language_version: String, additional_named_addresses:
// Vec<(String, [u8; 32])> } }.
func compilerArguments(pkgDir string, o BuildOptions) []byte {
	if o.BytecodeVersion == 0 {
		o.BytecodeVersion = 7
	}
	if o.CompilerVersion == "" {
		o.CompilerVersion = "2.0"
	}
	if o.LanguageVersion == "" {
		o.LanguageVersion = "2.1"
	}
	var w movebcs.Writer
	w.OptionStr(&pkgDir)
	w.Bool(false) // verbose
	w.Bool(o.DevMode)
	w.Bool(false)    // test_mode
	w.Bool(false)    // generate_docs
	w.Bool(false)    // generate_abis
	w.OptionStr(nil) // install_dir: the package's own build/
	w.Bool(true)     // force_recompilation: a build always reflects the sources
	w.Bool(false)    // fetch_deps_only
	w.Bool(true)     // skip_fetch_latest_git_deps: offline
	w.U32(o.BytecodeVersion)
	w.Str(o.CompilerVersion)
	w.Str(o.LanguageVersion)
	names := make([]string, 0, len(o.NamedAddresses))
	for n := range o.NamedAddresses {
		names = append(names, n)
	}
	sort.Strings(names)
	w.ULEB128(uint64(len(names)))
	for _, n := range names {
		a := o.NamedAddresses[n]
		w.Str(n)
		w.Address(a)
	}
	return w.Out()
}

// LazyCompiler is a Compiler that opens the library in dir on its first Build, so a caller
// can hand it to every VM's Scorer and only a Move deploy loads the library.
func LazyCompiler(dir string) *Lazy { return &Lazy{dir: dir} }

// Lazy is LazyCompiler's Compiler.
type Lazy struct {
	dir  string
	once sync.Once
	c    *Compiler
	err  error
}

// Build opens the library once, then builds as Compiler.Build does.
func (l *Lazy) Build(ctx context.Context, pkgDir string, named map[string]movebcs.Address) error {
	l.once.Do(func() { l.c, l.err = OpenCompiler(l.dir) })
	if l.err != nil {
		return l.err
	}
	return l.c.Build(ctx, pkgDir, named)
}
