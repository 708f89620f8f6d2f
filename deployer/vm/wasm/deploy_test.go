package wasm_test

import (
	"context"
	"testing"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

func TestSecondDeployIsAlreadyDeployedAndSendsNothing(t *testing.T) {
	ctx := context.Background()
	r := start(t)
	s := r.dial(t, deployer.Config{Deployer: cosmostx.SoftKey(r.keyA, "deployer key")})
	first, err := s.Deploy(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	seq := r.sequence(t, s, first.Deployer)
	again, err := r.dial(t, deployer.Config{Deployer: cosmostx.SoftKey(r.keyA, "deployer key")}).Deploy(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if again.Status != vip.StatusAlready || again.Contract != first.Contract || again.InitStage != 3 || again.CodeID != first.CodeID {
		t.Fatalf("second deploy %+v, want already deployed at %s stage 3", again, first.Contract)
	}
	if got := r.sequence(t, s, first.Deployer); got != seq {
		t.Fatalf("sequence %d -> %d: the second deploy sent a tx", seq, got)
	}
}

func TestDeployReusesCodeStoredWithTheSameChecksum(t *testing.T) {
	ctx := context.Background()
	r := start(t)
	a, err := r.dial(t, deployer.Config{Deployer: cosmostx.SoftKey(r.keyA, "deployer key")}).Deploy(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Another deployer: its own contract, on the code the first one stored.
	sb := r.dial(t, deployer.Config{Deployer: cosmostx.SoftKey(r.keyB, "deployer key")})
	b, err := sb.Deploy(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != vip.StatusDeployed || b.Contract == a.Contract || b.CodeID != a.CodeID {
		t.Fatalf("second deployer got %+v; want a new contract on code %d", b, a.CodeID)
	}
	if got := r.sequence(t, sb, b.Deployer); got != 1 {
		t.Fatalf("second deployer's sequence %d, want 1 (instantiate only, no store)", got)
	}
}
