package movevm

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// requireLibs skips without the libraries, or fails when REQUIRE_NODES=1 (CI), which
// installs them in `make setup`.
func requireLibs(t testing.TB) string {
	t.Helper()
	dir := Dir()
	for _, name := range []string{CompilerLib, VMLib} {
		if err := verify(filepath.Join(dir, name), name); err != nil {
			if os.Getenv("REQUIRE_NODES") == "1" || os.Getenv("CI") == "true" {
				t.Fatalf("REQUIRE_NODES=1: %v", err)
			}
			t.Skipf("%v (set REQUIRE_NODES=1 to fail instead)", err)
		}
	}
	return dir
}

// A package without dependencies compiles to Move bytecode, with a named address filled in.
func TestCompilerBuildsAPackage(t *testing.T) {
	dir := requireLibs(t)
	c, err := OpenCompiler(dir)
	if err != nil {
		t.Fatal(err)
	}
	pkg := t.TempDir()
	wd, _ := os.Getwd()
	write(t, filepath.Join(pkg, "Move.toml"), "[package]\nname = \"probe\"\nversion = \"0.0.1\"\n\n[addresses]\nprobe = \"_\"\n")
	write(t, filepath.Join(pkg, "sources", "answer.move"), "module probe::answer {\n    public fun get(): u64 { 42 }\n}\n")
	var addr movebcs.Address
	addr[31] = 0x42
	if err := c.Build(context.Background(), pkg, map[string]movebcs.Address{"probe": addr}); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.Getwd(); now != wd {
		t.Fatalf("working directory moved to %s", now)
	}
	mv, err := os.ReadFile(filepath.Join(pkg, "build", "probe", "bytecode_modules", "answer.mv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(mv, []byte{0xa1, 0x1c, 0xeb, 0x0b}) {
		t.Fatalf("answer.mv does not start with the Move magic: % x", mv[:min(8, len(mv))])
	}
	if !bytes.Contains(mv, addr[:]) {
		t.Fatal("the module's address is not the named address given")
	}

	// A type error comes back as the compiler's message.
	write(t, filepath.Join(pkg, "sources", "answer.move"), "module probe::answer {\n    public fun get(): u64 { true }\n}\n")
	err = c.Build(context.Background(), pkg, map[string]movebcs.Address{"probe": addr})
	if err == nil || !strings.Contains(err.Error(), "build_move_package") {
		t.Fatalf("type error: %v", err)
	}
	t.Logf("compiler error: %.300s", err)
}

func TestMissingOrAlteredLibraryIsAClearError(t *testing.T) {
	dir := t.TempDir()
	_, err := OpenCompiler(dir)
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "make setup") {
		t.Fatalf("missing library: %v", err)
	}
	write(t, filepath.Join(dir, CompilerLib), "not the library")
	_, err = OpenCompiler(dir)
	if err == nil || !strings.Contains(err.Error(), "sha256") || !strings.Contains(err.Error(), "make setup") {
		t.Fatalf("altered library: %v", err)
	}
}

func TestCompilerArgumentsBCS(t *testing.T) {
	var a movebcs.Address
	a[31] = 1
	got := compilerArguments("/p", BuildOptions{NamedAddresses: map[string]movebcs.Address{"b": a, "a": a}})
	var want []byte
	want = append(want, 1, 2, '/', 'p')                     // Some("/p")
	want = append(want, 0)                                  // verbose
	want = append(want, 0, 0, 0, 0)                         // dev, test, docs, abis
	want = append(want, 0)                                  // install_dir None
	want = append(want, 1, 0, 1)                            // force, fetch_deps_only, skip git
	want = append(want, 7, 0, 0, 0)                         // bytecode version u32 LE
	want = append(want, 3, '2', '.', '0', 3, '2', '.', '1') // the latest stable compiler and language
	want = append(want, 2)                                  // two named addresses, sorted
	want = append(want, 1, 'a')
	want = append(want, a[:]...)
	want = append(want, 1, 'b')
	want = append(want, a[:]...)
	if !bytes.Equal(got, want) {
		t.Fatalf("got  % x\nwant % x", got, want)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
