package foundry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/minitiad"
)

// hardhatEngines are the engines of the run that answer as a minievm does: the embedded
// EVM and Initia's own minievm (minitia). Plain geth --dev makes a block only when a tx
// comes, so Ignition's default 5 confirmations never come there.
func hardhatEngines() []string {
	var out []string
	for _, e := range engines() {
		if e == "embedded" || e == "minitia" {
			out = append(out, e)
		}
	}
	return out
}

// hardhatNet is one engine's localnet with its Hardhat project.
type hardhatNet struct {
	engine   string
	ln       *localnet
	dir      string // the Hardhat project (a copy of hardhat/, node_modules linked)
	state    string // vipctl's state dir
	contract string // Ignition's deployment
	took     time.Duration
}

// hardhatBin is the pinned Hardhat (make setup-foundry), or a skip (a failure where
// REQUIRE_TOOLCHAIN=1 or CI=true) naming what is missing.
func hardhatBin() string {
	bin, err := filepath.Abs(filepath.Join("node_modules", ".bin", "hardhat"))
	Expect(err).NotTo(HaveOccurred())
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(bin); err != nil {
		missing = bin + " is missing (make setup-foundry)"
	}
	if missing != "" {
		if os.Getenv("REQUIRE_TOOLCHAIN") == "1" || os.Getenv("CI") == "true" {
			Fail("Hardhat required: " + missing)
		}
		Skip(missing)
	}
	return bin
}

// hardhatProject copies hardhat/ (config, Ignition module, scripts, tests) into a fresh
// directory, as a team's project, with a package.json, the pinned node_modules linked in
// and Ignition's parameters (the L1's stage) beside it.
func hardhatProject(initStage string) string {
	dir := GinkgoT().TempDir()
	Expect(os.CopyFS(dir, os.DirFS("hardhat"))).To(Succeed())
	mods, err := filepath.Abs("node_modules")
	Expect(err).NotTo(HaveOccurred())
	Expect(os.Symlink(mods, filepath.Join(dir, "node_modules"))).To(Succeed())
	// A project's own package.json (hardhat test wants one); its dependencies are ours.
	Expect(os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"vipscore-hardhat","private":true}`+"\n"), 0o644)).To(Succeed())
	params := fmt.Sprintf(`{"VipScoreModule":{"initStage":%s}}`, initStage)
	Expect(os.WriteFile(filepath.Join(dir, "parameters.json"), []byte(params), 0o644)).To(Succeed())
	return dir
}

// hardhat runs the pinned Hardhat in the net's project with the env file's variables, a
// home of its own (no telemetry consent stored: Hardhat asks nothing and sends nothing),
// Ignition's deploy prompt answered by its env variable, and the artifact dir of our build.
func (n *hardhatNet) hardhat(ctx context.Context, bin string, extra []string, args ...string) (string, string, error) {
	artifacts, err := filepath.Abs(filepath.Join("..", "..", "contracts", "evm", "artifacts"))
	Expect(err).NotTo(HaveOccurred())
	env := append([]string{"HOME=" + filepath.Join(n.dir, ".home"), "HARDHAT_DISABLE_TELEMETRY_PROMPT=true",
		"HARDHAT_IGNITION_CONFIRM_DEPLOYMENT=false", "FORCE_COLOR=0", "NO_COLOR=1", "VIPSCORE_ARTIFACTS=" + artifacts}, extra...)
	return n.ln.run(ctx, n.dir, env, bin, args...)
}

// nonce is the account's nonce at "latest".
func (n *hardhatNet) nonce(ctx context.Context) uint64 {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionCount","params":[%q,"latest"]}`, n.ln.vars["FUNDED_ADDRESS"])
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.ln.vars["JSON_RPC_URL"], strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	var reply struct{ Result string }
	Expect(json.Unmarshal(b, &reply)).To(Succeed(), string(b))
	v, err := strconv.ParseUint(strings.TrimPrefix(reply.Result, "0x"), 16, 64)
	Expect(err).NotTo(HaveOccurred(), string(b))
	return v
}

// deployment is the Ignition deployment's folder (ignition/deployments/chain-<id>).
func (n *hardhatNet) deployment() string {
	m, err := filepath.Glob(filepath.Join(n.dir, "ignition", "deployments", "chain-*"))
	Expect(err).NotTo(HaveOccurred())
	Expect(m).To(HaveLen(1))
	return m[0]
}

var _ = func() bool {
	if len(hardhatEngines()) == 0 {
		return false
	}
	Describe("Hardhat and Ignition with their defaults on the local EVM rollup and a real minievm",
		Label(append([]string{"hardhat", "evm"}, hardhatEngines()...)...), Ordered, hardhatSpecs)
	return true
}()

// hardhatSpecs run each step on every engine of hardhatEngines: side by side, so that the
// minutes Ignition's confirmations take are spent once for all, and the times compare.
func hardhatSpecs() {
	const l1Stage = 3
	stage := strconv.Itoa(l1Stage)
	var (
		bin  string
		nets []*hardhatNet
	)

	BeforeAll(func(ctx SpecContext) {
		bin = hardhatBin()
		var skipped []string
		for _, engine := range hardhatEngines() {
			if engine == "minitia" {
				if err := (minitiad.Engine{}).Available(ctx, vip.EVM); err != nil {
					if harness.Required(engine) {
						Fail(fmt.Sprintf("the minitia engine is required here (REQUIRE_MINITIA=1): %v", err))
					}
					skipped = append(skipped, fmt.Sprintf("%s: %v", engine, err))
					continue
				}
			}
			ln := startLocalnet(ctx, engine, l1Stage)
			Expect(ln.vars).To(HaveKeyWithValue("INIT_STAGE", stage))
			nets = append(nets, &hardhatNet{engine: engine, ln: ln, dir: hardhatProject(stage), state: GinkgoT().TempDir()})
		}
		for _, s := range skipped {
			AddReportEntry("engine skipped", s)
			fmt.Fprintf(GinkgoWriter, "skipped %s\n", s)
		}
		if len(nets) == 0 {
			Skip(strings.Join(skipped, "; "))
		}
	}, NodeTimeout(4*time.Minute))

	// each runs f on every net at once and waits for all.
	each := func(f func(n *hardhatNet)) {
		var wg sync.WaitGroup
		for _, n := range nets {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				fmt.Fprintf(GinkgoWriter, "[%s]\n", n.engine)
				f(n)
			}()
		}
		wg.Wait()
	}

	It("deploys with `hardhat ignition deploy` and Ignition's default 5 confirmations, in the time a minievm takes", func(ctx SpecContext) {
		// Nothing else is sent meanwhile: the blocks Ignition waits for are the chain's own,
		// the tx's block, the one after it (block_interval later), then one each idle minute.
		each(func(n *hardhatNet) {
			before := n.nonce(ctx)
			Expect(before).To(BeZero(), "the funded account has sent before its user (Ignition would refuse it for 5 confirmations)")
			start := time.Now()
			out, _, err := n.hardhat(ctx, bin, nil, "ignition", "deploy", "ignition/modules/VipScore.js", "--parameters", "parameters.json")
			n.took = time.Since(start)
			Expect(err).NotTo(HaveOccurred(), n.engine)
			Expect(out).To(ContainSubstring("[ VipScoreModule ] successfully deployed"), n.engine)
			b, err := os.ReadFile(filepath.Join(n.deployment(), "deployed_addresses.json"))
			Expect(err).NotTo(HaveOccurred())
			var addrs map[string]string
			Expect(json.Unmarshal(b, &addrs)).To(Succeed())
			n.contract = addrs["VipScoreModule#VipScore"]
			Expect(n.contract).To(MatchRegexp("^0x[0-9a-fA-F]{40}$"), n.engine)
			Expect(n.nonce(ctx)).To(Equal(before+1), n.engine)
		})
		// Three idle blocks after the tx's block and the one right after it.
		want := 3 * embedded.EVMEmptyBlockInterval
		for _, n := range nets {
			AddReportEntry("ignition deploy with default confirmations: "+n.engine, n.took.Round(100*time.Millisecond).String())
			fmt.Fprintf(GinkgoWriter, "%s: ignition deploy took %s\n", n.engine, n.took.Round(100*time.Millisecond))
			Expect(n.took).To(BeNumerically("~", want, 20*time.Second), n.engine)
		}
		if len(nets) == 2 {
			Expect(nets[0].took-nets[1].took).To(BeNumerically("~", 0, 10*time.Second), "embedded and the real minievm")
		}
	}, SpecTimeout(4*embedded.EVMEmptyBlockInterval+time.Minute))

	It("keeps Ignition's journal: a second `ignition deploy` sends nothing", func(ctx SpecContext) {
		each(func(n *hardhatNet) {
			Expect(n.contract).NotTo(BeEmpty())
			journal := filepath.Join(n.deployment(), "journal.jsonl")
			before, err := os.ReadFile(journal)
			Expect(err).NotTo(HaveOccurred())
			nonce := n.nonce(ctx)
			out, _, err := n.hardhat(ctx, bin, nil, "ignition", "deploy", "ignition/modules/VipScore.js", "--parameters", "parameters.json")
			Expect(err).NotTo(HaveOccurred(), n.engine)
			Expect(out).To(And(ContainSubstring("Nothing new to deploy"), ContainSubstring(n.contract)), n.engine)
			after, err := os.ReadFile(journal)
			Expect(err).NotTo(HaveOccurred())
			Expect(bytes.Equal(before, after)).To(BeTrue(), "%s: the journal changed", n.engine)
			Expect(n.nonce(ctx)).To(Equal(nonce), n.engine)
		})
	}, SpecTimeout(time.Minute))

	It("sends with Hardhat's default fees (no gasPrice in the network config)", func(ctx SpecContext) {
		each(func(n *hardhatNet) {
			out, _, err := n.hardhat(ctx, bin, nil, "run", "scripts/send.js")
			Expect(err).NotTo(HaveOccurred(), n.engine)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var sent struct {
				Type                        int
				MaxFeePerGas, BaseFeePerGas string
				Status                      int
			}
			Expect(json.Unmarshal([]byte(lines[len(lines)-1]), &sent)).To(Succeed(), out)
			Expect(sent.Type).To(Equal(2), n.engine)
			Expect(sent.Status).To(Equal(1), n.engine)
			maxFee, err := strconv.ParseInt(sent.MaxFeePerGas, 10, 64)
			Expect(err).NotTo(HaveOccurred())
			base, err := strconv.ParseInt(sent.BaseFeePerGas, 10, 64)
			Expect(err).NotTo(HaveOccurred())
			Expect(maxFee).To(BeNumerically(">=", base), n.engine)
		})
	}, SpecTimeout(time.Minute))

	It("is operated by vipctl on Ignition's deployment: scores update, verify, stage finalize", func(ctx SpecContext) {
		each(func(n *hardhatNet) {
			Expect(n.contract).NotTo(BeEmpty())
			file := filepath.Join(n.state, "scores.csv")
			Expect(os.WriteFile(file, []byte("address,score\n0x00000000000000000000000000000000000000A1,10\n0x00000000000000000000000000000000000000a2,20\n"), 0o600)).To(Succeed())
			out, code := n.ln.vipctl(ctx, n.state, "scores", "update", "--contract", n.contract, "--file", file)
			Expect(code).To(Equal(0), out)
			out, code = n.ln.vipctl(ctx, n.state, "verify", "--contract", n.contract, "--file", file)
			Expect(code).To(Equal(0), out)
			Expect(out).To(ContainSubstring("2/2 match, 0 mismatches"))
			out, code = n.ln.vipctl(ctx, n.state, "stage", "finalize", "--contract", n.contract, "--stage", stage, "--force", "--yes")
			Expect(code).To(Equal(0), out)
		})
	}, SpecTimeout(2*time.Minute))
	It("runs Hardhat's chai matchers on reverts as a real minievm answers them (no revert data)", func(ctx SpecContext) {
		// After vipctl finalized the L1's stage, the next one is open.
		each(func(n *hardhatNet) {
			out, _, err := n.hardhat(ctx, bin, []string{"CONTRACT_ADDRESS=" + n.contract, "OPEN_STAGE=" + strconv.Itoa(l1Stage+1)}, "test", "--no-compile", "test/reverts.js")
			Expect(err).NotTo(HaveOccurred(), n.engine)
			Expect(out).To(And(ContainSubstring("4 passing"), Not(ContainSubstring("failing"))), n.engine)
		})
	}, SpecTimeout(2*time.Minute))

}
