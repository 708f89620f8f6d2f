package resume_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	cmttypes "github.com/cometbft/cometbft/types"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/bindings/vipwasm"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// devRollup is an embedded Cosmos rollup whose blocks the spec reads back.
type devRollup interface {
	localnet.Rollup
	Height() int64
}

// cosmosCrash is what differs between the Cosmos VMs in the crash spec.
type cosmosCrash struct {
	vm       string
	start    func(context.Context) (devRollup, error)
	register func(codectypes.InterfaceRegistry)
	// updated is the addresses a message of the scoring contract's update carries.
	updated func(m sdk.Msg, contract, prefix string) ([]string, bool)
	scorer  func(ctx context.Context, ep localnet.Endpoints, contract string) (*deployer.Scorer, error)
}

var _ = cosmosCrashSpec(cosmosCrash{
	vm:       "wasm",
	start:    func(ctx context.Context) (devRollup, error) { return embedded.StartWasm(ctx) },
	register: wasmtypes.RegisterInterfaces,
	updated: func(m sdk.Msg, contract, _ string) ([]string, bool) {
		exec, ok := m.(*wasmtypes.MsgExecuteContract)
		if !ok || exec.Contract != contract {
			return nil, false
		}
		var msg vipwasm.Execute
		Expect(json.Unmarshal(exec.Msg, &msg)).To(Succeed())
		if msg.UpdateScores == nil {
			return nil, false
		}
		var out []string
		for _, p := range msg.UpdateScores.Scores {
			out = append(out, p.Addr)
		}
		return out, true
	},
	scorer: func(ctx context.Context, ep localnet.Endpoints, contract string) (*deployer.Scorer, error) {
		return deployer.Open(ctx, deployer.Config{VM: vip.Wasm, CometRPC: ep.CometRPC, REST: ep.REST, Contract: contract})
	},
})

var _ = cosmosCrashSpec(cosmosCrash{
	vm:       "move",
	start:    func(ctx context.Context) (devRollup, error) { return embedded.StartMove(ctx) },
	register: initiamove.RegisterInterfaces,
	updated: func(m sdk.Msg, contract, prefix string) ([]string, bool) {
		exec, ok := m.(*initiamove.MsgExecute)
		if !ok || exec.ModuleAddress != contract || exec.FunctionName != "update_score_script" {
			return nil, false
		}
		// args: stage, vector<address>, vector<u64>
		addrs, err := movebcs.ParseArgAddresses(exec.Args[1])
		Expect(err).NotTo(HaveOccurred())
		var out []string
		for _, a := range addrs {
			s, err := bech32.ConvertAndEncode(prefix, a.AccountBytes())
			Expect(err).NotTo(HaveOccurred())
			out = append(out, s)
		}
		return out, true
	},
	scorer: func(ctx context.Context, ep localnet.Endpoints, contract string) (*deployer.Scorer, error) {
		return deployer.Open(ctx, deployer.Config{VM: vip.Move, CometRPC: ep.CometRPC, REST: ep.REST, Contract: contract})
	},
})

// The crash test on a Cosmos rollup: vipctl killed with SIGKILL at several points of one
// push, then run again until it completes; every address lands in exactly one successful
// update tx.
func cosmosCrashSpec(t cosmosCrash) bool {
	return Describe("a "+t.vm+" push killed with SIGKILL", Label(t.vm, "embedded", "crash"), func() {
		It("resumes from its journal and lands every chunk exactly once", func(ctx SpecContext) {
			const stage, n, chunk = 3, 5000, 100
			r, err := t.start(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func(ctx SpecContext) { Expect(r.Stop(ctx)).To(Succeed()) })
			ep := r.Endpoints()
			dev := r.Funded()[0]

			// Deploy through vipctl too, with the mnemonic from the environment (the VM's path).
			dir := GinkgoT().TempDir()
			stateDir := filepath.Join(dir, "state")
			env := append(os.Environ(), "VM="+t.vm, "COMET_RPC_URL="+ep.CometRPC, "REST_URL="+ep.REST, "MNEMONIC="+dev.Mnemonic, "PRIVATE_KEY=", "KEY_TYPE=")
			deploy := exec.CommandContext(ctx, vipctl, "deploy", "--stage", fmt.Sprint(stage), "--state-dir", stateDir, "--json")
			deploy.Env = env
			out, err := deploy.CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			var d vip.Deployment
			Expect(json.Unmarshal(out, &d)).To(Succeed(), string(out))
			startHeight := r.Height()

			c, err := cosmostx.Dial(ctx, ep.CometRPC, ep.REST, cosmostx.WithMessages(t.register))
			Expect(err).NotTo(HaveOccurred())
			// CometBFT's own client reads the blocks back: not the one under test.
			cmt, err := rpchttp.New(ep.CometRPC, "/websocket")
			Expect(err).NotTo(HaveOccurred())
			entries := scores.GenerateBech32(n, 99, c.Prefix())
			file := filepath.Join(dir, "scores.csv")
			f, err := os.Create(file)
			Expect(err).NotTo(HaveOccurred())
			Expect(scores.Write(f, entries, scores.CSV)).To(Succeed())
			Expect(f.Close()).To(Succeed())

			run := func(killAfterRecords int) (bool, string) {
				return runVipctl(ctx, env, stateDir, killAfterRecords, "scores", "update", "--file", file, "--stage", fmt.Sprint(stage),
					"--state-dir", stateDir, "--chunk-size", fmt.Sprint(chunk), "--window", "4", "--no-progress")
			}
			phrase := strings.Join(strings.Fields(dev.Mnemonic)[:4], " ")
			for _, at := range []int{2, 17, 48, 80} {
				killed, out := run(at)
				if !killed {
					Fail("the push finished before the kill at record " + fmt.Sprint(at) + ": " + out)
				}
				Expect(out).NotTo(ContainSubstring(phrase), "the mnemonic must never be printed")
			}
			_, out2 := run(0)
			Expect(out2).To(ContainSubstring("chunks confirmed"))
			Expect(out2).NotTo(ContainSubstring(phrase))

			s, err := t.scorer(ctx, ep, d.Contract)
			Expect(err).NotTo(HaveOccurred())
			rep, err := deployer.Verify(ctx, s, stage, entries)
			Expect(err).NotTo(HaveOccurred())
			Expect(rep.Mismatches).To(BeEmpty())
			Expect(rep.Matched).To(Equal(n))
			Expect(rep.TotalsAgree).To(BeTrue())

			// Every address went out in exactly one successful update tx.
			sent := map[string]int{}
			txs := 0
			decode := c.Enc.TxConfig.TxDecoder()
			for h := startHeight + 1; h <= r.Height(); h++ {
				height := int64(h)
				b, err := cmt.Block(ctx, &height)
				Expect(err).NotTo(HaveOccurred())
				for _, raw := range b.Block.Txs {
					tx, err := decode(raw)
					Expect(err).NotTo(HaveOccurred())
					out, err := c.Lookup(ctx, fmt.Sprintf("%X", cmttypes.Tx(raw).Hash()))
					Expect(err).NotTo(HaveOccurred())
					if !out.Success {
						continue
					}
					for _, m := range tx.GetMsgs() {
						addrs, ok := t.updated(m, d.Contract, c.Prefix())
						if !ok {
							continue
						}
						txs++
						for _, a := range addrs {
							sent[a]++
						}
					}
				}
			}
			Expect(txs).To(Equal(n / chunk))
			Expect(sent).To(HaveLen(n))
			for a, k := range sent {
				Expect(k).To(Equal(1), "address %s sent %d times", a, k)
			}
		}, SpecTimeout(5*time.Minute))
	})
}
