package tasks

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/deployertest"
	"github.com/vipharness/vipharness/deployer/vip"
)

// fakeDeployer deploys at the stage it is asked, or reports an earlier deployment.
type fakeDeployer struct {
	earlier uint64 // an earlier run's deployment at this stage (0: none)
	asked   uint64
	closed  bool
}

func (f *fakeDeployer) Deploy(_ context.Context, st uint64, _ ...deployer.DeployOption) (vip.Deployment, error) {
	f.asked = st
	d := vip.Deployment{VM: vip.EVM, ChainID: "1", Contract: "0xc0", InitStage: st, Status: vip.StatusDeployed}
	if f.earlier != 0 {
		d.InitStage, d.Status = f.earlier, vip.StatusAlready
	}
	return d, nil
}

func (f *fakeDeployer) FirstBlock(context.Context) (string, error) { return "ab", nil }

func TestDeployOptionsValidated(t *testing.T) {
	open := func(context.Context) (Deployer, func(), error) { return nil, nil, nil }
	for _, tc := range []struct {
		name  string
		o     DeployOptions
		field string
	}{
		{"a stage", DeployOptions{Stage: 3, Open: open, Store: Store{Dir: "x"}}, ""},
		{"the L1's", DeployOptions{L1: deployertest.NewL1(2), Open: open, Store: Store{Dir: "x"}}, ""},
		{"no stage, no L1", DeployOptions{Open: open, Store: Store{Dir: "x"}}, "Stage or L1"},
		{"nothing to open", DeployOptions{Stage: 3, Store: Store{Dir: "x"}}, "Open"},
		{"no store", DeployOptions{Stage: 3, Open: open}, "Store.Dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.o.Validated()
			var ce *deployer.ConfigError
			switch {
			case tc.field == "" && err != nil:
				t.Fatal(err)
			case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field):
				t.Fatalf("error %v; want a ConfigError of %s", err, tc.field)
			}
		})
	}
}

// The stage asked wins over the L1's; the deployment the run ends with is remembered, and
// the stage asked is reported beside an earlier run's.
func TestDeployStageAndStore(t *testing.T) {
	for _, tc := range []struct {
		name             string
		stage, l1        uint64
		earlier, deploys uint64
	}{
		{"the stage asked", 5, 9, 0, 5},
		{"the L1's", 0, 9, 0, 9},
		{"an earlier run's", 4, 0, 2, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fd := &fakeDeployer{earlier: tc.earlier}
			o := DeployOptions{Stage: tc.stage, Store: Store{Dir: t.TempDir()},
				Open: func(context.Context) (Deployer, func(), error) { return fd, func() { fd.closed = true }, nil }}
			if tc.l1 != 0 {
				o.L1 = deployertest.NewL1(tc.l1)
			}
			d, err := Deploy(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if fd.asked != tc.deploys || d.Asked != tc.deploys || !fd.closed {
				t.Fatalf("deployed at %d, asked %d, closed %v; want %d", fd.asked, d.Asked, fd.closed, tc.deploys)
			}
			got, err := o.Store.Load(vip.EVM, "1")
			if err != nil || got.InitStage != d.InitStage || got.FirstBlock != "ab" {
				t.Fatalf("remembered %+v, %v", got, err)
			}
		})
	}
}

// An L1 that cannot be read dials nothing.
func TestDeployL1Unreadable(t *testing.T) {
	l1 := deployertest.NewL1(1)
	l1.Err = errors.New("down")
	opened := false
	_, err := Deploy(context.Background(), DeployOptions{L1: l1, Store: Store{Dir: t.TempDir()},
		Open: func(context.Context) (Deployer, func(), error) { opened = true; return nil, nil, errors.New("no") }})
	if err == nil || !strings.Contains(err.Error(), "read L1 stage: down") || opened {
		t.Fatalf("error %v, opened %v", err, opened)
	}
}
