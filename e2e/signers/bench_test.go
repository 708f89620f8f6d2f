package signers_test

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/embedded"
	standin "github.com/vipharness/vipharness/localnet/ledger"
)

// timed wraps a signer and adds up the time spent signing.
type timed struct {
	keys.Signer
	mu    sync.Mutex
	spent time.Duration
	n     int
}

func (t *timed) add(d time.Duration) {
	t.mu.Lock()
	t.spent += d
	t.n++
	t.mu.Unlock()
}

func (t *timed) SignEVMTx(ctx context.Context, tx *types.Transaction, id *big.Int) (*types.Transaction, error) {
	start := time.Now()
	defer func() { t.add(time.Since(start)) }()
	return t.Signer.SignEVMTx(ctx, tx, id)
}

func (t *timed) SignCosmos(ctx context.Context, b []byte) ([]byte, error) {
	start := time.Now()
	defer func() { t.add(time.Since(start)) }()
	return t.Signer.SignCosmos(ctx, b)
}

// BenchmarkPush pushes 5,000 new addresses through the deployer on each embedded VM, signing
// with the environment's key and with the Ledger stand-in (over the Speculos TCP protocol, a
// real device's confirmation time excluded): throughput, signing time per chunk, and APDUs
// per chunk on the device.
func BenchmarkPush(b *testing.B) {
	const n = 5000
	for _, vm := range []vip.VM{vip.EVM, vip.Wasm, vip.Move} {
		for _, kind := range []string{"env", "ledger"} {
			b.Run(string(vm)+"/"+kind, func(b *testing.B) {
				ctx := context.Background()
				env, err := harness.Start(ctx, harness.Target{VM: vm, Engine: embedded.Engine{}}, 1, b.TempDir())
				if err != nil {
					b.Skip(err)
				}
				defer env.Stop(ctx)
				var base keys.Signer
				var dev *standin.Server
				if kind == "env" {
					a, err := keys.FromHex(env.OperatorSecret())
					if err != nil {
						b.Fatal(err)
					}
					if base, err = a.Signer(env.KeyType()); err != nil {
						b.Fatal(err)
					}
				} else {
					mnemonic, _ := keys.NewMnemonic()
					if dev, err = standin.Start(mnemonic); err != nil {
						b.Fatal(err)
					}
					defer dev.Close()
					if base, err = keys.Open(ctx, keys.Operator, keys.Spec{Ledger: true, LedgerSpeculos: dev.Addr()}); err != nil {
						b.Fatal(err)
					}
					if err := env.Fund(ctx, base); err != nil {
						b.Fatal(err)
					}
				}
				s := &timed{Signer: base}
				sc, err := env.ScorerSigning(ctx, s, "")
				if err != nil {
					b.Fatal(err)
				}
				d, err := sc.Deploy(ctx, 1)
				if err != nil {
					b.Fatal(err)
				}
				if sc, err = env.ScorerSigning(ctx, s, d.Contract); err != nil {
					b.Fatal(err)
				}
				var rate, signPerChunk, apdusPerChunk, chunk float64
				for i := 0; b.Loop(); i++ {
					entries := env.Generate(n, int64(100+i))
					s.mu.Lock()
					s.spent, s.n = 0, 0
					s.mu.Unlock()
					apdus := 0
					if dev != nil {
						apdus = dev.Stats().APDUs
					}
					start := time.Now()
					res, err := sc.UpdateScores(ctx, 1, entries)
					if err != nil {
						b.Fatal(err)
					}
					rate = n / time.Since(start).Seconds()
					s.mu.Lock()
					signPerChunk = float64(s.spent.Microseconds()) / 1000 / float64(s.n)
					s.mu.Unlock()
					chunk = float64(n) / float64(res.Chunks)
					if dev != nil {
						apdusPerChunk = float64(dev.Stats().APDUs-apdus) / float64(res.Chunks)
					}
				}
				b.ReportMetric(rate, "addr/s")
				b.ReportMetric(signPerChunk, "sign-ms/chunk")
				b.ReportMetric(chunk, "addr/chunk")
				if dev != nil {
					b.ReportMetric(apdusPerChunk, "apdus/chunk")
				}
			})
		}
	}
}
