package move_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

func TestSecondDeployNamesTheModuleUnderTheDeployer(t *testing.T) {
	ctx := context.Background()
	r := start(t)
	first, err := r.dial(t, deployer.Config{Deployer: cosmostx.SoftKey(r.keyA, "deployer key")}).Deploy(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	// A fresh journal: the module is found on the chain, not in a journal.
	r.journal = t.TempDir()
	s := r.dial(t, deployer.Config{Deployer: cosmostx.SoftKey(r.keyA, "deployer key")})
	seq := r.sequence(t, s, first.Deployer)
	again, err := s.Deploy(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if again.Status != vip.StatusAlready || again.Contract != first.Contract || again.InitStage != 3 {
		t.Fatalf("second deploy %+v, want already deployed at %s stage 3", again, first.Contract)
	}
	_, err = s.Deploy(ctx, 5, deployer.AnotherDeployment())
	if !errors.Is(err, vip.ErrOnePerDeployer) || !strings.Contains(err.Error(), "another deployer key") || strings.Contains(err.Error(), "EDEPLOYER_ALREADY_ADDED") {
		t.Fatalf("--new on Move: %v", err)
	}
	if got := r.sequence(t, s, first.Deployer); got != seq {
		t.Fatalf("sequence %d -> %d: a tx was sent", seq, got)
	}
}
