package move_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/movevm"
)

type rollup struct {
	r          *embedded.MoveRollup
	keyA, keyB cryptotypes.PrivKey
	journal    string
	// comp builds vip_score for the rollup's funded accounts (the committed module is built
	// for the well-known development account only).
	comp *movevm.Compiler
}

func start(t *testing.T, opts ...embedded.MoveOption) *rollup {
	t.Helper()
	if _, err := movevm.OpenVM(movevm.Dir()); errors.Is(err, movevm.ErrNotInstalled) && !requireNodes() {
		t.Skipf("%v (set REQUIRE_NODES=1 to fail instead)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := embedded.StartMove(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	key := func(i int) cryptotypes.PrivKey {
		b, _ := hex.DecodeString(r.Funded()[i].PrivateKey)
		k, err := keys.PrivKeyFromBytes(b, keys.EthSecp256k1)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	comp, err := movevm.OpenCompiler(movevm.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return &rollup{r: r, keyA: key(0), keyB: key(1), journal: t.TempDir(), comp: comp}
}

// dial opens the Scorer of cfg on the rollup: its endpoints, the test's journal folder and
// its Move compiler.
func (r *rollup) dial(t *testing.T, cfg deployer.Config) *deployer.Scorer {
	t.Helper()
	ep := r.r.Endpoints()
	cfg.CometRPC, cfg.REST, cfg.Push.JournalDir = ep.CometRPC, ep.REST, r.journal
	cfg.Move.Build = move.Builder(r.comp)
	s, err := move.Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (r *rollup) sequence(t *testing.T, s *deployer.Scorer, addr string) uint64 {
	t.Helper()
	_, seq, err := s.VMContract().(*move.Contract).C.Account(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

func wantAbort(t *testing.T, err error, name string) *move.AbortError {
	t.Helper()
	var ae *move.AbortError
	if !errors.As(err, &ae) || ae.Reason() != name {
		t.Fatalf("want abort %s, got %v", name, err)
	}
	return ae
}

func TestDeployUpdateFinalize(t *testing.T) {
	r := start(t)
	ctx := context.Background()
	// Deployer A publishes; operator B writes scores: both become deployers of the module.
	s := r.dial(t, deployer.Config{Deployer: cosmostx.SoftKey(r.keyA, "deployer key"), Operator: cosmostx.SoftKey(r.keyB, "operator key"), Push: deployer.PushConfig{ChunkSize: 40}})
	d, err := s.Deploy(ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	if d.VM != deployer.Move || d.InitStage != 6 || d.Deployer != r.r.Funded()[0].Address || !strings.HasPrefix(d.Contract, "0x") || d.GasUsed == 0 {
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

	// The deployer, though not the operator, may write too.
	byDeployer := r.dial(t, deployer.Config{Operator: cosmostx.SoftKey(r.keyA, "operator key"), Contract: d.Contract})
	if _, err := byDeployer.FinalizeStage(ctx, 6); err != nil {
		t.Fatal(err)
	}
	if open, err := s.OpenStage(ctx); err != nil || open != 7 {
		t.Fatalf("open stage after finalize %d, %v", open, err)
	}
	_, err = s.FinalizeStage(ctx, 6)
	wantAbort(t, err, "EFINALIZED_STAGE")
	info, err := s.StageInfo(ctx, 7)
	if err != nil || !info.Exists || info.Finalized || info.TotalScore != 0 {
		t.Fatalf("stage 7 after re-finalize attempt %+v, %v", info, err)
	}
	if info, err := s.StageInfo(ctx, 99); err != nil || info.Exists {
		t.Fatalf("stage 99 %+v, %v", info, err)
	}
	_, err = s.UpdateScores(ctx, 6, entries[:2])
	wantAbort(t, err, "EFINALIZED_STAGE")
	if !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("a refused update must say nothing was sent: %v", err)
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
	// 40 bytes per entry: (8000-1024)/40 = 174 entries fit.
	if err == nil || !strings.Contains(err.Error(), "chunk size 500 does not fit the 8000-byte tx limit: at most 174 entries per tx") {
		t.Fatalf("oversized chunk: %v", err)
	}
	_, err = s.UpdateScores(ctx, 1, scores.GenerateBech32(3, 4, "wasm"))
	if err == nil || !strings.Contains(err.Error(), `this chain's is "init"`) {
		t.Fatalf("foreign prefix: %v", err)
	}
	if _, err := s.UpdateScores(ctx, 2, entries[:3]); err == nil {
		t.Fatal("an update of a stage that is not open went through")
	} else {
		wantAbort(t, err, "EINVALID_STAGE")
	}
	if after := r.sequence(t, s, addr); after != before {
		t.Fatalf("sequence %d -> %d: refused input sent txs", before, after)
	}

	stranger := r.dial(t, deployer.Config{Operator: cosmostx.SoftKey(r.keyB, "operator key"), Contract: s.Contract()})
	// The interface check proves the operator may write: a stranger's fails, naming why.
	if _, err := stranger.CheckInterface(ctx); !errors.Is(err, deployer.ErrCannotWrite) {
		t.Fatalf("stranger's interface check: %v", err)
	} else {
		wantAbort(t, err, "EUNAUTHORIZED")
	}
	if _, err := s.CheckInterface(ctx); err != nil {
		t.Fatalf("operator's interface check: %v", err)
	}
	_, err = stranger.UpdateScores(ctx, 1, entries[:3])
	wantAbort(t, err, "EUNAUTHORIZED")
	var te *cosmostx.TxError
	if !errors.As(err, &te) || te.Phase != cosmostx.PhaseSimulate {
		t.Fatalf("stranger's refusal must come from simulation: %v", err)
	}

	ep := r.r.Endpoints()
	if _, err := move.Dial(ctx, deployer.Config{CometRPC: ep.CometRPC, REST: ep.REST, Contract: "nope"}); err == nil || !strings.Contains(err.Error(), "module address") {
		t.Fatalf("bad module address: %v", err)
	}
	if _, err := r.dial(t, deployer.Config{}).Deploy(ctx, 1); err == nil || !strings.Contains(err.Error(), "no deployer key") {
		t.Fatalf("no key: %v", err)
	}
	if _, err := s.Deploy(ctx, 0); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Fatalf("stage zero: %v", err)
	}
}

// The block gas limit and the chain's simulation gas limit bound the chunk.
func TestChunksFitTheGasLimits(t *testing.T) {
	r := start(t, embedded.WithMaxBlockGas(1_000_000))
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
	if plan.ChunkSize >= 600 || plan.ChunkSize < 50 || plan.EstimatedGas/uint64(plan.Chunks) > 1_000_000 {
		t.Fatalf("plan %+v does not fit a 1,000,000-gas block", plan)
	}
	res, err := s.UpdateScores(ctx, 1, entries)
	if err != nil || res.Chunks != plan.Chunks || res.Confirmed != plan.Chunks {
		t.Fatalf("update %+v, %v (plan %+v)", res, err, plan)
	}
	big := r.dial(t, deployer.Config{Operator: cosmostx.SoftKey(r.keyA, "operator key"), Contract: s.Contract(), Push: deployer.PushConfig{ChunkSize: 600}})
	_, err = big.UpdateScores(ctx, 1, scores.GenerateBech32(600, 6, "init"))
	if err == nil || !strings.Contains(err.Error(), "block gas limit 1000000") || !strings.Contains(err.Error(), fmt.Sprintf("at most %d entries per tx", plan.ChunkSize)) {
		t.Fatalf("oversized chunk: %v", err)
	}

	// Without a block gas limit, the 3,000,000-gas simulation limit bounds the chunk.
	free := start(t)
	fs := free.dial(t, deployer.Config{Operator: cosmostx.SoftKey(free.keyA, "operator key")})
	if _, err := fs.Deploy(ctx, 1); err != nil {
		t.Fatal(err)
	}
	plan, err = fs.Plan(ctx, 1, scores.GenerateBech32(2000, 7, "init"))
	if err != nil || plan.ChunkSize >= 1000 || plan.EstimatedGas/uint64(plan.Chunks) > 3_000_000 {
		t.Fatalf("plan %+v (%v) does not fit the simulation gas limit", plan, err)
	}
	t.Logf("chunk %d under the simulation gas limit", plan.ChunkSize)
}

// A deployer other than the development one needs vip_score compiled for its address: with
// no compiler the deploy is refused before anything is sent; with one, the module is built
// for that address and published there.
func TestDeployFromAnotherAccountCompilesForIt(t *testing.T) {
	r := start(t)
	ctx := context.Background()
	seq := r.sequence(t, r.dial(t, deployer.Config{}), r.r.Funded()[1].Address)
	ep := r.r.Endpoints()
	bare, err := move.Dial(ctx, deployer.Config{CometRPC: ep.CometRPC, REST: ep.REST, Operator: cosmostx.SoftKey(r.keyB, "operator key"), Push: deployer.PushConfig{JournalDir: r.journal}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.Deploy(ctx, 2); err == nil || !strings.Contains(err.Error(), "give a Move compiler") {
		t.Fatalf("deploy without a compiler: %v", err)
	}
	if now := r.sequence(t, r.dial(t, deployer.Config{}), r.r.Funded()[1].Address); now != seq {
		t.Fatalf("a refused deploy sent a tx: sequence %d -> %d", seq, now)
	}
	s := r.dial(t, deployer.Config{Operator: cosmostx.SoftKey(r.keyB, "operator key")})
	d, err := s.Deploy(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := movebcs.AccountAddress(r.keyB.PubKey().Address()).Short(); d.Contract != want {
		t.Fatalf("module at %s, want the deployer's address %s", d.Contract, want)
	}
	if open, err := s.OpenStage(ctx); err != nil || open != 2 {
		t.Fatalf("open stage %d, %v", open, err)
	}
}
