// Package conformance runs the named checks that tell a rollup team whether their rollup and
// scoring contract behave as the VIP program expects: deploy at a stage, updates of one, many
// and a full chunk, overwrites, totals, paged read-back, finalize, the next stage opened and
// untouched, the refusals the official interface defines, and its events. The checks drive a
// contract only through deployer.Scorer and a few VM probes (Subject), so the same checks run
// for every VM, inside `vipctl check` and in the e2e suites alike.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

// Status is a check's outcome.
type Status string

// Outcomes of a check.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is one check's outcome; Detail is the reason of a failure or skip, or a note on a
// pass that is worth knowing (a re-finalize that is accepted and changes nothing).
type Result struct {
	Name    string  `json:"name"`
	Status  Status  `json:"status"`
	Detail  string  `json:"detail,omitempty"`
	Seconds float64 `json:"seconds"`
	// Then is what would make the check pass, for a front end to word: "" when the detail
	// says it all.
	Then Then `json:"then,omitempty"`
}

// Then is a remedy a check's result names.
type Then string

const (
	// GiveL1 is a check that needs the L1's stage and had none.
	GiveL1 Then = "give_l1"
	// SyncStages is a contract behind the L1: finalizing the stages the L1 has moved past
	// brings it level.
	SyncStages Then = "sync_stages"
)

// remedy is a check's error with the remedy its result names.
type remedy struct {
	error
	then Then
}

func (e remedy) Unwrap() error { return e.error }

// Report is every check run against one contract.
type Report struct {
	VM       vip.VM   `json:"vm"`
	Contract string   `json:"contract,omitempty"`
	Stage    uint64   `json:"stage"`
	Checks   []Result `json:"checks"`
}

// OK is true when no check failed (a skip names what could not be checked here, such as a
// length mismatch that Wasm's [address, score] pairs cannot express).
func (r Report) OK() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return false
		}
	}
	return len(r.Checks) > 0
}

// Counts is how many checks passed, failed and were skipped.
func (r Report) Counts() (pass, fail, skip int) {
	for _, c := range r.Checks {
		switch c.Status {
		case Pass:
			pass++
		case Fail:
			fail++
		case Skip:
			skip++
		}
	}
	return
}

// Target is what the checks use of a contract's Scorer (a *deployer.Scorer is one); the
// VM's probes are found in it with deployer.As.
type Target interface {
	scores.StageReader // Codec, StageInfo, ScorePages
	VM() vip.VM
	Contract() string
	Deploy(ctx context.Context, initStage uint64, opts ...deployer.DeployOption) (vip.Deployment, error)
	Plan(ctx context.Context, stage uint64, entries []scores.Entry) (deployer.Plan, error)
	UpdateScores(ctx context.Context, stage uint64, entries []scores.Entry) (push.Result, error)
	FinalizeStage(ctx context.Context, stage uint64) (string, error)
	Scores(ctx context.Context, stage uint64) ([]scores.Entry, error)
	OpenStage(ctx context.Context) (uint64, error)
	// CheckInterface proves the contract speaks the official interface and that the
	// operator may write its open stage (deployer.Scorer.CheckInterface).
	CheckInterface(ctx context.Context) (string, error)
}

// Subject is a fresh contract to check, seen through the VM's deployer, and the VM's probes.
type Subject struct {
	// Scorer deploys the contract and operates it (the deployer and operator keys).
	Scorer Target
	// Stranger opens a Scorer on contract whose key is not on its allow list (funded where
	// the chain needs an account to simulate); nil skips the unauthorized-sender check.
	Stranger func(ctx context.Context, contract string) (Target, error)
	// Generate makes n distinct VM-valid entries, deterministic in seed.
	Generate func(n int, seed int64) []scores.Entry
	// Mismatch sends (by simulation) an update with two addresses and one score and returns
	// the error; nil when the VM's messages cannot express it.
	Mismatch func(ctx context.Context, stage uint64) error
	// Events lists the names of the contract events a tx emitted; nil skips the event checks.
	Events func(ctx context.Context, txHash string) ([]string, error)
}

// Run deploys a fresh contract at stage and runs every check in order. A check that depends
// on an earlier one that failed is skipped with that reason.
func Run(ctx context.Context, s Subject, stage uint64) Report {
	r := &run{s: s, stage: stage, want: spec(s.Scorer.VM()).Reasons, model: map[string]uint64{}}
	r.report = Report{VM: s.Scorer.VM(), Stage: stage}
	r.check("deploy at the stage", r.deploy)
	r.check("update one address", func(ctx context.Context) (string, error) { return r.update(ctx, 1, 1) })
	r.check("update many addresses", func(ctx context.Context) (string, error) { return r.update(ctx, 100, 2) })
	r.check("update a full chunk", r.fullChunk)
	r.check("overwrite scores", r.overwrite)
	r.check("stage total", r.totals)
	r.check("paged read-back", r.readBack)
	r.check("update events", r.updateEvents)
	r.check("refuse an unauthorized sender", r.unauthorized)
	r.check("refuse a missing stage", r.missingStage)
	r.check("refuse stage zero", r.stageZero)
	r.check("refuse mismatched lengths", r.mismatch)
	r.check("finalize the stage", r.finalize)
	r.check("finalize events", r.finalizeEvents)
	r.check("next stage opened and untouched", r.nextStage)
	r.check("refuse updates to a finalized stage", r.finalizedUpdate)
	r.check("re-finalize changes nothing", r.refinalize)
	r.check("finalized scores never change", r.finalizedScores)
	return r.runAll(ctx)
}

// errSkip marks a check that could not run here; its text is the reason.
type errSkip struct{ reason string }

func (e errSkip) Error() string { return e.reason }

func skip(format string, a ...any) error { return errSkip{fmt.Sprintf(format, a...)} }

type step struct {
	name string
	fn   func(context.Context) (string, error)
}

type run struct {
	s      Subject
	stage  uint64
	want   map[string]string
	report Report
	steps  []step

	deployed, finalized bool
	model               map[string]uint64 // what the stage must hold
	updateTx            string            // a tx of an update, for its events
	finalizeTx          string
	finalizedRows       []scores.Entry // stage rows when it was finalized
}

func (r *run) check(name string, fn func(context.Context) (string, error)) {
	r.steps = append(r.steps, step{name, fn})
}

func (r *run) runAll(ctx context.Context) Report {
	for _, st := range r.steps {
		start := time.Now()
		res := Result{Name: st.name, Status: Pass}
		note, err := r.guarded(ctx, st)
		var rm remedy
		if errors.As(err, &rm) {
			res.Then = rm.then
		}
		switch {
		case errors.As(err, new(errSkip)):
			res.Status, res.Detail = Skip, err.Error()
		case err != nil:
			res.Status, res.Detail = Fail, err.Error()
		default:
			res.Detail = note
		}
		res.Seconds = time.Since(start).Seconds()
		r.report.Checks = append(r.report.Checks, res)
	}
	r.report.Contract = r.s.Scorer.Contract()
	return r.report
}

// guarded runs a check only when the contract was deployed, and turns a canceled context
// into a skip rather than a verdict.
func (r *run) guarded(ctx context.Context, st step) (string, error) {
	if ctx.Err() != nil {
		return "", skip("not run: %v", ctx.Err())
	}
	if !r.deployed && st.name != "deploy at the stage" {
		return "", skip("no contract: the deploy failed")
	}
	return st.fn(ctx)
}

func (r *run) deploy(ctx context.Context) (string, error) {
	// A conformance run judges a contract of its own, never one deployed before.
	d, err := r.s.Scorer.Deploy(ctx, r.stage, deployer.AnotherDeployment())
	if err != nil {
		return "", fmt.Errorf("deploy at stage %d: %w", r.stage, err)
	}
	r.deployed = true
	if d.InitStage != r.stage {
		return "", fmt.Errorf("deployed with init stage %d, want %d", d.InitStage, r.stage)
	}
	open, err := r.s.Scorer.OpenStage(ctx)
	if err != nil {
		return "", fmt.Errorf("read the open stage: %w", err)
	}
	if open != r.stage {
		return "", fmt.Errorf("open stage after deploy is %d, want %d", open, r.stage)
	}
	info, err := r.s.Scorer.StageInfo(ctx, r.stage)
	if err != nil {
		return "", fmt.Errorf("read stage %d: %w", r.stage, err)
	}
	if want := (vip.StageInfo{Stage: r.stage, Exists: true}); info != want {
		return "", fmt.Errorf("stage %d after deploy is %+v, want %+v", r.stage, info, want)
	}
	return fmt.Sprintf("%s (%d gas)", d.Contract, d.GasUsed), nil
}

// update pushes n new addresses and checks each is read back.
func (r *run) update(ctx context.Context, n int, seed int64) (string, error) {
	entries := r.s.Generate(n, seed)
	res, err := r.s.Scorer.UpdateScores(ctx, r.stage, entries)
	if err != nil {
		return "", fmt.Errorf("update %d addresses: %w", n, err)
	}
	if res.Confirmed != res.Chunks {
		return "", fmt.Errorf("update %d addresses: %d of %d chunks confirmed", n, res.Confirmed, res.Chunks)
	}
	if len(res.Hashes) > 0 && r.updateTx == "" {
		r.updateTx = res.Hashes[0]
	}
	for _, e := range entries {
		r.model[e.Addr] = e.Amount
	}
	return r.expectRows(ctx, entries, fmt.Sprintf("%d chunk(s), %d gas", res.Chunks, res.GasUsed))
}

// expectRows checks that every entry reads back with its amount.
func (r *run) expectRows(ctx context.Context, entries []scores.Entry, note string) (string, error) {
	rows, err := r.s.Scorer.Scores(ctx, r.stage)
	if err != nil {
		return "", fmt.Errorf("read stage %d back: %w", r.stage, err)
	}
	got := make(map[string]uint64, len(rows))
	for _, row := range rows {
		got[row.Addr] = row.Amount
	}
	for _, e := range entries {
		if a, ok := got[e.Addr]; !ok || a != e.Amount {
			return "", fmt.Errorf("%s reads back as %d (present %t), want %d", e.Addr, a, ok, e.Amount)
		}
	}
	return note, nil
}

func (r *run) fullChunk(ctx context.Context) (string, error) {
	probe := r.s.Generate(2000, 3)
	plan, err := r.s.Scorer.Plan(ctx, r.stage, probe)
	if err != nil {
		return "", fmt.Errorf("plan: %w", err)
	}
	if plan.ChunkSize < 1 {
		return "", fmt.Errorf("plan gives chunk size %d", plan.ChunkSize)
	}
	entries := probe[:min(plan.ChunkSize, len(probe))]
	res, err := r.s.Scorer.UpdateScores(ctx, r.stage, entries)
	if err != nil {
		return "", fmt.Errorf("update a chunk of %d: %w", len(entries), err)
	}
	if res.Chunks != 1 || res.Confirmed != 1 {
		return "", fmt.Errorf("a full chunk of %d went out as %d chunks, %d confirmed", len(entries), res.Chunks, res.Confirmed)
	}
	for _, e := range entries {
		r.model[e.Addr] = e.Amount
	}
	return r.expectRows(ctx, entries, fmt.Sprintf("%d addresses in one tx, %d gas", len(entries), res.GasUsed))
}

func (r *run) overwrite(ctx context.Context) (string, error) {
	// New amounts for ten addresses already written.
	old := r.s.Generate(100, 2)[:10]
	entries := make([]scores.Entry, len(old))
	for i, e := range old {
		entries[i] = scores.Entry{Addr: e.Addr, Amount: e.Amount + 1_000 + uint64(i)}
	}
	res, err := r.s.Scorer.UpdateScores(ctx, r.stage, entries)
	if err != nil {
		return "", fmt.Errorf("overwrite 10 scores: %w", err)
	}
	if res.Confirmed != res.Chunks {
		return "", fmt.Errorf("overwrite: %d of %d chunks confirmed", res.Confirmed, res.Chunks)
	}
	for _, e := range entries {
		r.model[e.Addr] = e.Amount
	}
	return r.expectRows(ctx, entries, "")
}

func (r *run) modelTotal() uint64 {
	var t uint64
	for _, a := range r.model {
		t += a
	}
	return t
}

func (r *run) totals(ctx context.Context) (string, error) {
	info, err := r.s.Scorer.StageInfo(ctx, r.stage)
	if err != nil {
		return "", fmt.Errorf("read stage %d: %w", r.stage, err)
	}
	if want := r.modelTotal(); info.TotalScore != want {
		return "", fmt.Errorf("stage %d total is %d, want %d (the sum of its current scores; an overwrite replaces a score)", r.stage, info.TotalScore, want)
	}
	return fmt.Sprintf("total %d", info.TotalScore), nil
}

func (r *run) readBack(ctx context.Context) (string, error) {
	rows, err := r.s.Scorer.Scores(ctx, r.stage)
	if err != nil {
		return "", fmt.Errorf("read stage %d back: %w", r.stage, err)
	}
	got := map[string]uint64{}
	for _, row := range rows {
		if _, dup := got[row.Addr]; dup {
			return "", fmt.Errorf("%s appears twice in the paged scores", row.Addr)
		}
		got[row.Addr] = row.Amount
	}
	if !maps.Equal(got, r.model) {
		return "", fmt.Errorf("paged read-back has %d rows, want exactly the %d written (first difference: %s)", len(got), len(r.model), firstDiff(got, r.model))
	}
	return fmt.Sprintf("%d rows", len(rows)), nil
}

func firstDiff(got, want map[string]uint64) string {
	for _, a := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[a]; !ok || g != want[a] {
			return fmt.Sprintf("%s = %d (present %t), want %d", a, g, ok, want[a])
		}
	}
	for _, a := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[a]; !ok {
			return fmt.Sprintf("%s was never written", a)
		}
	}
	return "none"
}

func (r *run) events(ctx context.Context, tx string, want ...string) (string, error) {
	if r.s.Events == nil {
		return "", skip("this VM's events are not read here")
	}
	if tx == "" {
		return "", skip("no tx to read events from")
	}
	names, err := r.s.Events(ctx, tx)
	if err != nil {
		return "", fmt.Errorf("read events of %s: %w", tx, err)
	}
	for _, w := range want {
		if !slices.Contains(names, w) {
			return "", fmt.Errorf("tx %s emitted %v, missing %s", tx, names, w)
		}
	}
	return fmt.Sprintf("%v", want), nil
}

func (r *run) updateEvents(ctx context.Context) (string, error) {
	return r.events(ctx, r.updateTx, spec(r.s.Scorer.VM()).Events["update"]...)
}

func (r *run) finalizeEvents(ctx context.Context) (string, error) {
	if !r.finalized {
		return "", skip("the stage was not finalized")
	}
	return r.events(ctx, r.finalizeTx, spec(r.s.Scorer.VM()).Events["finalize"]...)
}

// refused checks that err is the contract's refusal named want (any contract refusal when
// the VM has no name for it).
func (r *run) refused(what string, err error, want string) (string, error) {
	if err == nil {
		return "", fmt.Errorf("%s was accepted", what)
	}
	got := Reason(err)
	switch {
	case got == "":
		return "", fmt.Errorf("%s failed without a contract error (a panic or a chain error instead of the interface's refusal): %v", what, err)
	case want != "" && got != want:
		return "", fmt.Errorf("%s was refused with %s, want %s", what, got, want)
	}
	return "refused: " + got, nil
}

func (r *run) unauthorized(ctx context.Context) (string, error) {
	if r.s.Stranger == nil {
		return "", skip("no second account to act as a stranger")
	}
	stranger, err := r.s.Stranger(ctx, r.s.Scorer.Contract())
	if err != nil {
		return "", fmt.Errorf("open the stranger's scorer: %w", err)
	}
	_, err = stranger.UpdateScores(ctx, r.stage, r.s.Generate(3, 7))
	note, err := r.refused("an update by a sender not on the allow list", err, r.want["not allowed"])
	if err != nil {
		return "", err
	}
	_, ferr := stranger.FinalizeStage(ctx, r.stage)
	if _, err := r.refused("a finalize by a sender not on the allow list", ferr, r.want["not allowed"]); err != nil {
		return "", err
	}
	return note, nil
}

func (r *run) missingStage(ctx context.Context) (string, error) {
	_, err := r.s.Scorer.UpdateScores(ctx, r.stage+3, r.s.Generate(2, 8))
	return r.refused(fmt.Sprintf("an update of stage %d, which does not exist", r.stage+3), err, r.want["missing stage"])
}

func (r *run) stageZero(ctx context.Context) (string, error) {
	_, err := r.s.Scorer.UpdateScores(ctx, 0, r.s.Generate(2, 9))
	return r.refused("an update of stage 0", err, "")
}

func (r *run) mismatch(ctx context.Context) (string, error) {
	if r.s.Mismatch == nil {
		return "", skip("%s updates take [address, score] pairs, so the lists cannot differ in length", r.s.Scorer.VM())
	}
	return r.refused("an update with 2 addresses and 1 score", r.s.Mismatch(ctx, r.stage), r.want["length mismatch"])
}

func (r *run) finalize(ctx context.Context) (string, error) {
	rows, err := r.s.Scorer.Scores(ctx, r.stage)
	if err != nil {
		return "", fmt.Errorf("read stage %d before finalizing: %w", r.stage, err)
	}
	tx, err := r.s.Scorer.FinalizeStage(ctx, r.stage)
	if err != nil {
		return "", fmt.Errorf("finalize stage %d: %w", r.stage, err)
	}
	r.finalized, r.finalizeTx, r.finalizedRows = true, tx, rows
	info, err := r.s.Scorer.StageInfo(ctx, r.stage)
	if err != nil {
		return "", fmt.Errorf("read stage %d: %w", r.stage, err)
	}
	if !info.Finalized {
		return "", fmt.Errorf("stage %d is not finalized after its finalize tx %s", r.stage, tx)
	}
	if info.TotalScore != r.modelTotal() {
		return "", fmt.Errorf("finalized stage %d total is %d, want %d", r.stage, info.TotalScore, r.modelTotal())
	}
	return "tx " + tx, nil
}

func (r *run) needFinalized() error {
	if !r.finalized {
		return skip("the stage was not finalized")
	}
	return nil
}

func (r *run) nextStage(ctx context.Context) (string, error) {
	if err := r.needFinalized(); err != nil {
		return "", err
	}
	next := r.stage + 1
	open, err := r.s.Scorer.OpenStage(ctx)
	if err != nil {
		return "", fmt.Errorf("read the open stage: %w", err)
	}
	if open != next {
		return "", fmt.Errorf("open stage after finalizing %d is %d, want %d", r.stage, open, next)
	}
	info, err := r.s.Scorer.StageInfo(ctx, next)
	if err != nil {
		return "", fmt.Errorf("read stage %d: %w", next, err)
	}
	if want := (vip.StageInfo{Stage: next, Exists: true}); info != want {
		return "", fmt.Errorf("stage %d after finalizing %d is %+v, want %+v (open, empty)", next, r.stage, info, want)
	}
	rows, err := r.s.Scorer.Scores(ctx, next)
	if err != nil {
		return "", fmt.Errorf("read stage %d: %w", next, err)
	}
	if len(rows) != 0 {
		return "", fmt.Errorf("new stage %d already holds %d scores", next, len(rows))
	}
	return "", nil
}

func (r *run) finalizedUpdate(ctx context.Context) (string, error) {
	if err := r.needFinalized(); err != nil {
		return "", err
	}
	_, err := r.s.Scorer.UpdateScores(ctx, r.stage, r.s.Generate(2, 10))
	return r.refused(fmt.Sprintf("an update of finalized stage %d", r.stage), err, r.want["finalized"])
}

// refinalize writes to the next stage, finalizes the finalized stage again, and checks that
// nothing moved: a refusal passes, and so does an accepted call that changes nothing.
func (r *run) refinalize(ctx context.Context) (string, error) {
	if err := r.needFinalized(); err != nil {
		return "", err
	}
	next := r.stage + 1
	if _, err := r.s.Scorer.UpdateScores(ctx, next, r.s.Generate(2, 11)); err != nil {
		return "", fmt.Errorf("write stage %d before the re-finalize: %w", next, err)
	}
	type snap struct {
		open uint64
		info vip.StageInfo
		rows []scores.Entry
	}
	take := func() (snap, error) {
		var s snap
		var err error
		if s.open, err = r.s.Scorer.OpenStage(ctx); err != nil {
			return s, err
		}
		if s.info, err = r.s.Scorer.StageInfo(ctx, next); err != nil {
			return s, err
		}
		s.rows, err = r.s.Scorer.Scores(ctx, next)
		return s, err
	}
	before, err := take()
	if err != nil {
		return "", fmt.Errorf("read stage %d: %w", next, err)
	}
	_, ferr := r.s.Scorer.FinalizeStage(ctx, r.stage)
	after, err := take()
	if err != nil {
		return "", fmt.Errorf("read stage %d after the re-finalize: %w", next, err)
	}
	switch {
	case after.open != before.open:
		return "", fmt.Errorf("re-finalizing stage %d moved the open stage from %d to %d", r.stage, before.open, after.open)
	case after.info != before.info:
		return "", fmt.Errorf("re-finalizing stage %d changed stage %d from %+v to %+v", r.stage, next, before.info, after.info)
	case !slices.Equal(after.rows, before.rows):
		return "", fmt.Errorf("re-finalizing stage %d changed the scores of stage %d (%d rows before, %d after)", r.stage, next, len(before.rows), len(after.rows))
	}
	if ferr == nil {
		return "accepted and changed nothing (as the official EVM contract does)", nil
	}
	if name := Reason(ferr); name != "" {
		return "refused: " + name, nil
	}
	return "", fmt.Errorf("re-finalize failed without a contract error (a panic or a chain error instead of a refusal): %v", ferr)
}

func (r *run) finalizedScores(ctx context.Context) (string, error) {
	if err := r.needFinalized(); err != nil {
		return "", err
	}
	rows, err := r.s.Scorer.Scores(ctx, r.stage)
	if err != nil {
		return "", fmt.Errorf("read stage %d: %w", r.stage, err)
	}
	if !slices.Equal(rows, r.finalizedRows) {
		return "", fmt.Errorf("finalized stage %d changed: %d rows when finalized, %d now", r.stage, len(r.finalizedRows), len(rows))
	}
	return "", nil
}

// spec is the VM's Spec: the official names its refusals and events carry (zero for a VM
// this build does not know, whose checks then find no names).
func spec(vm vip.VM) vip.Spec {
	s, _ := vip.Describe(vm)
	return s
}
