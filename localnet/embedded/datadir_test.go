package embedded

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// resumable is a rollup that says whether it resumed a kept chain.
type resumable interface {
	localnet.Rollup
	Resumed() bool
}

// A rollup started again on its data dir is the same chain, on every VM: the same chain id,
// first block and dev mnemonic, and the contract deployed before the stop holds its scores
// and takes more; the kept mnemonics are 0600.
func TestRollupKeptInADataDir(t *testing.T) {
	for _, tc := range []struct {
		vm    vip.VM
		start func(ctx context.Context, dir string) (resumable, error)
		kept  string // the file that holds the mnemonics
	}{
		{vip.EVM, func(ctx context.Context, dir string) (resumable, error) { return StartGeth(ctx, WithDataDir(dir)) }, devMnemonicFile},
		{vip.Wasm, func(ctx context.Context, dir string) (resumable, error) {
			return StartCosmos(ctx, vip.Wasm, WithCosmosDataDir(dir))
		}, "vipharness-chain.json"},
		{vip.Move, func(ctx context.Context, dir string) (resumable, error) {
			return StartCosmos(ctx, vip.Move, WithCosmosDataDir(dir))
		}, "vipharness-chain.json"},
	} {
		t.Run(string(tc.vm), func(t *testing.T) {
			if tc.vm == vip.Move {
				needMoveVM(t)
			}
			testKeptInADataDir(t, tc.vm, tc.start, tc.kept)
		})
	}
}

func testKeptInADataDir(t *testing.T, vm vip.VM, startIn func(context.Context, string) (resumable, error), kept string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	start := func() resumable {
		t.Helper()
		r, err := startIn(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Stop(context.Background()) })
		return r
	}
	open := func(r resumable, contract string) *deployer.Scorer {
		t.Helper()
		secret, err := hex.DecodeString(r.Funded()[0].PrivateKey)
		if err != nil {
			t.Fatal(err)
		}
		signer, err := deployer.SoftSigner(vm, vip.MustDescribe(vm).KeyType, secret, "operator")
		if err != nil {
			t.Fatal(err)
		}
		ep := r.Endpoints()
		s, err := deployer.Open(ctx, deployer.Config{VM: vm, JSONRPC: ep.JSONRPC, CometRPC: ep.CometRPC, REST: ep.REST,
			Operator: signer, Contract: contract, Push: deployer.PushConfig{JournalDir: t.TempDir()},
			Move: deployer.MoveConfig{Build: move.Builder(movevm.LazyCompiler(movevm.Dir()))}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}

	first := start()
	if first.Resumed() {
		t.Fatal("a new data dir resumed a chain")
	}
	s := open(first, "")
	d, err := s.Deploy(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	entries := []scores.Entry{{Addr: first.Funded()[0].Address, Amount: 7}}
	if _, err := s.UpdateScores(ctx, 1, entries); err != nil {
		t.Fatal(err)
	}
	block, err := s.FirstBlock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mnemonic, chainID := first.Funded()[0].Mnemonic, first.ChainID()
	if err := first.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	again := start()
	if !again.Resumed() || again.ChainID() != chainID || again.Funded()[0].Mnemonic != mnemonic {
		t.Fatalf("resumed %v, chain %s (was %s), same mnemonic %v", again.Resumed(), again.ChainID(), chainID, again.Funded()[0].Mnemonic == mnemonic)
	}
	s = open(again, d.Contract)
	if now, err := s.FirstBlock(ctx); err != nil || now != block {
		t.Fatalf("first block %s (%v), was %s", now, err, block)
	}
	got, err := s.Scores(ctx, 1)
	if err != nil || len(got) != 1 || got[0] != entries[0] {
		t.Fatalf("stage 1 after the restart: %v (%v), want %v", got, err, entries)
	}
	entries[0].Amount = 9
	if _, err := s.UpdateScores(ctx, 1, entries); err != nil {
		t.Fatalf("the resumed chain takes no update: %v", err)
	}
	if got, err := s.Scores(ctx, 1); err != nil || got[0].Amount != 9 {
		t.Fatalf("stage 1 after a second update: %v (%v)", got, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, kept)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the kept mnemonics: %v, %v", fi, err)
	}
}
