package embedded

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scorers"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// A Wasm or Move rollup started again on its data dir is the same chain: the same chain
// id, first block and dev mnemonic, and the contract deployed before the stop holds its
// scores and takes more; its mnemonics are kept 0600.
func TestCosmosRollupKeptInADataDir(t *testing.T) {
	for _, vm := range []vip.VM{vip.Wasm, vip.Move} {
		t.Run(string(vm), func(t *testing.T) {
			if vm == vip.Move {
				needMoveVM(t)
			}
			testKeptInADataDir(t, vm)
		})
	}
}

func testKeptInADataDir(t *testing.T, vm vip.VM) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	start := func() *CosmosRollup {
		t.Helper()
		r, err := StartCosmos(ctx, vm, WithCosmosDataDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Stop(context.Background()) })
		return r
	}
	open := func(r *CosmosRollup, contract string) *deployer.Scorer {
		t.Helper()
		secret, err := hex.DecodeString(r.Funded()[0].PrivateKey)
		if err != nil {
			t.Fatal(err)
		}
		signer, err := scorers.SoftSigner(vm, scorers.DefaultKeyType(vm), secret, "operator")
		if err != nil {
			t.Fatal(err)
		}
		ep := r.Endpoints()
		s, err := scorers.Open(ctx, deployer.Config{VM: vm, CometRPC: ep.CometRPC, REST: ep.REST,
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
	fi, err := os.Stat(filepath.Join(dir, "vipharness-chain.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the kept mnemonics: %v, %v", fi, err)
	}
}

// An EVM rollup started again on its data dir is the same chain: the same genesis and dev
// account, and the contract deployed before the stop holds its scores and takes more.
func TestEVMRollupKeptInADataDir(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	start := func() *EVMRollup {
		t.Helper()
		r, err := StartEVM(ctx, WithDataDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Stop(context.Background()) })
		return r
	}
	open := func(r *EVMRollup, contract string) *deployer.Scorer {
		t.Helper()
		secret, err := hex.DecodeString(r.Funded()[0].PrivateKey)
		if err != nil {
			t.Fatal(err)
		}
		signer, err := scorers.SoftSigner(vip.EVM, "", secret, "operator")
		if err != nil {
			t.Fatal(err)
		}
		s, err := scorers.Open(ctx, deployer.Config{VM: vip.EVM, JSONRPC: r.Endpoints().JSONRPC,
			Operator: signer, Contract: contract, Push: deployer.PushConfig{JournalDir: t.TempDir()}})
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
	mnemonic := first.Funded()[0].Mnemonic
	if err := first.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	again := start()
	if !again.Resumed() || again.Funded()[0].Mnemonic != mnemonic {
		t.Fatalf("resumed %v, same dev mnemonic %v", again.Resumed(), again.Funded()[0].Mnemonic == mnemonic)
	}
	s = open(again, d.Contract)
	if now, err := s.FirstBlock(ctx); err != nil || now != block {
		t.Fatalf("first block %s (%v), was %s", now, err, block)
	}
	got, err := s.Scores(ctx, 1)
	if err != nil || len(got) != 1 || got[0].Amount != 7 {
		t.Fatalf("stage 1 after the restart: %v (%v)", got, err)
	}
	entries[0].Amount = 9
	if _, err := s.UpdateScores(ctx, 1, entries); err != nil {
		t.Fatalf("the resumed chain takes no update: %v", err)
	}
	if got, err := s.Scores(ctx, 1); err != nil || got[0].Amount != 9 {
		t.Fatalf("stage 1 after a second update: %v (%v)", got, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, devMnemonicFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the kept mnemonic: %v, %v", fi, err)
	}
}
