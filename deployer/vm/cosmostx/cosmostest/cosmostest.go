// Package cosmostest is the test suite the Move and the Wasm deployers share: the same
// deploy, push, finalize and refusals on a live rollup of each, with the VM's own names for
// its errors. Each VM's tests start their rollup and hand it over as a Rollup; nothing here
// starts a chain, so the package links no test infrastructure.
package cosmostest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// Rollup is one live Cosmos rollup of a VM, as its tests started it.
type Rollup struct {
	VM vip.VM
	// A and B are two funded accounts: their keys and bech32 addresses.
	KeyA, KeyB   keys.Signer
	AddrA, AddrB string
	// Dial opens the Scorer of cfg with the rollup's endpoints and the test's journal
	// folder (and, on Move, its compiler).
	Dial           func(t *testing.T, cfg deployer.Config) *deployer.Scorer
	CometRPC, REST string
	// Sequence is addr's account sequence on the chain.
	Sequence func(t *testing.T, addr string) uint64
}

// Errors are the VM's reasons for the refusals the suite provokes, and its words for the
// rest.
type Errors struct {
	// AlreadyFinalized is a finalize of a finalized stage; Finalized an update of one;
	// NotAllowed an update from an account that may not write.
	AlreadyFinalized, Finalized, NotAllowed string
	// NotOpen is an update of a stage that is not open ("": the VM does not refuse it).
	NotOpen string
	// BadContract is an address the VM refuses as its contract's, BadContractSays its words.
	BadContract, BadContractSays string
}

// WantReason fails t unless err carries the contract's refusal reason.
func WantReason(t *testing.T, err error, reason string) {
	t.Helper()
	if ce, ok := vip.AsContractError(err); !ok || ce.Reason() != reason {
		t.Fatalf("want the contract's %q, got %v", reason, err)
	}
}

// DeployUpdateFinalize deploys with deployer A and operator B, pushes 100 addresses in
// chunks of 40 (a re-run resumes all three), verifies, finalizes as the deployer, and
// refuses a second finalize and an update of the finalized stage. It returns the deployment.
func DeployUpdateFinalize(t *testing.T, r *Rollup, e Errors) vip.Deployment {
	ctx := context.Background()
	s := r.Dial(t, deployer.Config{Deployer: r.KeyA, Operator: r.KeyB, Push: deployer.PushConfig{ChunkSize: 40}})
	d, err := s.Deploy(ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	if d.VM != r.VM || d.InitStage != 6 || d.Deployer != r.AddrA || d.Contract == "" || d.GasUsed == 0 {
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
	byDeployer := r.Dial(t, deployer.Config{Operator: r.KeyA, Contract: d.Contract})
	if _, err := byDeployer.FinalizeStage(ctx, 6); err != nil {
		t.Fatal(err)
	}
	if open, err := s.OpenStage(ctx); err != nil || open != 7 {
		t.Fatalf("open stage after finalize %d, %v", open, err)
	}
	_, err = s.FinalizeStage(ctx, 6)
	WantReason(t, err, e.AlreadyFinalized)
	info, err := s.StageInfo(ctx, 7)
	if err != nil || !info.Exists || info.Finalized || info.TotalScore != 0 {
		t.Fatalf("stage 7 after re-finalize attempt %+v, %v", info, err)
	}
	if info, err := s.StageInfo(ctx, 99); err != nil || info.Exists {
		t.Fatalf("stage 99 %+v, %v", info, err)
	}
	_, err = s.UpdateScores(ctx, 6, entries[:2])
	WantReason(t, err, e.Finalized)
	if !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("a refused update must say nothing was sent: %v", err)
	}
	return d
}

// RefusesBeforeSending: an oversized chunk (the tx limit fits at most fits entries, a
// pattern), a foreign prefix, a duplicate and a stage that is not open send nothing; a
// stranger's interface check and update fail in simulation with the VM's reason; a bad
// contract address, a missing deployer key and stage zero are refused.
func RefusesBeforeSending(t *testing.T, r *Rollup, e Errors, fits string) {
	ctx := context.Background()
	s := r.Dial(t, deployer.Config{Operator: r.KeyA})
	if _, err := s.Deploy(ctx, 1); err != nil {
		t.Fatal(err)
	}
	before := r.Sequence(t, r.AddrA)
	entries := scores.GenerateBech32(500, 4, "init")

	small := r.Dial(t, deployer.Config{Operator: r.KeyA, Contract: s.Contract(), Push: deployer.PushConfig{ChunkSize: 500}, Cosmos: deployer.CosmosConfig{MaxTxBytes: 8_000}})
	_, err := small.UpdateScores(ctx, 1, entries)
	if err == nil || !regexp.MustCompile(`chunk size 500 does not fit the 8000-byte tx limit: at most `+fits+` entries per tx`).MatchString(err.Error()) {
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
	if e.NotOpen != "" {
		_, err := s.UpdateScores(ctx, 2, entries[:3])
		WantReason(t, err, e.NotOpen)
	}
	if after := r.Sequence(t, r.AddrA); after != before {
		t.Fatalf("sequence %d -> %d: refused input sent txs", before, after)
	}

	stranger := r.Dial(t, deployer.Config{Operator: r.KeyB, Contract: s.Contract()})
	// The interface check proves the operator may write: a stranger's fails, naming why.
	_, err = stranger.CheckInterface(ctx)
	if !errors.Is(err, vip.ErrCannotWrite) {
		t.Fatalf("stranger's interface check: %v", err)
	}
	WantReason(t, err, e.NotAllowed)
	if _, err := s.CheckInterface(ctx); err != nil {
		t.Fatalf("operator's interface check: %v", err)
	}
	_, err = stranger.UpdateScores(ctx, 1, entries[:3])
	WantReason(t, err, e.NotAllowed)
	var te *cosmostx.TxError
	if !errors.As(err, &te) || te.Phase != cosmostx.PhaseSimulate {
		t.Fatalf("stranger's refusal must come from simulation: %v", err)
	}

	if _, err := deployer.Open(ctx, deployer.Config{VM: r.VM, CometRPC: r.CometRPC, REST: r.REST, Contract: e.BadContract}); err == nil || !strings.Contains(err.Error(), e.BadContractSays) {
		t.Fatalf("bad contract address: %v", err)
	}
	if _, err := r.Dial(t, deployer.Config{}).Deploy(ctx, 1); err == nil || !strings.Contains(err.Error(), "no deployer key") {
		t.Fatalf("no key: %v", err)
	}
	if _, err := s.Deploy(ctx, 0); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Fatalf("stage zero: %v", err)
	}
}

// ChunksFitTheBlockGasLimit, on a rollup whose blocks hold blockGas: the deployer sizes
// chunks under it and refuses a chunk size above it before sending.
func ChunksFitTheBlockGasLimit(t *testing.T, r *Rollup, blockGas uint64) deployer.Plan {
	ctx := context.Background()
	s := r.Dial(t, deployer.Config{Operator: r.KeyA})
	if _, err := s.Deploy(ctx, 1); err != nil {
		t.Fatal(err)
	}
	entries := scores.GenerateBech32(600, 5, "init")
	plan, err := s.Plan(ctx, 1, entries)
	if err != nil {
		t.Fatal(err)
	}
	if plan.ChunkSize >= 600 || plan.ChunkSize < 50 || plan.EstimatedGas/uint64(plan.Chunks) > blockGas {
		t.Fatalf("plan %+v does not fit a %d-gas block", plan, blockGas)
	}
	res, err := s.UpdateScores(ctx, 1, entries)
	if err != nil || res.Chunks != plan.Chunks || res.Confirmed != plan.Chunks {
		t.Fatalf("update %+v, %v (plan %+v)", res, err, plan)
	}
	big := r.Dial(t, deployer.Config{Operator: r.KeyA, Contract: s.Contract(), Push: deployer.PushConfig{ChunkSize: 600}})
	_, err = big.UpdateScores(ctx, 1, scores.GenerateBech32(600, 6, "init"))
	// The stage now holds 600 entries: its measure may differ from the first plan's by an
	// entry or two (the stored total's digits), never more.
	m := regexp.MustCompile(`at most (\d+) entries per tx`).FindStringSubmatch(fmt.Sprint(err))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("block gas limit %d", blockGas)) || m == nil {
		t.Fatalf("oversized chunk: %v (the plan before: %+v)", err, plan)
	}
	if n, _ := strconv.Atoi(m[1]); n < plan.ChunkSize-2 || n > plan.ChunkSize+2 {
		t.Fatalf("oversized chunk: at most %d entries per tx, the plan before fitted %d", n, plan.ChunkSize)
	}
	return plan
}
