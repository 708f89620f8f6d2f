package wasm_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/vipwasm"
	wasmcontract "github.com/vipharness/vipharness/contracts/wasm"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/internal/throughput"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/wasm"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/process"
)

func wasmEngines() []localnet.Engine {
	// The embedded minitia at its default block time, and at a minitia's pace (500 ms).
	engines := []localnet.Engine{embedded.Engine{}, embedded.Engine{BlockTime: 500 * time.Millisecond}}
	if p := (process.Engine{}); p.Available(context.Background(), vip.Wasm) == nil {
		engines = append(engines, p)
	}
	return engines
}

func devScorer(b *testing.B, r localnet.Rollup) *deployer.Scorer {
	b.Helper()
	secret, _ := hex.DecodeString(r.Funded()[0].PrivateKey)
	ep := r.Endpoints()
	s, err := deployer.Open(context.Background(), deployer.Config{VM: vip.Wasm, CometRPC: ep.CometRPC, REST: ep.REST,
		Operator: cosmostx.SoftKey(&secp256k1.PrivKey{Key: secret}, "operator key"),
		Push:     deployer.PushConfig{JournalDir: b.TempDir(), Poll: 5 * time.Millisecond}})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkDeploy stores and instantiates the contract (simulate, sign, broadcast, wait for
// each), on the embedded dev node and, after `make nodes`, on wasmd.
func BenchmarkDeploy(b *testing.B) {
	for _, e := range wasmEngines() {
		b.Run(e.Name(), func(b *testing.B) {
			ctx := context.Background()
			r, err := e.StartRollup(ctx, vip.Wasm)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Stop(ctx)
			var gas uint64
			for b.Loop() {
				// Each round deploys another contract (after the first, on the code it stored).
				d, err := devScorer(b, r).Deploy(ctx, 1, deployer.AnotherDeployment())
				if err != nil {
					b.Fatal(err)
				}
				gas = d.GasUsed
			}
			b.ReportMetric(float64(gas), "gas")
			b.ReportMetric(float64(len(wasmcontract.Code())), "code-bytes")
		})
	}
}

// BenchmarkPushThroughput pushes the same number of new addresses twice on one chain in one
// run: through the deployer (validation, simulated gas model, fsynced journal, pipelined
// sequences, result checks), and as raw pre-signed update_scores txs of the same chunks
// broadcast back to back (the chain's own ceiling). The ratio is the deployer's overhead.
func BenchmarkPushThroughput(b *testing.B) {
	for _, e := range wasmEngines() {
		b.Run(e.Name(), func(b *testing.B) {
			ctx := context.Background()
			r, err := e.StartRollup(ctx, vip.Wasm)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Stop(ctx)
			benchPush(b, r)
		})
	}
}

func benchPush(b *testing.B, r localnet.Rollup) {
	const n = 5000
	ctx := context.Background()
	s := devScorer(b, r)
	if _, err := s.Deploy(ctx, 1); err != nil {
		b.Fatal(err)
	}
	prefix := s.Bech32Prefix()
	throughput.Push(b, n, func(seed int64) []scores.Entry { return scores.GenerateBech32(n, seed, prefix) },
		func(entries []scores.Entry) (push.Result, error) { return s.UpdateScores(ctx, 1, entries) },
		func(entries []scores.Entry, chunkSize int) error { return sendRaw(ctx, s, r, entries, chunkSize) })
}

// sendRaw signs every chunk up front (gas from one simulation), broadcasts them back to back
// and waits for the last; the clock includes signing, as the deployer's does.
func sendRaw(ctx context.Context, s *deployer.Scorer, r localnet.Rollup, entries []scores.Entry, size int) error {
	c := s.VMContract().(*wasm.Contract).C
	secret, _ := hex.DecodeString(r.Funded()[0].PrivateKey)
	signer, err := c.Signer(ctx, &secp256k1.PrivKey{Key: secret})
	if err != nil {
		return err
	}
	chunks := scores.Split(entries, size)
	msgs := make([]sdk.Msg, len(chunks))
	for i, ch := range chunks {
		pairs := make([]vipwasm.Score, len(ch))
		for j, e := range ch {
			pairs[j] = vipwasm.Score{Addr: e.Addr, Score: e.Amount}
		}
		bz, _ := json.Marshal(vipwasm.Execute{UpdateScores: &vipwasm.UpdateScores{Stage: 1, Scores: pairs}})
		msgs[i] = &wasmtypes.MsgExecuteContract{Sender: signer.Address, Contract: s.Contract(), Msg: bz}
	}
	sim, err := c.Simulate(ctx, signer, msgs[0])
	if err != nil {
		return err
	}
	gas := c.GasLimit(sim.GasInfo.GasUsed)
	var last string
	for i, m := range msgs {
		raw, err := c.SignAt(ctx, signer, signer.Sequence+uint64(i), gas, m)
		if err != nil {
			return err
		}
		if err := c.BroadcastSigned(ctx, raw); err != nil {
			return fmt.Errorf("raw chunk %d: %w", i, err)
		}
		last = fmt.Sprintf("%X", cmttypes.Tx(raw).Hash())
	}
	for {
		out, err := c.Lookup(ctx, last)
		if err != nil {
			return err
		}
		if out.Found {
			if !out.Success {
				return out.Err
			}
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}
