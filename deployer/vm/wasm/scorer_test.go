package wasm_test

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx/cosmostest"
	"github.com/vipharness/vipharness/deployer/vm/wasm"
	"github.com/vipharness/vipharness/localnet/embedded"
)

type rollup struct {
	r          *embedded.WasmRollup
	keyA, keyB *secp256k1.PrivKey
	journal    string
}

func start(t *testing.T, opts ...embedded.WasmOption) *rollup {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := embedded.StartWasm(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	key := func(i int) *secp256k1.PrivKey {
		b, _ := hex.DecodeString(r.Funded()[i].PrivateKey)
		return &secp256k1.PrivKey{Key: b}
	}
	return &rollup{r: r, keyA: key(0), keyB: key(1), journal: t.TempDir()}
}

// dial opens the Scorer of cfg on the rollup: its endpoints and the test's journal folder.
func (r *rollup) dial(t *testing.T, cfg deployer.Config) *deployer.Scorer {
	t.Helper()
	ep := r.r.Endpoints()
	cfg.CometRPC, cfg.REST, cfg.Push.JournalDir = ep.CometRPC, ep.REST, r.journal
	cfg.VM = vip.Wasm
	s, err := deployer.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (r *rollup) sequence(t *testing.T, s *deployer.Scorer, addr string) uint64 {
	t.Helper()
	_, seq, err := s.VMContract().(*wasm.Contract).C.Account(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

// suite is r as the shared Cosmos suite's rollup.
func (r *rollup) suite(t *testing.T) *cosmostest.Rollup {
	ep := r.r.Endpoints()
	return &cosmostest.Rollup{VM: vip.Wasm,
		KeyA: cosmostx.SoftKey(r.keyA, "key A"), KeyB: cosmostx.SoftKey(r.keyB, "key B"),
		AddrA: r.r.Funded()[0].Address, AddrB: r.r.Funded()[1].Address,
		Dial: r.dial, CometRPC: ep.CometRPC, REST: ep.REST,
		Sequence: func(t *testing.T, addr string) uint64 { return r.sequence(t, r.dial(t, deployer.Config{}), addr) },
	}
}

// wasmErrors are the contract's errors for the suite's refusals.
var wasmErrors = cosmostest.Errors{
	AlreadyFinalized: wasm.StageAlreadyFinalized, Finalized: wasm.StageFinalized, NotAllowed: wasm.NotAllowed,
	BadContract: "0x1234", BadContractSays: "contract",
}

func TestDeployUpdateFinalize(t *testing.T) {
	d := cosmostest.DeployUpdateFinalize(t, start(t).suite(t), wasmErrors)
	if d.CodeID == 0 || !strings.HasPrefix(d.Contract, "init1") {
		t.Fatalf("deployment %+v", d)
	}
}

// ["init1…(43 chars)",999999] is at most 56 bytes: (8000-1024)/56 = 124 entries fit an
// 8,000-byte tx.
func TestRefusesBeforeSending(t *testing.T) {
	cosmostest.RefusesBeforeSending(t, start(t).suite(t), wasmErrors, "12[4-9]")
}

// A block gas limit bounds the chunk: the deployer sizes chunks under it, and refuses a
// chunk size above it before sending.
func TestChunksFitTheBlockGasLimit(t *testing.T) {
	cosmostest.ChunksFitTheBlockGasLimit(t, start(t, embedded.WithMaxBlockGas(2_000_000)).suite(t), 2_000_000)
}
