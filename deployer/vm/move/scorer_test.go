package move_test

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"

	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx/cosmostest"
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
		k, err := keys.PrivKeyFromBytes(b, vip.EthSecp256k1)
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
	cfg.VM = vip.Move
	s, err := deployer.Open(context.Background(), cfg)
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

// suite is r as the shared Cosmos suite's rollup.
func (r *rollup) suite(t *testing.T) *cosmostest.Rollup {
	ep := r.r.Endpoints()
	return &cosmostest.Rollup{VM: vip.Move,
		KeyA: cosmostx.SoftKey(r.keyA, "key A"), KeyB: cosmostx.SoftKey(r.keyB, "key B"),
		AddrA: r.r.Funded()[0].Address, AddrB: r.r.Funded()[1].Address,
		Dial: r.dial, CometRPC: ep.CometRPC, REST: ep.REST,
		Sequence: func(t *testing.T, addr string) uint64 { return r.sequence(t, r.dial(t, deployer.Config{}), addr) },
	}
}

// moveErrors are vip_score's aborts for the suite's refusals.
var moveErrors = cosmostest.Errors{
	AlreadyFinalized: "EFINALIZED_STAGE", Finalized: "EFINALIZED_STAGE", NotAllowed: "EUNAUTHORIZED", NotOpen: "EINVALID_STAGE",
	BadContract: "nope", BadContractSays: "module address",
}

func TestDeployUpdateFinalize(t *testing.T) {
	d := cosmostest.DeployUpdateFinalize(t, start(t).suite(t), moveErrors)
	if !strings.HasPrefix(d.Contract, "0x") {
		t.Fatalf("module address %s", d.Contract)
	}
}

// 40 bytes per entry: (8000-1024)/40 = 174 entries fit an 8,000-byte tx.
func TestRefusesBeforeSending(t *testing.T) {
	cosmostest.RefusesBeforeSending(t, start(t).suite(t), moveErrors, "174")
}

// The block gas limit and the chain's simulation gas limit bound the chunk.
func TestChunksFitTheGasLimits(t *testing.T) {
	cosmostest.ChunksFitTheBlockGasLimit(t, start(t, embedded.WithMaxBlockGas(1_000_000)).suite(t), 1_000_000)

	// Without a block gas limit, the 3,000,000-gas simulation limit bounds the chunk.
	ctx := context.Background()
	free := start(t)
	fs := free.dial(t, deployer.Config{Operator: cosmostx.SoftKey(free.keyA, "operator key")})
	if _, err := fs.Deploy(ctx, 1); err != nil {
		t.Fatal(err)
	}
	plan, err := fs.Plan(ctx, 1, scores.GenerateBech32(2000, 7, "init"))
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
	bare, err := deployer.Open(ctx, deployer.Config{VM: vip.Move, CometRPC: ep.CometRPC, REST: ep.REST, Operator: cosmostx.SoftKey(r.keyB, "operator key"), Push: deployer.PushConfig{JournalDir: r.journal}})
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
