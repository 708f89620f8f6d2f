package evm

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/crypto"
)

type officialInterface struct {
	Functions   []string `json:"functions"`
	Constructor string   `json:"constructor"`
	Events      []string `json:"events"`
	Errors      []string `json:"errors"`
	Unused      []string `json:"errors_declared_but_never_used"`
}

func loadOfficial(t *testing.T) officialInterface {
	t.Helper()
	b, err := os.ReadFile("../../fixtures/evm/official_signatures.json")
	if err != nil {
		t.Fatal(err)
	}
	var o officialInterface
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

func typeList(args abi.Arguments, indexed bool) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.Type.String()
		if indexed && a.Indexed {
			parts[i] += " indexed"
		}
	}
	return strings.Join(parts, ",")
}

// TestInterfaceMatchesOfficial compares every function (with its outputs, so callers decode
// the same), event and error of the artifact with the official contract's, and so every
// selector and topic.
func TestInterfaceMatchesOfficial(t *testing.T) {
	o := loadOfficial(t)
	a := ABI()
	var fns []string
	for _, m := range a.Methods {
		s := m.Sig
		if len(m.Outputs) > 0 {
			s += " returns (" + typeList(m.Outputs, false) + ")"
		}
		fns = append(fns, s)
	}
	var events []string
	for _, e := range a.Events {
		events = append(events, e.Name+"("+typeList(e.Inputs, true)+")")
	}
	var errs []string
	for _, e := range a.Errors {
		errs = append(errs, e.Sig)
	}
	ctor := "constructor(" + typeList(a.Constructor.Inputs, false) + ")"
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"functions", fns, o.Functions},
		{"events", events, o.Events},
		{"errors", errs, o.Errors},
		{"constructor", []string{ctor}, []string{o.Constructor}},
	} {
		slices.Sort(c.got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(c.got, want) {
			t.Errorf("%s differ from the official contract:\n got  %q\n want %q", c.what, c.got, want)
		}
	}
	for _, u := range o.Unused {
		for _, e := range errs {
			if e == u {
				t.Errorf("error %s is declared although nothing raises it", u)
			}
		}
	}
	// Selectors and topics computed from the official signatures, against the artifact's.
	var wantIDs, gotIDs []string
	for _, f := range o.Functions {
		sig, _, _ := strings.Cut(f, " returns")
		wantIDs = append(wantIDs, fmt.Sprintf("fn %x", crypto.Keccak256([]byte(sig))[:4]))
	}
	for _, e := range o.Events {
		wantIDs = append(wantIDs, "ev "+crypto.Keccak256Hash([]byte(strings.ReplaceAll(e, " indexed", ""))).Hex())
	}
	for _, e := range o.Errors {
		wantIDs = append(wantIDs, fmt.Sprintf("err %x", crypto.Keccak256([]byte(e))[:4]))
	}
	for _, m := range a.Methods {
		gotIDs = append(gotIDs, fmt.Sprintf("fn %x", m.ID))
	}
	for _, e := range a.Events {
		gotIDs = append(gotIDs, "ev "+e.ID.Hex())
	}
	for _, e := range a.Errors {
		gotIDs = append(gotIDs, fmt.Sprintf("err %x", e.ID[:4]))
	}
	slices.Sort(wantIDs)
	slices.Sort(gotIDs)
	if !slices.Equal(gotIDs, wantIDs) {
		t.Errorf("selectors/topics differ:\n got  %v\n want %v", gotIDs, wantIDs)
	}
}

// TestRebuildReproducesArtifacts rebuilds with the pinned solc and compares byte for byte;
// it runs under VIPHARNESS_CHECK_REBUILD=1 (make test, CI); a missing toolchain skips it,
// or fails it under REQUIRE_TOOLCHAIN=1 or CI=true.
func TestRebuildReproducesArtifacts(t *testing.T) {
	if os.Getenv("VIPHARNESS_CHECK_REBUILD") != "1" {
		t.Skip("set VIPHARNESS_CHECK_REBUILD=1 to rebuild with solc and compare")
	}
	missing := t.Skipf
	if os.Getenv("REQUIRE_TOOLCHAIN") == "1" || os.Getenv("CI") == "true" {
		missing = t.Fatalf
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("the rebuild needs node (apt-get install -y nodejs npm): %v", err)
	}
	if _, err := os.Stat("../node_modules/solc"); err != nil {
		missing("the rebuild needs the pinned solc (make setup installs it from npm): %v", err)
	}
	out, err := exec.Command(node, filepath.Join(".", "build.js"), "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("rebuild differs from the committed artifacts: %v\n%s", err, out)
	}
}
