package deployer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
)

// fakeContract is a contract whose stages and limits the test sets; it records what the
// core asked it.
type fakeContract struct {
	addr     string
	fits     int
	cap      int
	init     uint64
	stages   map[uint64]vip.StageInfo
	prepared []int // sizes of the canonical inputs PrepareUpdate saw
	// notScoring fails the interface check; refuse is the contract's refusal of a write,
	// and wrote the stages writes were simulated on.
	notScoring, refuse error
	wrote              []uint64
}

func (f *fakeContract) CheckInterface(context.Context) (string, error) {
	return "the official interface", f.notScoring
}
func (f *fakeContract) SimulateWrite(_ context.Context, stage uint64) error {
	f.wrote = append(f.wrote, stage)
	return f.refuse
}
func (f *fakeContract) FinalizeTx(context.Context, uint64) (string, error) { return "", nil }

func (f *fakeContract) VM() vip.VM               { return vip.EVM }
func (f *fakeContract) ChainID() string          { return "1" }
func (f *fakeContract) Bech32Prefix() string     { return "" }
func (f *fakeContract) Attach(addr string) error { f.addr = addr; return nil }
func (f *fakeContract) Close()                   {}
func (f *fakeContract) DeployChain(context.Context) (deployer.Deploying, error) {
	return deployer.Deploying{}, errors.New("fake: no deploy")
}
func (f *fakeContract) FinalizeStage(context.Context, uint64) (string, error) {
	return "", errors.New("fake: no finalize")
}
func (f *fakeContract) Contract() string     { return f.addr }
func (f *fakeContract) JournalChain() string { return "fake-1" }
func (f *fakeContract) Codec() scores.Codec  { return scores.EVMCodec{} }
func (f *fakeContract) PrepareUpdate(_ context.Context, stage uint64, set *scores.Set) (deployer.Update, error) {
	f.prepared = append(f.prepared, set.Len())
	return deployer.Update{Fits: f.fits, Cap: f.cap, Limit: "fake gas limit 100 (~10 gas per entry)",
		Gas: func(n int) uint64 { return uint64(10 * n) }}, nil
}
func (f *fakeContract) StageInfo(_ context.Context, stage uint64) (vip.StageInfo, error) {
	info, ok := f.stages[stage]
	if !ok {
		return vip.StageInfo{Stage: stage}, nil
	}
	return info, nil
}
func (f *fakeContract) InitStage(context.Context) (uint64, error) { return f.init, nil }
func (f *fakeContract) ScorePages(context.Context, uint64, func([]scores.Row) error) error {
	return nil
}

func TestScorerSizesChunksFromTheContractsLimits(t *testing.T) {
	entries := scores.Generate(25, 1)
	for _, tc := range []struct {
		name       string
		fits, cap  int
		chunkSize  int
		wantChunks int
		wantSize   int
		wantErr    string
	}{
		{name: "limits decide", fits: 10, wantChunks: 3, wantSize: 10},
		{name: "cap below limits", fits: 10, cap: 5, wantChunks: 5, wantSize: 5},
		{name: "chosen size within limits", fits: 10, chunkSize: 4, wantChunks: 7, wantSize: 4},
		{name: "chosen size over limits", fits: 10, chunkSize: 11, wantErr: "chunk size 11 does not fit the fake gas limit 100 (~10 gas per entry): at most 10 entries per tx"},
		{name: "nothing fits", fits: 0, wantErr: "one entry does not fit the fake gas limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeContract{addr: "0xc0", fits: tc.fits, cap: tc.cap}
			core := scorerOf(t, f, deployer.PushConfig{JournalDir: t.TempDir(), ChunkSize: tc.chunkSize})
			plan, err := core.Plan(context.Background(), 3, entries)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || plan.Chunks != tc.wantChunks || plan.ChunkSize != tc.wantSize || plan.Entries != 25 || plan.EstimatedGas != 250 {
				t.Fatalf("plan %+v, %v", plan, err)
			}
		})
	}
}

func TestScorerValidatesBeforeAskingTheChain(t *testing.T) {
	f := &fakeContract{addr: "0xc0", fits: 10}
	core := scorerOf(t, f, deployer.PushConfig{JournalDir: t.TempDir()})
	bad := []scores.Entry{{Addr: "0x1111111111111111111111111111111111111111", Amount: 1}, {Addr: "not-an-address", Amount: 2}}
	if _, err := core.Plan(context.Background(), 3, bad); err == nil || !strings.Contains(err.Error(), "update scores stage 3") {
		t.Fatalf("bad input: %v", err)
	}
	if _, err := core.UpdateScores(context.Background(), 3, bad); err == nil {
		t.Fatal("bad input pushed")
	}
	if len(f.prepared) != 0 {
		t.Fatalf("the chain was measured for invalid input %v", f.prepared)
	}
	none := scorerOf(t, &fakeContract{}, deployer.PushConfig{JournalDir: t.TempDir()})
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"plan":     func() error { _, err := none.Plan(ctx, 3, scores.Generate(2, 1)); return err },
		"finalize": func() error { _, err := none.FinalizeStage(ctx, 3); return err },
		"stage":    func() error { _, err := none.StageInfo(ctx, 3); return err },
		"pages":    func() error { return none.ScorePages(ctx, 3, func([]scores.Row) error { return nil }) },
		"open":     func() error { _, err := none.OpenStage(ctx); return err },
	} {
		if err := call(); !errors.Is(err, vip.ErrNoContract) {
			t.Fatalf("%s with no contract: %v", name, err)
		}
	}
}

func TestScorerOpenStageWalksPastFinalizedStages(t *testing.T) {
	f := &fakeContract{addr: "0xc0", init: 4, stages: map[uint64]vip.StageInfo{
		4: {Stage: 4, Exists: true, Finalized: true},
		5: {Stage: 5, Exists: true, Finalized: true},
		6: {Stage: 6, Exists: true},
	}}
	core := scorerOf(t, f, deployer.PushConfig{})
	if st, err := core.OpenStage(context.Background()); err != nil || st != 6 {
		t.Fatalf("open stage %d, %v", st, err)
	}
	f.stages[6] = vip.StageInfo{Stage: 6, Exists: true, Finalized: true}
	if _, err := core.OpenStage(context.Background()); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("stage %d does not exist", 7)) {
		t.Fatalf("every stage finalized and no next: %v", err)
	}
}

// A journal written before pushes went in canonical order is found by the set's old
// fingerprint: finished, it stands for the push (nothing is sent); unfinished, the push is
// refused, since this one cuts other chunks; another input's is no concern.
func TestScorerOlderJournals(t *testing.T) {
	entries := scores.Generate(25, 1)
	set, err := scores.NewSet(entries, scores.EVMCodec{})
	if err != nil {
		t.Fatal(err)
	}
	write := func(dir, input string, confirmed int) string {
		path := journal.Key{ChainID: "fake-1", Contract: "0xc0", Stage: 3, Input: input}.Path(dir)
		j, err := journal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		recs := []journal.Record{{Op: journal.OpBegin, Stage: 3, Input: input, Chunks: 3, ChunkSize: 10}}
		for i := range confirmed {
			hash := fmt.Sprintf("0x%02d", i)
			recs = append(recs, journal.Record{Op: journal.OpSigned, Chunk: i, Hash: hash, Raw: "00"}, journal.Record{Op: journal.OpConfirmed, Chunk: i, Hash: hash})
		}
		for _, r := range recs {
			if err := j.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	ctx := context.Background()
	core := func(dir string) *deployer.Scorer {
		return scorerOf(t, &fakeContract{addr: "0xc0", fits: 7}, deployer.PushConfig{JournalDir: dir})
	}

	dir := t.TempDir()
	done := write(dir, set.LegacyFingerprint(), 3)
	res, err := core(dir).UpdateScores(ctx, 3, entries) // the fake has no chain: a push would panic
	if err != nil || res.Resumed != 3 || res.Chunks != 3 || res.Journal != done || res.Hashes[2] != "0x02" {
		t.Fatalf("finished older journal: %+v, %v", res, err)
	}
	plan, err := core(dir).PlanSet(ctx, 3, set)
	if err != nil || plan.AlreadyDone != 3 || plan.Journal != done {
		t.Fatalf("plan beside a finished older journal: %+v, %v", plan, err)
	}

	dir = t.TempDir()
	half := write(dir, set.LegacyFingerprint(), 2)
	if _, err := core(dir).UpdateSet(ctx, 3, set); err == nil || !strings.Contains(err.Error(), "unfinished push") || !strings.Contains(err.Error(), half) {
		t.Fatalf("unfinished older journal: %v", err)
	}

	dir = t.TempDir()
	write(dir, scores.Fingerprint(scores.Generate(25, 2)), 1)
	plan, err = core(dir).PlanSet(ctx, 3, set)
	if err != nil || plan.AlreadyDone != 0 || plan.Chunks != 4 || !strings.Contains(plan.Journal, set.Fingerprint()[:16]) {
		t.Fatalf("another input's older journal: %+v, %v", plan, err)
	}
}

// The interface check proves, before anything is sent, that the contract speaks the
// interface and that an empty update of its open stage from the operator is accepted.
func TestCheckInterfaceProvesTheOperatorMayWrite(t *testing.T) {
	ctx := context.Background()
	stages := map[uint64]vip.StageInfo{3: {Stage: 3, Exists: true, Finalized: true}, 4: {Stage: 4, Exists: true}}
	for _, tc := range []struct {
		name       string
		notScoring error
		refuse     error
		want       error // nil: passes
		wrote      []uint64
	}{
		{"a writer", nil, nil, nil, []uint64{4}},
		{"another contract", errors.New("no contract code"), nil, vip.ErrNotScoring, nil},
		{"a stranger", nil, errors.New("PermissionDenied"), vip.ErrCannotWrite, []uint64{4}},
		{"no key", nil, &vip.MissingKeyError{Role: "operator"}, vip.ErrNoSigner, []uint64{4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeContract{addr: "0xc0", init: 3, stages: stages, notScoring: tc.notScoring, refuse: tc.refuse}
			what, err := scorerOf(t, c, deployer.PushConfig{}).CheckInterface(ctx)
			switch {
			case tc.want == nil && (err != nil || !strings.Contains(what, "may write stage 4")):
				t.Fatalf("%q, %v; want a pass naming stage 4", what, err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Fatalf("%v; want %v", err, tc.want)
			case tc.want == vip.ErrCannotWrite && !strings.Contains(err.Error(), "PermissionDenied"):
				t.Fatalf("%v does not say why", err)
			}
			if !slices.Equal(c.wrote, tc.wrote) {
				t.Fatalf("simulated writes to stages %v, want %v", c.wrote, tc.wrote)
			}
		})
	}
	if _, err := scorerOf(t, &fakeContract{}, deployer.PushConfig{}).CheckInterface(ctx); !errors.Is(err, vip.ErrNoContract) {
		t.Fatalf("no contract: %v", err)
	}
}

// scorerOf is the Scorer of c, pushing with p.
func scorerOf(t testing.TB, c deployer.Contract, p deployer.PushConfig) *deployer.Scorer {
	t.Helper()
	s, err := deployer.OpenWith(context.Background(), deployer.Config{Push: p}, func(context.Context, deployer.Config) (deployer.Contract, error) {
		return c, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
