package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/deployer/conformance"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/minitiad"
	"github.com/vipharness/vipharness/localnet/process"
)

// A chain the test starts itself, as a separate process (`vipctl localnet up`), the way a
// team starts one with its own tooling: the checks then meet it only through its endpoints.
type chain struct {
	vm     vip.VM
	engine string // vipctl localnet up --engine
}

func chains() []chain {
	var out []chain
	engines := os.Getenv("E2E_ENGINES")
	if engines == "" {
		engines = "embedded"
	}
	for _, e := range strings.Split(engines, ",") {
		switch e = strings.TrimSpace(e); e {
		case "embedded":
			for _, vm := range []vip.VM{vip.EVM, vip.Wasm, vip.Move} {
				out = append(out, chain{vm, "embedded"})
			}
		case "process":
			// geth, wasmd, and the dev node binary with the MoveVM.
			for _, vm := range []vip.VM{vip.EVM, vip.Wasm, vip.Move} {
				out = append(out, chain{vm, "process"})
			}
		case "minitia":
			// Initia's own minitiad, where a binary is here.
			for _, vm := range []vip.VM{vip.EVM, vip.Wasm, vip.Move} {
				out = append(out, chain{vm, "minitia"})
			}
		}
	}
	return out
}

// startChain runs `vipctl localnet up` for c until the spec tree ends, and returns the
// environment it wrote (endpoints, L1 stand-in, dev key).
func startChain(ctx context.Context, c chain, l1Stage uint64) []string {
	if c.engine == "process" {
		if err := (process.Engine{}).Available(context.Background(), c.vm); err != nil {
			if os.Getenv("REQUIRE_NODES") == "1" || os.Getenv("CI") == "true" {
				Fail(fmt.Sprintf("REQUIRE_NODES=1 or CI=true: %v", err))
			}
			Skip(err.Error())
		}
	}
	if c.engine == "minitia" {
		if err := (minitiad.Engine{}).Available(context.Background(), c.vm); err != nil {
			if harness.Required("minitia") {
				Fail(fmt.Sprintf("REQUIRE_MINITIA=1: %v", err))
			}
			Skip(err.Error())
		}
	}
	return harness.LocalnetUp(ctx, vipctl, 3*time.Minute, "--vm", string(c.vm), "--engine", c.engine,
		"--l1-stage", strconv.FormatUint(l1Stage, 10))
}

// check runs vipctl check with env and returns its JSON report and exit code.
func check(ctx context.Context, env []string, args ...string) (conformance.Report, int, string) {
	cmd := exec.CommandContext(ctx, vipctl, append([]string{"check", "--json", "--no-progress", "--state-dir", GinkgoT().TempDir()}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
	var rep conformance.Report
	Expect(json.Unmarshal(stdout.Bytes(), &rep)).To(Succeed(), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); (k == "PRIVATE_KEY" || k == "MNEMONIC") && v != "" {
			Expect(stdout.String()+stderr.String()).NotTo(ContainSubstring(v), "a secret was printed")
		}
	}
	return rep, code, stderr.String()
}

// fundedMnemonic makes a fresh Move account and funds it from the env's key with fees for a
// publish; it returns the account's mnemonic.
func fundedMnemonic(ctx context.Context, env []string) string {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	c, err := cosmostx.Dial(ctx, vars["COMET_RPC_URL"], vars["REST_URL"], cosmostx.WithMessages(initiamove.RegisterInterfaces))
	Expect(err).NotTo(HaveOccurred())
	signer := func(mnemonic string) keys.Signer {
		acct, err := keys.FromMnemonic(mnemonic, keys.PathFor(vip.EthSecp256k1, 0))
		Expect(err).NotTo(HaveOccurred())
		key, err := keys.PrivKeyFromBytes(acct.Secret(), vip.EthSecp256k1)
		Expect(err).NotTo(HaveOccurred())
		return cosmostx.SoftKey(key, "test key")
	}
	from, err := c.SignerOf(ctx, signer(vars["MNEMONIC"]))
	Expect(err).NotTo(HaveOccurred())
	fresh, err := keys.NewMnemonic()
	Expect(err).NotTo(HaveOccurred())
	Expect(c.Fund(ctx, from, c.Address(signer(fresh).PubKey()), c.FeeFunds(20_000_000))).To(Succeed())
	return fresh
}

func failed(rep conformance.Report) []string {
	var out []string
	for _, c := range rep.Checks {
		if c.Status == conformance.Fail {
			out = append(out, c.Name)
		}
	}
	return out
}

func detail(rep conformance.Report, name string) string {
	for _, c := range rep.Checks {
		if c.Name == name {
			return c.Detail
		}
	}
	return ""
}

// toolchain skips a spec whose compiler is missing, or fails it in CI.
func toolchain(err error) {
	if err == nil {
		return
	}
	if os.Getenv("REQUIRE_TOOLCHAIN") == "1" || os.Getenv("CI") == "true" {
		Fail(err.Error())
	}
	Skip(err.Error())
}

var _ = Describe("vipctl check", Label("conformance"), func() {
	for _, c := range chains() {
		Context(fmt.Sprintf("%s on a %s chain", c.vm, c.engine), Label(string(c.vm), c.engine), Ordered, func() {
			var env []string
			BeforeAll(func(ctx SpecContext) {
				env = startChain(ctx, c, 5)
			}, NodeTimeout(4*time.Minute))

			It("passes every check with our contract, and writes them as JUnit", func(ctx SpecContext) {
				junit := filepath.Join(GinkgoT().TempDir(), "check.xml")
				rep, code, stderr := check(ctx, env, "--junit", junit)
				Expect(failed(rep)).To(BeEmpty(), "%+v\n%s", rep.Checks, stderr)
				Expect(code).To(Equal(0))
				Expect(rep.Stage).To(BeEquivalentTo(5), "deployed at the L1 stand-in's stage")
				Expect(rep.Checks).To(HaveLen(18))
				for _, ch := range rep.Checks {
					if ch.Status == conformance.Skip {
						// Only what the VM cannot express is skipped.
						Expect(ch.Name).To(Equal("refuse mismatched lengths"))
						Expect(c.vm).To(Equal(vip.Wasm))
					}
				}
				var suite struct {
					Tests    int `xml:"tests,attr"`
					Failures int `xml:"failures,attr"`
					Cases    []struct {
						Name string `xml:"name,attr"`
					} `xml:"testcase"`
				}
				b, err := os.ReadFile(junit)
				Expect(err).NotTo(HaveOccurred())
				Expect(xml.Unmarshal(b, &suite)).To(Succeed())
				Expect(suite.Tests).To(Equal(len(rep.Checks)))
				Expect(suite.Failures).To(BeZero())
				Expect(suite.Cases[0].Name).To(Equal("deploy at the stage"))
			}, SpecTimeout(3*time.Minute))

			It("checks a deployment read-only: in step with the L1 it passes, behind it names stage sync", func(ctx SpecContext) {
				state := GinkgoT().TempDir()
				deploy := func(stage string, another bool, extraEnv ...string) string {
					args := []string{"deploy", "--json", "--state-dir", state, "--stage", stage}
					if another { // a second contract of the same deployer
						args = append(args, "--new")
					}
					cmd := exec.CommandContext(ctx, vipctl, args...)
					cmd.Env = append(append(os.Environ(), env...), extraEnv...)
					out, err := cmd.Output()
					Expect(err).NotTo(HaveOccurred(), "%s", out)
					var d vip.Deployment
					Expect(json.Unmarshal(out, &d)).To(Succeed())
					return d.Contract
				}
				rep, code, stderr := check(ctx, env, "--contract", deploy("5", false))
				Expect(failed(rep)).To(BeEmpty(), "%+v\n%s", rep.Checks, stderr)
				Expect(code).To(Equal(0))
				Expect(rep.Checks[0].Name).To(Equal("interface"))
				Expect(rep.Checks[0].Status).To(Equal(conformance.Pass))

				var behind string
				behindEnv := env
				if c.vm == vip.Move {
					// An account holds one vip_score module: the one behind the L1 is
					// published from a fresh account the env's key funds, and checked
					// with that account's key (the check proves its operator may write).
					fresh := "MNEMONIC=" + fundedMnemonic(ctx, env)
					behind = deploy("3", false, fresh)
					behindEnv = append(env[:len(env):len(env)], fresh)
				} else {
					behind = deploy("3", true)
				}
				rep, code, _ = check(ctx, behindEnv, "--contract", behind)
				Expect(failed(rep)).To(Equal([]string{"open stage beside the L1 stage"}))
				Expect(detail(rep, "open stage beside the L1 stage")).To(ContainSubstring("vipctl stage sync"))
				Expect(code).To(Equal(4))
			}, SpecTimeout(2*time.Minute))

			switch {
			case c.vm == vip.EVM && c.engine == "embedded":
				It("names the re-finalize check for a contract whose re-finalize wipes the next stage", func(ctx SpecContext) {
					toolchain(solcMissing())
					bin, err := buildEVM(ctx, evmWipesNext, GinkgoT().TempDir())
					Expect(err).NotTo(HaveOccurred())
					rep, code, _ := check(ctx, env, "--artifact", bin)
					Expect(failed(rep)).To(Equal([]string{"re-finalize changes nothing"}), "%+v", rep.Checks)
					Expect(detail(rep, "re-finalize changes nothing")).To(ContainSubstring("changed stage 6"))
					Expect(code).To(Equal(4))
				}, SpecTimeout(3*time.Minute))

				It("has scores update read the stage back, and exit 4 for a contract that stores less than it confirms", func(ctx SpecContext) {
					toolchain(solcMissing())
					bin, err := buildEVM(ctx, evmStoresHalf, GinkgoT().TempDir())
					Expect(err).NotTo(HaveOccurred())
					rep, code, _ := check(ctx, env, "--artifact", bin)
					Expect(code).To(Equal(4), "%+v", rep.Checks)
					Expect(rep.Contract).NotTo(BeEmpty())

					v := harness.Vipctl{Bin: vipctl, Env: env}
					run := func(args ...string) (string, int) {
						return v.Run(ctx, append(args, "--contract", rep.Contract, "--state-dir", GinkgoT().TempDir(), "--no-progress")...)
					}
					out, code := run("stage", "show", "--json")
					Expect(code).To(Equal(0), out)
					var show struct {
						OpenStage uint64 `json:"open_stage"`
					}
					Expect(json.Unmarshal([]byte(out), &show)).To(Succeed(), out)
					entries := scores.Generate(30, 77)
					for i := range entries {
						entries[i].Amount += 2 // >= 2, so that half differs
					}
					file := filepath.Join(GinkgoT().TempDir(), "scores.csv")
					f, err := os.Create(file)
					Expect(err).NotTo(HaveOccurred())
					Expect(scores.Write(f, entries, scores.CSV)).To(Succeed())
					Expect(f.Close()).To(Succeed())
					out, code = run("scores", "update", "--file", file, "--stage", fmt.Sprint(show.OpenStage))
					Expect(code).To(Equal(4), out)
					Expect(out).To(ContainSubstring("read back: 0/30 match, 30 mismatches"))
					Expect(out).To(ContainSubstring("differs from"))
				}, SpecTimeout(3*time.Minute))

				It("passes a contract that accepts a re-finalize and changes nothing, saying so", func(ctx SpecContext) {
					toolchain(solcMissing())
					bin, err := buildEVM(ctx, evmAcceptsRefinalize, GinkgoT().TempDir())
					Expect(err).NotTo(HaveOccurred())
					rep, code, _ := check(ctx, env, "--artifact", bin)
					Expect(failed(rep)).To(BeEmpty(), "%+v", rep.Checks)
					Expect(code).To(Equal(0))
					Expect(detail(rep, "re-finalize changes nothing")).To(ContainSubstring("accepted and changed nothing"))
				}, SpecTimeout(3*time.Minute))

			case c.vm == vip.Wasm && c.engine == "embedded":
				It("names the checks the official Wasm contract's faults fail", func(ctx SpecContext) {
					wasmFile, err := buildWasm(ctx, wasmOfficialFaults, GinkgoT().TempDir())
					if err != nil && strings.Contains(err.Error(), "exit status 3") {
						toolchain(err) // build.sh: a tool is missing
					}
					Expect(err).NotTo(HaveOccurred())
					rep, code, _ := check(ctx, env, "--artifact", wasmFile)
					got := failed(rep)
					slices.Sort(got)
					Expect(got).To(Equal([]string{"re-finalize changes nothing", "refuse a missing stage", "refuse stage zero"}), "%+v", rep.Checks)
					Expect(detail(rep, "refuse a missing stage")).To(ContainSubstring("without a contract error"))
					Expect(code).To(Equal(4))
				}, SpecTimeout(5*time.Minute))
			}
		})
	}
})
