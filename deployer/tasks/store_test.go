package tasks

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer/vip"
)

// A deployment saved is loaded back from its VM's and chain's file; another chain or VM has
// none, and a file that is not JSON is an error naming it.
func TestStoreRemembersPerVMAndChain(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	d := vip.Deployment{VM: vip.Wasm, ChainID: "miniwasm-1", Contract: "init1abc", InitStage: 4}
	if err := s.Save(d, "ab12"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(vip.Wasm, "miniwasm-1")
	if err != nil || got.Contract != d.Contract || got.InitStage != 4 || got.FirstBlock != "ab12" || got.Time.IsZero() {
		t.Fatalf("loaded %+v, %v", got, err)
	}
	for _, miss := range []struct {
		vm    vip.VM
		chain string
	}{{vip.Wasm, "miniwasm-2"}, {vip.Move, "miniwasm-1"}} {
		if _, err := s.Load(miss.vm, miss.chain); !errors.Is(err, ErrNotRemembered) || !strings.Contains(err.Error(), miss.chain) {
			t.Errorf("%s on %s: %v, want ErrNotRemembered naming the chain", miss.vm, miss.chain, err)
		}
	}
	if err := os.WriteFile(s.Path(vip.EVM, "1"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(vip.EVM, "1"); err == nil || errors.Is(err, ErrNotRemembered) || !strings.Contains(err.Error(), s.Path(vip.EVM, "1")) {
		t.Fatalf("a broken file: %v, want an error naming it", err)
	}
}
