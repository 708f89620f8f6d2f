package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/l1"
)

// The CLI as a pipeline uses it: env for secrets and endpoints, --json results, exit codes.
var _ = Describe("vipctl against a local rollup", Label("evm", "embedded", "cli"), Ordered, func() {
	const l1Stage = 6
	var (
		rpcURL, devKey, stateDir, fixtures string
		l1srv                              *l1.Server
		nonce                              func(context.Context) uint64
	)

	BeforeAll(func(ctx SpecContext) {
		r, err := embedded.StartEVM(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) { Expect(r.Stop(ctx)).To(Succeed()) })
		client, err := ethclient.DialContext(ctx, r.Endpoints().JSONRPC)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(client.Close)
		l1srv, err = l1.Start(ctx, l1.WithStage(l1Stage))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(l1srv.Close)
		rpcURL, devKey = r.Endpoints().JSONRPC, r.Funded()[0].PrivateKey
		key, err := crypto.HexToECDSA(devKey)
		Expect(err).NotTo(HaveOccurred())
		from := crypto.PubkeyToAddress(key.PublicKey)
		nonce = func(ctx context.Context) uint64 {
			n, err := client.PendingNonceAt(ctx, from)
			Expect(err).NotTo(HaveOccurred())
			return n
		}
		stateDir = GinkgoT().TempDir()
		fixtures, err = filepath.Abs(filepath.Join("..", "..", "fixtures", "scores"))
		Expect(err).NotTo(HaveOccurred())
	})

	// run executes vipctl with the rollup's env; it returns stdout+stderr and the exit code.
	run := func(ctx context.Context, env []string, args ...string) (string, int) {
		for i, a := range args {
			if strings.HasPrefix(a, "@") {
				args[i] = filepath.Join(fixtures, a[1:])
			}
		}
		base := []string{"JSON_RPC_URL=" + rpcURL, "PRIVATE_KEY=" + devKey, "L1_REST_URL=" + l1srv.URL(), "VIP_MODULE_ADDRESS=" + l1srv.VIPAddress()}
		v := harness.Vipctl{Bin: vipctl, Env: append(base, env...), Secrets: []string{devKey}}
		return v.Run(ctx, append([]string{"--state-dir", stateDir, "--no-progress"}, args...)...)
	}

	It("deploys at the L1's stage and remembers the contract", func(ctx SpecContext) {
		out, code := run(ctx, nil, "deploy", "--json")
		Expect(code).To(Equal(0), out)
		var d struct {
			Contract  string `json:"contract"`
			InitStage uint64 `json:"init_stage"`
		}
		Expect(json.Unmarshal([]byte(out), &d)).To(Succeed(), out)
		Expect(common.IsHexAddress(d.Contract)).To(BeTrue())
		Expect(d.InitStage).To(BeEquivalentTo(l1Stage))

		out, code = run(ctx, nil, "stage", "show", "--json")
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring(fmt.Sprintf(`"open_stage": %d`, l1Stage)))
	}, SpecTimeout(time.Minute))

	It("plans with --dry-run and sends nothing", func(ctx SpecContext) {
		before := nonce(ctx)
		out, code := run(ctx, nil, "scores", "update", "--file", filepath.Join(fixtures, "small.csv"), "--dry-run", "--json")
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring(`"chunks"`))
		Expect(out).To(ContainSubstring(`"estimated_gas"`))
		Expect(nonce(ctx)).To(Equal(before))
	}, SpecTimeout(time.Minute))

	DescribeTable("refuses bad input with exit code 2, sending nothing",
		func(ctx SpecContext, env []string, problem string, args ...string) {
			before := nonce(ctx)
			out, code := run(ctx, env, args...)
			Expect(code).To(Equal(2), out)
			Expect(strings.ToLower(out)).To(ContainSubstring(problem))
			Expect(nonce(ctx)).To(Equal(before))
		},
		Entry("bad checksum", nil, "checksum", "scores", "update", "--file", "@bad-checksum.csv"),
		Entry("duplicate", nil, "duplicate", "scores", "update", "--file", "@duplicate.csv"),
		Entry("overflow", nil, "range", "scores", "update", "--file", "@overflow.csv"),
		Entry("empty", nil, "empty", "scores", "update", "--file", "@empty.csv"),
		Entry("unknown vm", nil, "unknown vm", "--vm", "cairo", "stage", "show"),
		Entry("malformed key", []string{"PRIVATE_KEY=0x1234"}, "private_key", "scores", "update", "--file", "@small.csv"),
	)

	It("pushes, finalizes and verifies, with exit 4 for a file the chain does not hold", func(ctx SpecContext) {
		small := filepath.Join(fixtures, "small.csv")
		out, code := run(ctx, nil, "scores", "update", "--file", small)
		Expect(code).To(Equal(0), out)
		// The push reads the stage back once at its end.
		Expect(out).To(MatchRegexp(`read back: (\d+)/(\d+) match, 0 mismatches`))
		m := regexp.MustCompile(`read back: (\d+)/(\d+) match`).FindStringSubmatch(out)
		Expect(m[1]).To(Equal(m[2]), out)
		out, code = run(ctx, nil, "verify", "--file", small, "--stage", fmt.Sprint(l1Stage))
		Expect(code).To(Equal(0), out)

		changed := filepath.Join(GinkgoT().TempDir(), "changed.csv")
		b, err := os.ReadFile(small)
		Expect(err).NotTo(HaveOccurred())
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		addr, _, _ := strings.Cut(lines[1], ",")
		lines[1] = addr + ",1"
		Expect(os.WriteFile(changed, []byte(strings.Join(lines, "\n")+"\n"), 0o644)).To(Succeed())
		out, code = run(ctx, nil, "verify", "--file", changed, "--stage", fmt.Sprint(l1Stage))
		Expect(code).To(Equal(4), out)
		pushAgainAfterAnother(ctx, func(args ...string) (string, int) { return run(ctx, nil, args...) }, nonce, small, changed)

		Expect(l1srv.Set(ctx, l1Stage+1)).To(Succeed())
		out, code = run(ctx, nil, "stage", "finalize", "--stage", fmt.Sprint(l1Stage))
		Expect(code).To(Equal(0), out)
		out, code = run(ctx, nil, "scores", "update", "--file", small, "--stage", fmt.Sprint(l1Stage))
		Expect(code).To(Equal(3), out)
		Expect(out).To(ContainSubstring("StageFinalized"))
	}, SpecTimeout(2*time.Minute))

	It("syncs the contract's stage to the L1 with --yes, closing empty stages only with --allow-empty", func(ctx SpecContext) {
		Expect(l1srv.Set(ctx, l1Stage+3)).To(Succeed())
		// The stages between hold no scores: as stage finalize, sync closes them only when told.
		out, code := run(ctx, nil, "stage", "sync", "--yes", "--json")
		Expect(code).To(Equal(2), out)
		Expect(out).To(And(ContainSubstring("hold no scores"), ContainSubstring("--allow-empty"), ContainSubstring("nothing was sent")))
		out, code = run(ctx, nil, "stage", "show", "--json")
		Expect(code).To(Equal(0), out)
		Expect(out).NotTo(ContainSubstring(fmt.Sprintf(`"open_stage": %d`, l1Stage+3)))
		out, code = run(ctx, nil, "stage", "sync", "--yes", "--allow-empty", "--json")
		Expect(code).To(Equal(0), out)
		out, code = run(ctx, nil, "stage", "show", "--json")
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring(fmt.Sprintf(`"open_stage": %d`, l1Stage+3)))
	}, SpecTimeout(time.Minute))
})

// The same pipeline on the Cosmos rollups (Wasm and Move): CometBFT RPC and REST endpoints, a
// BIP39 mnemonic on the VM's key path (coin type 118 for Wasm, Initia's 60 for Move), bech32
// score files.
type cosmosCLI struct {
	vm             string
	start          func(context.Context) (localnet.Rollup, error)
	contractPrefix string
	finalized      string // what a write to a finalized stage reports
}

var _ = cosmosCLISpecs(cosmosCLI{vm: "wasm", contractPrefix: "init1", finalized: "Stage finalized",
	start: func(ctx context.Context) (localnet.Rollup, error) { return embedded.StartWasm(ctx) }})

var _ = cosmosCLISpecs(cosmosCLI{vm: "move", contractPrefix: "0x", finalized: "EFINALIZED_STAGE",
	start: func(ctx context.Context) (localnet.Rollup, error) { return embedded.StartMove(ctx) }})

func cosmosCLISpecs(t cosmosCLI) bool {
	return Describe("vipctl --vm "+t.vm+" against a local rollup", Label(t.vm, "embedded", "cli"), Ordered, func() {
		const l1Stage = 4
		var (
			env             []string
			mnemonic, small string
			stateDir        string
			sequence        func(context.Context) uint64
		)

		BeforeAll(func(ctx SpecContext) {
			r, err := t.start(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func(ctx SpecContext) { Expect(r.Stop(ctx)).To(Succeed()) })
			l1srv, err := l1.Start(ctx, l1.WithStage(l1Stage))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(l1srv.Close)
			dev := r.Funded()[0]
			mnemonic = dev.Mnemonic
			ep := r.Endpoints()
			env = []string{"VM=" + t.vm, "COMET_RPC_URL=" + ep.CometRPC, "REST_URL=" + ep.REST, "MNEMONIC=" + mnemonic,
				"L1_REST_URL=" + l1srv.URL(), "VIP_MODULE_ADDRESS=" + l1srv.VIPAddress(), "JSON_RPC_URL=", "PRIVATE_KEY=", "KEY_TYPE="}
			c, err := cosmostx.Dial(ctx, ep.CometRPC, ep.REST)
			Expect(err).NotTo(HaveOccurred())
			sequence = func(ctx context.Context) uint64 {
				_, seq, err := c.Account(ctx, dev.Address)
				Expect(err).NotTo(HaveOccurred())
				return seq
			}
			stateDir = GinkgoT().TempDir()
			// The fixture's addresses as bech32 of this chain.
			entries, err := scores.ParseFile(filepath.Join("..", "..", "fixtures", "scores", "small.csv"), "")
			Expect(err).NotTo(HaveOccurred())
			entries, err = scores.ToBech32(entries, c.Prefix())
			Expect(err).NotTo(HaveOccurred())
			small = filepath.Join(stateDir, "small-bech32.csv")
			f, err := os.Create(small)
			Expect(err).NotTo(HaveOccurred())
			Expect(scores.Write(f, entries, scores.CSV)).To(Succeed())
			Expect(f.Close()).To(Succeed())
		})

		run := func(ctx context.Context, args ...string) (string, int) {
			v := harness.Vipctl{Bin: vipctl, Env: env, Secrets: []string{strings.Join(strings.Fields(mnemonic)[:4], " ")}}
			return v.Run(ctx, append([]string{"--state-dir", stateDir, "--no-progress"}, args...)...)
		}

		It("deploys, pushes, verifies, finalizes, and refuses a finalized stage with exit 3", func(ctx SpecContext) {
			out, code := run(ctx, "deploy", "--json")
			Expect(code).To(Equal(0), out)
			var d struct {
				VM        string `json:"vm"`
				Contract  string `json:"contract"`
				InitStage uint64 `json:"init_stage"`
				Deployer  string `json:"deployer"`
			}
			Expect(json.Unmarshal([]byte(out), &d)).To(Succeed(), out)
			Expect(d.VM).To(Equal(t.vm))
			Expect(d.Contract).To(HavePrefix(t.contractPrefix))
			Expect(d.InitStage).To(BeEquivalentTo(l1Stage))

			before := sequence(ctx)
			out, code = run(ctx, "scores", "update", "--file", small, "--dry-run", "--json")
			Expect(code).To(Equal(0), out)
			Expect(out).To(ContainSubstring(`"chunks": 1`))
			Expect(sequence(ctx)).To(Equal(before))

			out, code = run(ctx, "scores", "update", "--file", filepath.Join("..", "..", "fixtures", "scores", "small.csv"))
			Expect(code).To(Equal(2), out)
			Expect(out).To(ContainSubstring("not bech32"))
			Expect(sequence(ctx)).To(Equal(before))

			out, code = run(ctx, "scores", "update", "--file", small)
			Expect(code).To(Equal(0), out)
			Expect(sequence(ctx)).To(Equal(before + 1))
			out, code = run(ctx, "verify", "--file", small, "--stage", fmt.Sprint(l1Stage))
			Expect(code).To(Equal(0), out)
			pushAgainAfterAnother(ctx, func(args ...string) (string, int) { return run(ctx, args...) }, sequence, small, changedCopy(small))

			out, code = run(ctx, "stage", "finalize", "--stage", fmt.Sprint(l1Stage), "--force", "--yes")
			Expect(code).To(Equal(0), out)
			out, code = run(ctx, "stage", "show", "--json")
			Expect(code).To(Equal(0), out)
			Expect(out).To(ContainSubstring(fmt.Sprintf(`"open_stage": %d`, l1Stage+1)))
			out, code = run(ctx, "scores", "update", "--file", small, "--stage", fmt.Sprint(l1Stage))
			Expect(code).To(Equal(3), out)
			Expect(out).To(ContainSubstring(t.finalized))
		}, SpecTimeout(2*time.Minute))

		It("names what a "+t.vm+" rollup needs when an endpoint is missing", func(ctx SpecContext) {
			env = append(env, "REST_URL=")
			DeferCleanup(func() { env = env[:len(env)-1] })
			out, code := run(ctx, "stage", "show")
			Expect(code).To(Equal(2), out)
			Expect(out).To(ContainSubstring("--rest"))
		}, SpecTimeout(time.Minute))

		It("tells a chain started again under the same chain id from the one it deployed on", func(ctx SpecContext) {
			again, err := t.start(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func(ctx SpecContext) { Expect(again.Stop(ctx)).To(Succeed()) })
			ep := again.Endpoints()
			saved := env
			env = append(append([]string{}, env...), "COMET_RPC_URL="+ep.CometRPC, "REST_URL="+ep.REST, "MNEMONIC="+again.Funded()[0].Mnemonic)
			DeferCleanup(func() { env = saved })
			out, code := run(ctx, "stage", "show")
			Expect(code).To(Equal(2), out)
			Expect(out).To(And(ContainSubstring("made on another chain of that id"), ContainSubstring("started again"), ContainSubstring("nothing was sent")))
		}, SpecTimeout(time.Minute))
	})
}

// changedCopy writes a copy of a score file with its first score set to 1.
func changedCopy(path string) string {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	addr, _, _ := strings.Cut(lines[1], ",")
	lines[1] = addr + ",1"
	changed := filepath.Join(GinkgoT().TempDir(), "changed.csv")
	Expect(os.WriteFile(changed, []byte(strings.Join(lines, "\n")+"\n"), 0o644)).To(Succeed())
	return changed
}

// pushAgainAfterAnother pushes a (already pushed) -> b -> a -> a: the chain, not the journal,
// decides what a push sends. The second push of a sends what b changed, as a new push, and
// reads back a; the third finds the stage holding a and sends nothing.
func pushAgainAfterAnother(ctx context.Context, run func(args ...string) (string, int), seq func(context.Context) uint64, a, b string) {
	GinkgoHelper()
	before := seq(ctx)
	out, code := run("scores", "update", "--file", b)
	Expect(code).To(Equal(0), out)
	Expect(seq(ctx)).To(BeNumerically(">", before), "B sent nothing")
	before = seq(ctx)
	out, code = run("scores", "update", "--file", a)
	Expect(code).To(Equal(0), out)
	Expect(out).To(MatchRegexp(`read back: (\d+)/(\d+) match, 0 mismatches`))
	Expect(seq(ctx)).To(Equal(before+1), "A again: one chunk holds the one score B changed")
	out, code = run("scores", "update", "--file", a)
	Expect(code).To(Equal(0), out)
	Expect(seq(ctx)).To(Equal(before+1), "A a third time, the stage holding it, sent a tx")
	out, code = run("verify", "--file", a)
	Expect(code).To(Equal(0), out)
}
