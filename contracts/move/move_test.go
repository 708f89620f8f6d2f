package move

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// moduleABI is the part of libmovevm's module description the checks compare.
type moduleABI struct {
	Address   string `json:"address"`
	Name      string `json:"name"`
	Functions []struct {
		Name              string          `json:"name"`
		Visibility        string          `json:"visibility"`
		IsEntry           bool            `json:"is_entry"`
		IsView            bool            `json:"is_view"`
		GenericTypeParams json.RawMessage `json:"generic_type_params"`
		Params            []string        `json:"params"`
		Return            []string        `json:"return"`
	} `json:"exposed_functions"`
	Structs []struct {
		Name              string          `json:"name"`
		Abilities         []string        `json:"abilities"`
		GenericTypeParams json.RawMessage `json:"generic_type_params"`
		Fields            []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"fields"`
	} `json:"structs"`
}

type fnSig struct {
	Visibility        string          `json:"visibility"`
	IsEntry           bool            `json:"is_entry"`
	IsView            bool            `json:"is_view"`
	GenericTypeParams json.RawMessage `json:"generic_type_params"`
	Params            []string        `json:"params"`
	Return            []string        `json:"return"`
}

func readFixture(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "move", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func decode(t *testing.T, raw []byte) moduleABI {
	t.Helper()
	var m moduleABI
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// The committed module has the official vip_score's interface: every entry function and
// view with the same parameters and returns, and the same events and view structs.
func TestInterfaceIsTheOfficial(t *testing.T) {
	var official struct {
		Functions map[string]fnSig `json:"functions"`
		Structs   map[string]struct {
			Abilities []string `json:"abilities"`
			Fields    []struct {
				Name string `json:"name"`
				Type string `json:"type"`
			} `json:"fields"`
		} `json:"structs"`
	}
	readFixture(t, "official_interface.json", &official)
	m := decode(t, ABI())
	if m.Name != "vip_score" || m.Address != DevDeployer.String()[:2]+strings.TrimLeft(DevDeployer.String()[2:], "0") {
		t.Fatalf("module %s::%s", m.Address, m.Name)
	}
	ours := map[string]fnSig{}
	for _, f := range m.Functions {
		params := make([]string, len(f.Params))
		for i, p := range f.Params {
			params[i] = strings.ReplaceAll(p, m.Address, "vip_score")
		}
		ret := make([]string, len(f.Return))
		for i, r := range f.Return {
			ret[i] = strings.ReplaceAll(r, m.Address, "vip_score")
		}
		ours[f.Name] = fnSig{f.Visibility, f.IsEntry, f.IsView, f.GenericTypeParams, params, ret}
	}
	if len(ours) != len(official.Functions) {
		t.Errorf("%d exposed functions, the official has %d", len(ours), len(official.Functions))
	}
	for name, want := range official.Functions {
		got, ok := ours[name]
		if !ok {
			t.Errorf("missing %s", name)
			continue
		}
		if got.Visibility != want.Visibility || got.IsEntry != want.IsEntry || got.IsView != want.IsView ||
			!slices.Equal(got.Params, want.Params) || !slices.Equal(got.Return, want.Return) || !sameJSON(got.GenericTypeParams, want.GenericTypeParams) {
			t.Errorf("%s: got %+v, official %+v", name, got, want)
		}
	}
	structs := map[string]int{}
	for i, s := range m.Structs {
		structs[s.Name] = i
	}
	for name, want := range official.Structs {
		i, ok := structs[name]
		if !ok {
			t.Errorf("missing struct %s", name)
			continue
		}
		s := m.Structs[i]
		if !slices.Equal(sorted(s.Abilities), want.Abilities) || len(s.Fields) != len(want.Fields) {
			t.Errorf("struct %s: abilities %v fields %v, official %v %v", name, s.Abilities, s.Fields, want.Abilities, want.Fields)
			continue
		}
		for j, f := range s.Fields {
			if f.Name != want.Fields[j].Name || strings.ReplaceAll(f.Type, m.Address, "vip_score") != want.Fields[j].Type {
				t.Errorf("struct %s field %d: %+v, official %+v", name, j, f, want.Fields[j])
			}
		}
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// requireLibs skips without Initia's libraries, or fails under REQUIRE_NODES=1,
// REQUIRE_TOOLCHAIN=1 or CI=true.
func requireLibs(t *testing.T) (*movevm.Compiler, *movevm.VM) {
	t.Helper()
	c, err := movevm.OpenCompiler(movevm.Dir())
	var vm *movevm.VM
	if err == nil {
		vm, err = movevm.OpenVM(movevm.Dir())
	}
	if err != nil {
		if os.Getenv("REQUIRE_NODES") == "1" || os.Getenv("REQUIRE_TOOLCHAIN") == "1" || os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("%v (REQUIRE_NODES=1, REQUIRE_TOOLCHAIN=1 or CI=true fail instead)", err)
	}
	return c, vm
}

// Every function and struct our framework exposes has the real stdlib's signature, so a
// module compiled against it links on a real Initia chain.
func TestFrameworkMatchesTheRealStdlib(t *testing.T) {
	_, vm := requireLibs(t)
	var real struct {
		Modules map[string]struct {
			Functions map[string]fnSig `json:"functions"`
			Structs   map[string]struct {
				Abilities         []string        `json:"abilities"`
				GenericTypeParams json.RawMessage `json:"generic_type_params"`
			} `json:"structs"`
		} `json:"modules"`
	}
	readFixture(t, "stdlib_signatures.json", &real)
	fw := Framework()
	if len(fw) != len(real.Modules) {
		t.Errorf("%d framework modules, the fixture lists %d", len(fw), len(real.Modules))
	}
	checked := 0
	for _, name := range FrameworkNames(fw) {
		raw, err := vm.DecodeModule(fw[name])
		if err != nil {
			t.Fatal(err)
		}
		m := decode(t, raw)
		want, ok := real.Modules["0x1::"+m.Name]
		if !ok || m.Address != "0x1" {
			t.Errorf("module %s::%s is not in the real stdlib list", m.Address, m.Name)
			continue
		}
		for _, f := range m.Functions {
			w, ok := want.Functions[f.Name]
			got := fnSig{f.Visibility, f.IsEntry, f.IsView, f.GenericTypeParams, f.Params, f.Return}
			if !ok || got.Visibility != w.Visibility || got.IsEntry != w.IsEntry || got.IsView != w.IsView ||
				!slices.Equal(got.Params, w.Params) || !slices.Equal(got.Return, w.Return) || !sameJSON(got.GenericTypeParams, w.GenericTypeParams) {
				t.Errorf("0x1::%s::%s: %+v, real %+v", m.Name, f.Name, got, w)
			}
			checked++
		}
		for _, s := range m.Structs {
			w, ok := want.Structs[s.Name]
			if !ok || !slices.Equal(sorted(s.Abilities), w.Abilities) || !sameJSON(s.GenericTypeParams, w.GenericTypeParams) {
				t.Errorf("0x1::%s::%s: abilities %v, real %+v", m.Name, s.Name, s.Abilities, w)
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d functions checked", checked)
	}
}

// A rebuild from source reproduces the committed artifacts byte for byte, and the module
// can be built for another deployer's address.
func TestArtifactsReproduce(t *testing.T) {
	if os.Getenv("VIPHARNESS_CHECK_REBUILD") != "1" {
		t.Skip("set VIPHARNESS_CHECK_REBUILD=1 (make test does) to rebuild the Move artifacts")
	}
	c, vm := requireLibs(t)
	b, err := Compile(context.Background(), c, DevDeployer)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.VipScore, Module()) {
		t.Error("vip_score.mv differs from a rebuild: run `make contracts` and commit")
	}
	fw := Framework()
	for name, code := range b.Framework {
		if !bytes.Equal(code, fw[name]) {
			t.Errorf("framework/%s.mv differs from a rebuild", name)
		}
	}
	if len(b.Framework) != len(fw) {
		t.Errorf("%d framework modules built, %d committed", len(b.Framework), len(fw))
	}
	abi, err := DescribeModule(vm, b.VipScore)
	if err != nil || !bytes.Equal(abi, ABI()) {
		t.Errorf("vip_score.abi.json differs from a rebuild (%v)", err)
	}
	l1, err := CompileL1VIP(context.Background(), c, L1VIPAddress)
	if err != nil || !bytes.Equal(l1, L1VIP()) {
		t.Errorf("l1_vip.mv differs from a rebuild (%v)", err)
	}

	other := movebcs.MustAddress("0x1234")
	ob, err := Compile(context.Background(), c, other)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := vm.DecodeModule(ob.VipScore)
	if err != nil {
		t.Fatal(err)
	}
	if m := decode(t, raw); m.Address != "0x1234" {
		t.Fatalf("built for 0x1234, module address %s", m.Address)
	}
}
