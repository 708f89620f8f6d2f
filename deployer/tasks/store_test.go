package tasks

import (
	"context"
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

type namedChain struct {
	id, first string
	err       error
}

func (n namedChain) ChainID() string                            { return n.id }
func (n namedChain) FirstBlock(context.Context) (string, error) { return n.first, n.err }

// A chain is the same one by its id and, when both sides can name it, its first block.
func TestChainSame(t *testing.T) {
	ctx := context.Background()
	started := Identify(ctx, namedChain{id: "evm-1", first: "aa"})
	for _, tc := range []struct {
		name      string
		now       namedChain
		other     bool
		restarted bool
	}{
		{"the same", namedChain{id: "evm-1", first: "aa"}, false, false},
		{"a first block it cannot name", namedChain{id: "evm-1", err: errors.New("pruned")}, false, false},
		{"another id", namedChain{id: "evm-2", first: "aa"}, true, false},
		{"started again", namedChain{id: "evm-1", first: "bb"}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := started.Same(ctx, tc.now)
			var o *OtherChainError
			if errors.As(err, &o) != tc.other || tc.other && o.Restarted != tc.restarted {
				t.Fatalf("error %v; want other %v restarted %v", err, tc.other, tc.restarted)
			}
		})
	}
}
