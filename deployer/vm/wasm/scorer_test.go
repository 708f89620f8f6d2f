package wasm_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
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
	s, err := wasm.Dial(context.Background(), cfg)
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

func TestDeployUpdateFinalize(t *testing.T) {
	r := start(t)
	ctx := context.Background()
	// Deployer A; operator B: both go on the allow list.
	s := r.dial(t, deployer.Config{Deployer: cosmostx.SoftKey(r.keyA, "deployer key"), Operator: cosmostx.SoftKey(r.keyB, "operator key"), Push: deployer.PushConfig{ChunkSize: 40}})
	d, err := s.Deploy(ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	if d.VM != deployer.Wasm || d.CodeID == 0 || d.InitStage != 6 || d.Deployer != r.r.Funded()[0].Address || !strings.HasPrefix(d.Contract, "init1") || d.GasUsed == 0 {
		t.Fatalf("deployment %+v", d)
	}
	if open, err := s.OpenStage(ctx); err != nil || open != 6 {
		t.Fatalf("open stage %d, %v", open, err)
	}
	entries := scores.GenerateBech32(100, 3, "init")
	plan, err := s.Plan(ctx, 6, entries)
	if err != nil || plan.Chunks != 3 || plan.ChunkSize != 40 || plan.EstimatedGas == 0 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	res, err := s.UpdateScores(ctx, 6, entries)
	if err != nil || res.Confirmed != 3 || res.GasUsed == 0 {
		t.Fatalf("update %+v, %v", res, err)
	}
	again, err := s.UpdateScores(ctx, 6, entries)
	if err != nil || again.Resumed != 3 || again.Confirmed != 0 {
		t.Fatalf("re-run %+v, %v", again, err)
	}
	rep, err := deployer.Verify(ctx, s, 6, entries)
	if err != nil || !rep.OK() || rep.Matched != 100 {
		t.Fatalf("verify %+v, %v", rep, err)
	}

	// The deployer, though not the operator, is on the allow list too.
	byDeployer := r.dial(t, deployer.Config{Operator: cosmostx.SoftKey(r.keyA, "operator key"), Contract: d.Contract})
	if _, err := byDeployer.FinalizeStage(ctx, 6); err != nil {
		t.Fatal(err)
	}
	if open, err := s.OpenStage(ctx); err != nil || open != 7 {
		t.Fatalf("open stage after finalize %d, %v", open, err)
	}
	_, err = s.FinalizeStage(ctx, 6)
	var ce *wasm.ContractError
	if !errors.As(err, &ce) || ce.Reason() != wasm.StageAlreadyFinalized {
		t.Fatalf("re-finalize: %v", err)
	}
	info, err := s.StageInfo(ctx, 7)
	if err != nil || !info.Exists || info.Finalized || info.TotalScore != 0 {
		t.Fatalf("stage 7 after re-finalize attempt %+v, %v", info, err)
	}
	if info, err := s.StageInfo(ctx, 99); err != nil || info.Exists {
		t.Fatalf("stage 99 %+v, %v", info, err)
	}
	_, err = s.UpdateScores(ctx, 6, entries[:2])
	if !errors.As(err, &ce) || ce.Reason() != wasm.StageFinalized || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("update of a finalized stage: %v", err)
	}
}

func TestRefusesBeforeSending(t *testing.T) {
	r := start(t)
	ctx := context.Background()
	s := r.dial(t, deployer.Config{Operator: cosmostx.SoftKey(r.keyA, "operator key")})
	if _, err := s.Deploy(ctx, 1); err != nil {
		t.Fatal(err)
	}
	addr := r.r.Funded()[0].Address
	before := r.sequence(t, s, addr)
	entries := scores.GenerateBech32(500, 4, "init")

	small := r.dial(t, deployer.Config{Operator: cosmostx.SoftKey(r.keyA, "operator key"), Contract: s.Contract(), Push: deployer.PushConfig{ChunkSize: 500}, Cosmos: deployer.CosmosConfig{MaxTxBytes: 8_000}})
	_, err := small.UpdateScores(ctx, 1, entries)
	// ["init1…(43 chars)",999999] is at most 56 bytes: (8000-1024)/56 = 124 entries fit.
	if err == nil || !regexp.MustCompile(`chunk size 500 does not fit the 8000-byte tx limit: at most 12[4-9] entries per tx`).MatchString(err.Error()) {
		t.Fatalf("oversized chunk: %v", err)
	}
	_, err = s.UpdateScores(ctx, 1, scores.GenerateBech32(3, 4, "wasm"))
	if err == nil || !strings.Contains(err.Error(), `this chain's is "init"`) {
		t.Fatalf("foreign prefix: %v", err)
	}
	dup := append(entries[:2:2], entries[0])
	if _, err := s.UpdateScores(ctx, 1, dup); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("duplicate: %v", err)
	}
	if after := r.sequence(t, s, addr); after != before {
		t.Fatalf("sequence %d -> %d: refused input sent txs", before, after)
	}

	stranger := r.dial(t, deployer.Config{Operator: cosmostx.SoftKey(r.keyB, "operator key"), Contract: s.Contract()})
	// The interface check proves the operator may write: a stranger's fails, naming why.
	var ce *wasm.ContractError
	if _, err := stranger.CheckInterface(ctx); !errors.Is(err, deployer.ErrCannotWrite) || !errors.As(err, &ce) || ce.Reason() != wasm.NotAllowed {
		t.Fatalf("stranger's interface check: %v", err)
	}
	if _, err := s.CheckInterface(ctx); err != nil {
		t.Fatalf("operator's interface check: %v", err)
	}
	_, err = stranger.UpdateScores(ctx, 1, entries[:3])
	if !errors.As(err, &ce) || ce.Reason() != wasm.NotAllowed {
		t.Fatalf("stranger: %v", err)
	}
	var te *cosmostx.TxError
	if !errors.As(err, &te) || te.Phase != cosmostx.PhaseSimulate {
		t.Fatalf("stranger's refusal must come from simulation: %v", err)
	}

	ep := r.r.Endpoints()
	if _, err := wasm.Dial(ctx, deployer.Config{CometRPC: ep.CometRPC, REST: ep.REST, Contract: "0x1234"}); err == nil || !strings.Contains(err.Error(), "contract") {
		t.Fatalf("bad contract address: %v", err)
	}
	if _, err := r.dial(t, deployer.Config{}).Deploy(ctx, 1); err == nil || !strings.Contains(err.Error(), "no deployer key") {
		t.Fatalf("no key: %v", err)
	}
	if _, err := s.Deploy(ctx, 0); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Fatalf("stage zero: %v", err)
	}
}

// A block gas limit bounds the chunk: the deployer sizes chunks under it, and refuses a
// chunk size above it before sending.
func TestChunksFitTheBlockGasLimit(t *testing.T) {
	r := start(t, embedded.WithMaxBlockGas(2_000_000))
	ctx := context.Background()
	s := r.dial(t, deployer.Config{Operator: cosmostx.SoftKey(r.keyA, "operator key")})
	if _, err := s.Deploy(ctx, 1); err != nil {
		t.Fatal(err)
	}
	entries := scores.GenerateBech32(600, 5, "init")
	plan, err := s.Plan(ctx, 1, entries)
	if err != nil {
		t.Fatal(err)
	}
	if plan.ChunkSize >= 600 || plan.ChunkSize < 50 || plan.EstimatedGas/uint64(plan.Chunks) > 2_000_000 {
		t.Fatalf("plan %+v does not fit a 2,000,000-gas block", plan)
	}
	res, err := s.UpdateScores(ctx, 1, entries)
	if err != nil || res.Chunks != plan.Chunks || res.Confirmed != plan.Chunks {
		t.Fatalf("update %+v, %v (plan %+v)", res, err, plan)
	}
	big := r.dial(t, deployer.Config{Operator: cosmostx.SoftKey(r.keyA, "operator key"), Contract: s.Contract(), Push: deployer.PushConfig{ChunkSize: 600}})
	_, err = big.UpdateScores(ctx, 1, scores.GenerateBech32(600, 6, "init"))
	if err == nil || !strings.Contains(err.Error(), "block gas limit 2000000") || !strings.Contains(err.Error(), fmt.Sprintf("at most %d entries per tx", plan.ChunkSize)) {
		t.Fatalf("oversized chunk: %v", err)
	}
}
