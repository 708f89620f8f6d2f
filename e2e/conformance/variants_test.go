package conformance_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A variant is our contract's source with named edits: the known-bad contracts (the faults
// of the official ones) that `vipctl check` must catch, and harmless differences it must
// pass. Each edit must find its text, so a change to the source breaks the build of the
// variant loudly instead of testing the wrong contract.
type edit struct{ old, new string }

type variant struct {
	name  string
	file  string // the source file the edits apply to, relative to the contract's folder
	edits []edit
}

var repoRoot = func() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..")
}()

// EVM: the refusal of a second finalize, in finalizeStage.
const evmRefinalizeGuard = `        // Finalizing twice is refused rather than re-announced: a stage closes once.
        if ((v >> 128) & 1 != 0) {
            revert StageFinalized(stage);
        }
`

var (
	// evmWipesNext re-finalizes and wipes the next stage's record on the way (a fault the
	// check must name).
	evmWipesNext = variant{name: "evm-refinalize-wipes-next", file: "VipScore.sol", edits: []edit{
		{evmRefinalizeGuard, ""},
		{"        emit FinalizeStage(stage);\n        createStage(stage + 1);", "        emit FinalizeStage(stage);\n        delete stages[stage + 1];\n        createStage(stage + 1);"},
	}}
	// evmAcceptsRefinalize accepts a second finalize and changes nothing, as the official
	// EVM contract does (a harmless difference the check must pass, with a note).
	evmAcceptsRefinalize = variant{name: "evm-refinalize-accepted", file: "VipScore.sol", edits: []edit{{evmRefinalizeGuard, ""}}}
	// evmStoresHalf confirms every update and stores half of each score: a contract whose
	// writes succeed and hold the wrong thing, which only a read-back sees.
	evmStoresHalf = variant{name: "evm-stores-half", file: "VipScore.sol", edits: []edit{
		{"                uint64 amount = amounts[i];\n", "                uint64 amount = amounts[i] / 2;\n"},
	}}
	// wasmOfficialFaults has the official Wasm contract's faults: a re-finalize that resets
	// the next stage, and a panic where a missing stage deserves an error.
	wasmOfficialFaults = variant{name: "wasm-official-faults", file: "src/contract.rs", edits: []edit{
		{`    if info.is_finalized {
        return Err(text(&["Stage already finalized: stage ", &u64_str(stage), " was finalized before"]));
    }
`, ""},
		{`    if abi::storage_get(&state::stage_key(next)).is_some() {
        return Err(text(&["Stage ", &u64_str(next), " already exists; refusing to overwrite it"]));
    }
`, ""},
		{`        None => Err(text(&["Stage not found: stage ", &u64_str(stage), " does not exist"])),`, `        None => panic!("stage not found"),`},
	}}
)

func (v variant) apply(src string) (string, error) {
	for i, e := range v.edits {
		if !strings.Contains(src, e.old) {
			return "", fmt.Errorf("variant %s: edit %d does not find its text in %s", v.name, i, v.file)
		}
		src = strings.Replace(src, e.old, e.new, 1)
	}
	return src, nil
}

// solcMissing says what is missing to compile an EVM variant (node, the pinned solc).
func solcMissing() error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("the EVM variants need node (apt-get install -y nodejs npm): %w", err)
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "contracts", "node_modules", "solc")); err != nil {
		return fmt.Errorf("the EVM variants need the pinned solc (make setup): %w", err)
	}
	return nil
}

// buildEVM compiles an EVM variant with the pinned solc and returns its creation code file.
func buildEVM(ctx context.Context, v variant, dir string) (string, error) {
	here := filepath.Join(repoRoot, "contracts", "evm")
	src, err := os.ReadFile(filepath.Join(here, v.file))
	if err != nil {
		return "", err
	}
	out, err := v.apply(string(src))
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, v.file)
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		return "", err
	}
	if err := run(ctx, "node", filepath.Join(here, "build.js"), "--variant", file, dir); err != nil {
		return "", err
	}
	return filepath.Join(dir, "VipScore.bin"), nil
}

// buildWasm builds a Wasm variant with the project's reproducible build (Debian's rustc) from
// a copy of the contract's folder, and returns the .wasm file.
func buildWasm(ctx context.Context, v variant, dir string) (string, error) {
	here := filepath.Join(repoRoot, "contracts", "wasm")
	work := filepath.Join(dir, "src-copy")
	if err := run(ctx, "cp", "-r", here, work); err != nil {
		return "", err
	}
	path := filepath.Join(work, v.file)
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	out, err := v.apply(string(src))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return "", err
	}
	outDir := filepath.Join(dir, "out")
	if err := run(ctx, "bash", filepath.Join(work, "build.sh"), outDir); err != nil {
		return "", err
	}
	return filepath.Join(outDir, "vip_score.wasm"), nil
}

func run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return nil
}
