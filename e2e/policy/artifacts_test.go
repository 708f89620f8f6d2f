package policy_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The demo app's committed build (DemoToken.abi.json, DemoToken.bin) is what the pinned
// solc makes of DemoToken.sol. It runs under VIPHARNESS_CHECK_REBUILD=1 (make test, CI); a
// missing toolchain skips it, or fails it under REQUIRE_TOOLCHAIN=1 or CI=true.
func TestDemoAppRebuildReproducesArtifacts(t *testing.T) {
	if os.Getenv("VIPHARNESS_CHECK_REBUILD") != "1" {
		t.Skip("set VIPHARNESS_CHECK_REBUILD=1 to rebuild with solc and compare")
	}
	missing := t.Skipf
	if os.Getenv("REQUIRE_TOOLCHAIN") == "1" || os.Getenv("CI") == "true" {
		missing = t.Fatalf
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("the rebuild needs node: %v", err)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "contracts", "node_modules", "solc")); err != nil {
		missing("the rebuild needs the pinned solc (make setup installs it from npm): %v", err)
	}
	out, err := exec.Command(node, filepath.Join(fixtures, "evm", "build.js"), "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("rebuild differs from the committed artifacts: %v\n%s", err, out)
	}
}

// The Wasm demo game's committed build (fixtures/policies/wasm/arena.wasm) is what Debian's
// rustc 1.63 and wasm-opt make of its sources (build.sh --check), under the same switches.
// The Move demo game has no committed build: the spec compiles it for its publisher.
func TestWasmDemoRebuildReproducesArtifact(t *testing.T) {
	if os.Getenv("VIPHARNESS_CHECK_REBUILD") != "1" {
		t.Skip("set VIPHARNESS_CHECK_REBUILD=1 to rebuild with rustc and compare")
	}
	missing := t.Skipf
	if os.Getenv("REQUIRE_TOOLCHAIN") == "1" || os.Getenv("CI") == "true" {
		missing = t.Fatalf
	}
	out, err := exec.Command("bash", filepath.Join(fixtures, "wasm", "build.sh"), "--test", "--check").CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		missing("the rebuild needs Debian's Rust toolchain: %s", out)
	}
	if err != nil {
		t.Fatalf("rebuild differs from the committed artifact: %v\n%s", err, out)
	}
}
