// Package chainbench_test benchmarks an audit against a live chain; it lives apart from
// deployer/operation/audit so that the in-memory benchmark's binary links no chain (its peak RSS).
package chainbench_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// BenchmarkAuditChain is the audit of a finalized stage on a live rollup (the embedded EVM
// chain, the contract's getScores pages over JSON-RPC) beside the read-back of the same
// stage alone: the floor an audit cannot beat. The stage is pushed once, untimed. Proofs go
// to io.Discard here (BenchmarkAudit times the file).
func BenchmarkAuditChain(b *testing.B) {
	ctx := context.Background()
	r, err := embedded.Engine{}.StartRollup(ctx, vip.EVM)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Stop(ctx)
	key, _ := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	for i, n := range []int{10_000, 100_000} {
		s, err := deployer.Open(ctx, deployer.Config{VM: vip.EVM, JSONRPC: r.Endpoints().JSONRPC, Operator: keys.FromECDSA(key, "operator key"), Push: deployer.PushConfig{JournalDir: b.TempDir(), Poll: 2 * time.Millisecond}})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Deploy(ctx, 1, deployer.AnotherDeployment()); err != nil {
			b.Fatal(err)
		}
		if _, err := s.UpdateScores(ctx, 1, scores.Generate(n, int64(i+1))); err != nil {
			b.Fatal(err)
		}
		if _, err := s.FinalizeStage(ctx, 1); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("readback/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				rows := 0
				if err := s.ScorePages(ctx, 1, func(p []scores.Row) error { rows += len(p); return nil }); err != nil || rows != n {
					b.Fatalf("%d rows, %v", rows, err)
				}
			}
		})
		b.Run(fmt.Sprintf("audit/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				tr, _, err := audit.BuildFromStage(ctx, s, 1, 1, false)
				if err != nil || tr.Len() != n {
					b.Fatalf("tree of %d, %v", tr.Len(), err)
				}
				if err := tr.WriteProofs(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
