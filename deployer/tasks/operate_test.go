package tasks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/deployertest"
	"github.com/vipharness/vipharness/deployer/operation/operate"
	"github.com/vipharness/vipharness/deployer/policy"
)

func TestOperateOptionsValidated(t *testing.T) {
	src := &operate.FileSource{Path: "scores.csv"}
	good := OperateOptions{Source: src, Store: Store{Dir: "state"}}
	for _, tc := range []struct {
		name  string
		edit  func(*OperateOptions)
		field string
	}{
		{"defaults", func(*OperateOptions) {}, ""},
		{"no source", func(o *OperateOptions) { o.Source = nil }, "Source"},
		{"no store", func(o *OperateOptions) { o.Store.Dir = "" }, "Store.Dir"},
		{"a negative interval", func(o *OperateOptions) { o.Every = -time.Second }, "Every"},
		{"a negative poll", func(o *OperateOptions) { o.Poll = -time.Second }, "Poll"},
		{"a backoff below the poll", func(o *OperateOptions) { o.Poll, o.MaxBackoff = time.Minute, time.Second }, "MaxBackoff"},
		{"a poll above the default backoff", func(o *OperateOptions) { o.Poll = time.Hour }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := good
			tc.edit(&o)
			got, err := o.Validated()
			if tc.field != "" {
				if !isConfigError(err, tc.field) {
					t.Fatalf("error %v; want field %s", err, tc.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Every <= 0 || got.Poll <= 0 || got.MaxBackoff < got.Poll {
				t.Fatalf("defaults not filled: %+v", got)
			}
		})
	}
	o, _ := good.Validated()
	if o.Every != operate.DefaultEvery || o.Poll != operate.DefaultPoll || o.MaxBackoff != operate.DefaultMaxBackoff {
		t.Fatalf("defaults %v %v %v", o.Every, o.Poll, o.MaxBackoff)
	}
}

// One operator per contract: a second is refused while the first holds the lock; one pass
// pushes the file's scores to the stage the L1 is at.
func TestOperatorLockAndPass(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "scores.csv")
	if err := os.WriteFile(file, []byte("address,score\n0x00000000000000000000000000000000000000a1,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := deployertest.New(1)
	o := OperateOptions{Source: &operate.FileSource{Path: file}, Store: Store{Dir: dir}}
	op, err := NewOperator(c, deployertest.NewL1(1), o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewOperator(c, deployertest.NewL1(1), o); !errors.Is(err, operate.ErrLocked) {
		t.Fatalf("a second operator: %v, want ErrLocked", err)
	}
	if err := op.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if info, _ := c.StageInfo(ctx, 1); info.TotalScore != 7 {
		t.Fatalf("stage 1 total %d after a pass, want 7", info.TotalScore)
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	op, err = NewOperator(c, deployertest.NewL1(1), o)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	op.Close()
}

// A policy source refuses its options at once, and takes the policy's outputs folder from
// the operator's store.
func TestPolicySource(t *testing.T) {
	if _, err := NewPolicySource(ComputeOptions{L1REST: "http://127.0.0.1:1", VIPModule: "0x1", JSONRPC: "http://127.0.0.1:2"}); !isConfigError(err, "Policy") {
		t.Fatalf("no policy: %v", err)
	}
	p := &policy.Policy{Name: "demo", VM: "evm"}
	ps, err := NewPolicySource(ComputeOptions{Policy: p, L1REST: "http://127.0.0.1:1", VIPModule: "0x1", JSONRPC: "http://127.0.0.1:2"})
	if err != nil {
		t.Fatal(err)
	}
	if ps.Policy() != p || !ps.PerStage() || ps.Changed(1) || ps.o.LogSpan != DefaultLogSpan {
		t.Fatalf("source %+v", ps)
	}
	dir := t.TempDir()
	op, err := NewOperator(deployertest.New(1), deployertest.NewL1(1), OperateOptions{Source: ps, Store: Store{Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	if want := (Store{Dir: dir}).PolicyDir(deployertest.New(1).Contract()); ps.dir != want || ps.codec == nil {
		t.Fatalf("outputs in %q, want %q", ps.dir, want)
	}
}
