package move_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	cmttypes "github.com/cometbft/cometbft/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/internal/throughput"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/movevm"
	"github.com/vipharness/vipharness/localnet/process"
)

func benchRollup(b *testing.B, nodeOpts ...embedded.MoveOption) (*embedded.MoveRollup, func(code []byte) *deployer.Scorer) {
	b.Helper()
	ctx := context.Background()
	r, err := embedded.StartMove(ctx, nodeOpts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Stop(ctx) })
	return r, scorerDialer(b, r)
}

// moveEngines are the engines the push benchmark runs on: the embedded dev node and, after
// `make nodes`, the dev node binary as a child process.
func moveEngines() []localnet.Engine {
	// The embedded minitia at its default block time, and at a minitia's pace (500 ms).
	engines := []localnet.Engine{embedded.Engine{}, embedded.Engine{BlockTime: 500 * time.Millisecond}}
	if p := (process.Engine{}); p.Available(context.Background(), vip.Move) == nil {
		engines = append(engines, p)
	}
	return engines
}

// scorerDialer dials Scorers of r's chain for its first funded key.
func scorerDialer(b *testing.B, r localnet.Rollup) func(code []byte) *deployer.Scorer {
	b.Helper()
	ctx := context.Background()
	secret, _ := hex.DecodeString(r.Funded()[0].PrivateKey)
	key, err := keys.PrivKeyFromBytes(secret, vip.EthSecp256k1)
	if err != nil {
		b.Fatal(err)
	}
	// The rollup funds fresh accounts: vip_score is compiled for the deployer's address.
	comp, err := movevm.OpenCompiler(movevm.Dir())
	if err != nil {
		b.Fatal(err)
	}
	dial := func(code []byte) *deployer.Scorer {
		ep := r.Endpoints()
		s, err := deployer.Open(ctx, deployer.Config{VM: vip.Move, CometRPC: ep.CometRPC, REST: ep.REST,
			Operator: cosmostx.SoftKey(key, "operator key"), Code: code,
			Push: deployer.PushConfig{JournalDir: b.TempDir(), Poll: 5 * time.Millisecond},
			Move: deployer.MoveConfig{Build: move.Builder(comp)}})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	return dial
}

// BenchmarkPublish deploys vip_score on the embedded Move rollup: one tx that publishes the
// module (prebuilt for the key), adds the deployer and sets the initial stage.
func BenchmarkPublish(b *testing.B) {
	// One key for every round: a module is published once per address, so each round gets a
	// fresh chain funding the same account.
	mnemonic, err := minitia.NewMnemonic()
	if err != nil {
		b.Fatal(err)
	}
	acct, err := minitia.DeriveAccount(mnemonic, vip.EthSecp256k1, "init")
	if err != nil {
		b.Fatal(err)
	}
	comp, err := movevm.OpenCompiler(movevm.Dir())
	if err != nil {
		b.Fatal(err)
	}
	built, err := movecontract.Compile(context.Background(), comp, movebcs.AccountAddress(acct.Key.PubKey().Address()))
	if err != nil {
		b.Fatal(err)
	}
	var gas uint64
	for b.Loop() {
		b.StopTimer()
		_, dial := benchRollup(b, func(c *minitia.Config) { c.Mnemonics, c.GeneratedAccounts = []string{mnemonic}, -1 })
		s := dial(built.VipScore)
		b.StartTimer()
		d, err := s.Deploy(context.Background(), 1)
		if err != nil {
			b.Fatal(err)
		}
		gas = d.GasUsed
	}
	b.ReportMetric(float64(gas), "gas")
	b.ReportMetric(float64(len(built.VipScore)), "module-bytes")
}

// BenchmarkPushThroughput pushes the same number of new addresses twice on one chain in one
// run: through the deployer (validation, simulated gas model, fsynced journal, pipelined
// sequences, result checks), and as raw pre-signed update_score_script txs of the same chunks
// broadcast back to back (the node's own ceiling). The ratio is the deployer's overhead.
func BenchmarkPushThroughput(b *testing.B) {
	for _, e := range moveEngines() {
		b.Run(e.Name(), func(b *testing.B) {
			ctx := context.Background()
			r, err := e.StartRollup(ctx, vip.Move)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Stop(ctx)
			benchPush(b, r, scorerDialer(b, r))
		})
	}
}

func benchPush(b *testing.B, r localnet.Rollup, dial func(code []byte) *deployer.Scorer) {
	const n = 5000
	ctx := context.Background()
	s := dial(nil) // vip_score is compiled for the funded key by the dialer's compiler
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
	c := s.VMContract().(*move.Contract).C
	secret, _ := hex.DecodeString(r.Funded()[0].PrivateKey)
	key, err := keys.PrivKeyFromBytes(secret, vip.EthSecp256k1)
	if err != nil {
		return err
	}
	signer, err := c.Signer(ctx, key)
	if err != nil {
		return err
	}
	chunks := scores.Split(entries, size)
	codec := s.Codec() // the fastest bech32 decoder the project has, as the deployer's
	msgs := make([]sdk.Msg, len(chunks))
	for i, ch := range chunks {
		addrs := make([]movebcs.Address, len(ch))
		amounts := make([]uint64, len(ch))
		for j, e := range ch {
			bz, err := codec.Decode(e.Addr)
			if err != nil {
				return err
			}
			addrs[j], amounts[j] = movebcs.AccountAddress(bz), e.Amount
		}
		msgs[i] = &initiamove.MsgExecute{Sender: signer.Address, ModuleAddress: s.Contract(), ModuleName: move.ModuleName,
			FunctionName: "update_score_script", Args: [][]byte{movebcs.ArgU64(1), movebcs.ArgAddresses(addrs), movebcs.ArgU64s(amounts)}}
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
