package move

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

func TestBuildArgsRoundTrip(t *testing.T) {
	named := map[string]movebcs.Address{"vip_score": movebcs.MustAddress("0xf39f"), "a": movebcs.MustAddress("0x1")}
	args := BuildArgs("/pkg", named)
	if args[0] != "/pkg" || !strings.HasPrefix(args[1], "a=0x") || !strings.HasPrefix(args[2], "vip_score=0x") {
		t.Fatalf("args %q", args)
	}
	dir, got, err := ParseBuildArgs(args)
	if err != nil || dir != "/pkg" || !reflect.DeepEqual(got, named) {
		t.Fatalf("%s %v %v", dir, got, err)
	}
	for name, bad := range map[string][]string{
		"no directory":  {},
		"no equals":     {"/p", "vip_score"},
		"bad address":   {"/p", "vip_score=0xzz"},
		"twice":         {"/p", "a=0x1", "a=0x2"},
		"empty name":    {"/p", "=0x1"},
		"empty package": {""},
	} {
		if _, _, err := ParseBuildArgs(bad); err == nil {
			t.Errorf("%s: accepted %q", name, bad)
		}
	}
}

// The child runs with its own working directory and output: the caller's stay as they were,
// the child's output only reaches the caller's error when the build fails.
func TestCommandCompilerRunsOutOfProcess(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	wd, _ := os.Getwd()
	pkg := t.TempDir()
	// The stand-in compiler checks its arguments, moves to the package like the real one and
	// writes a module there.
	script := `cd "$1" || exit 3; [ "$2" = "vip_score=0x000000000000000000000000000000000000000000000000000000000000f39f" ] || { echo "bad named address $2"; exit 4; }; mkdir -p build/P/bytecode_modules && printf mv > build/P/bytecode_modules/m.mv; echo compiled`
	c := CommandCompiler{Path: sh, Args: []string{"-c", script, "compiler"}}
	if err := c.Build(context.Background(), pkg, map[string]movebcs.Address{"vip_score": movebcs.MustAddress("0xf39f")}); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.Getwd(); now != wd {
		t.Fatalf("working directory moved to %s", now)
	}
	if b, err := os.ReadFile(filepath.Join(pkg, "build", "P", "bytecode_modules", "m.mv")); err != nil || string(b) != "mv" {
		t.Fatalf("module %q %v", b, err)
	}
	err = c.Build(context.Background(), pkg, map[string]movebcs.Address{"vip_score": movebcs.MustAddress("0x1")})
	if err == nil || !strings.Contains(err.Error(), "bad named address vip_score=0x") {
		t.Fatalf("failed build: %v", err)
	}
	if err := (CommandCompiler{}).Build(context.Background(), pkg, nil); err == nil {
		t.Fatal("a compiler without a command builds")
	}
}
