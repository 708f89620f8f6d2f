package deployer_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/vipharness/vipharness/"

// goList is `go list -deps` of pkgs, run from this package's folder: import path, then
// "cgo" for a package with cgo files.
func goList(t *testing.T, pkgs ...string) map[string]bool {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to check the import direction: %v", err)
	}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}{{if .CgoFiles}} cgo{{end}}"}, pkgs...)
	out, err := exec.Command(goBin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, cgo := strings.CutSuffix(line, " cgo")
		deps[path] = cgo
	}
	if len(deps) < 10 {
		t.Fatalf("go list found only %d packages:\n%s", len(deps), out)
	}
	return deps
}

// The product (deployer, bindings, contracts) runs against a user's real rollup: it never
// links the test world (localnet's dev nodes and native loaders, the e2e suites), and its own
// packages are pure Go.
func TestProductImportsNoTestInfrastructure(t *testing.T) {
	deps := goList(t, "../deployer/...", "../bindings/...", "../contracts/...")
	seen := 0
	for path, cgo := range deps {
		if !strings.HasPrefix(path, module) {
			continue
		}
		seen++
		rel := strings.TrimPrefix(path, module)
		if strings.HasPrefix(rel, "localnet") || strings.HasPrefix(rel, "e2e") || strings.HasPrefix(rel, "cmd") {
			t.Errorf("the product depends on %s", rel)
		}
		if cgo {
			t.Errorf("product package %s uses cgo", rel)
		}
	}
	if seen < 10 {
		t.Fatalf("only %d of the module's packages listed", seen)
	}
}

// The EVM and Wasm deployers need nothing of Move: no Move values, contract or messages, and
// so never the MoveVM's native library.
func TestEVMAndWasmDeployersNeedNoMove(t *testing.T) {
	for _, pkg := range []string{"../deployer/vm/evm", "../deployer/vm/wasm"} {
		for path := range goList(t, pkg) {
			rel, ours := strings.CutPrefix(path, module)
			if ours && strings.Contains(rel, "move") {
				t.Errorf("%s depends on %s", strings.TrimPrefix(pkg, "../"), rel)
			}
		}
	}
}

// The shared test suites (deployertest, cosmostest, nodetest: packages named *test) link
// "testing" and drive live chains: only tests link them (test files, and e2e, which is all
// tests), never a command or a library, vipctl's localnet included.
func TestOnlyTestsLinkTheSharedSuites(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to check the imports: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	suite := func(path string) bool { return strings.HasPrefix(path, module) && strings.HasSuffix(path, "test") }
	suites := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		if suite(pkg) {
			suites++
			continue
		}
		if strings.HasPrefix(pkg, module+"e2e/") {
			continue
		}
		for _, dep := range strings.Fields(deps) {
			if suite(dep) {
				t.Errorf("%s links the test suite %s", strings.TrimPrefix(pkg, module), strings.TrimPrefix(dep, module))
			}
		}
	}
	if suites < 3 {
		t.Fatalf("found %d test suite packages, want deployertest, cosmostest and nodetest at least:\n%s", suites, out)
	}
}

// The vocabulary (deployer/vip) and the VIP snapshot's tree (deployer/snapshot) are the
// standard library only, and the packages that need only their words do not pull in more:
// localnet's Engine interface no engine, the policy no audit.
func TestVocabularyIsALeaf(t *testing.T) {
	for _, pkg := range []string{"deployer/vip", "deployer/snapshot"} {
		for path := range goList(t, "../"+pkg) {
			if strings.Contains(path, ".") && path != module+pkg {
				t.Errorf("%s depends on %s", pkg, path)
			}
		}
	}
	for path := range goList(t, "../deployer/policy") {
		if path == module+"deployer/operation/audit" || path == module+"deployer" {
			t.Errorf("deployer/policy depends on %s", path)
		}
	}
	for _, pkg := range []string{"../localnet"} {
		for path := range goList(t, pkg) {
			if path == module+"deployer" || strings.HasPrefix(path, "github.com/cosmos/") {
				t.Errorf("%s depends on %s", strings.TrimPrefix(pkg, "../"), path)
			}
		}
	}
}
