package conformance_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/vipharness/vipharness/deployer/vip"
)

// actionDef is the part of action.yml that a runner reads to run a composite action.
type actionDef struct {
	Inputs map[string]struct {
		Required bool    `yaml:"required"`
		Default  *string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			Run   string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// actionRun is one run of the action as a runner makes it: each step's env from the inputs
// (action.yml's `${{ inputs.x }}` mapping), its `run` line in bash with GITHUB_ACTION_PATH
// at the checkout, and the runner's files (GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY).
type actionRun struct {
	dir     string // the job's workspace
	summary string
	path    []string // what steps added to PATH
	log     strings.Builder
}

var inputRef = regexp.MustCompile(`^\$\{\{ inputs\.([a-z0-9-]+) \}\}$`)

// run runs every step of action.yml with inputs, stopping at the first that fails; it
// returns that step's id ("" when all passed).
func (r *actionRun) run(ctx context.Context, inputs map[string]string) string {
	b, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	Expect(err).NotTo(HaveOccurred())
	var def actionDef
	Expect(yaml.Unmarshal(b, &def)).To(Succeed())
	Expect(def.Runs.Using).To(Equal("composite"))
	for name := range inputs {
		Expect(def.Inputs).To(HaveKey(name), "action.yml has no input %q", name)
	}
	value := func(name string) string {
		in, ok := def.Inputs[name]
		Expect(ok).To(BeTrue(), "action.yml's steps read an undeclared input %q", name)
		if v, ok := inputs[name]; ok {
			return v
		}
		Expect(in.Required).To(BeFalse(), "required input %q not given", name)
		if in.Default != nil {
			return *in.Default
		}
		return ""
	}
	root, err := filepath.Abs(repoRoot)
	Expect(err).NotTo(HaveOccurred())
	for _, st := range def.Runs.Steps {
		Expect(st.Shell).To(Equal("bash"), "step %s", st.ID)
		Expect(st.Run).NotTo(ContainSubstring("${{"), "step %s pastes an expression into its script", st.ID)
		files := map[string]string{}
		for _, f := range []string{"GITHUB_PATH", "GITHUB_OUTPUT"} {
			files[f] = filepath.Join(r.dir, "..", st.ID+"."+f)
			Expect(os.WriteFile(files[f], nil, 0o644)).To(Succeed())
		}
		env := []string{"PATH=" + strings.Join(append(r.path, os.Getenv("PATH")), ":"), "HOME=" + os.Getenv("HOME"),
			"GITHUB_ACTION_PATH=" + root, "RUNNER_TEMP=" + filepath.Join(r.dir, "..", "runner-temp"),
			"GITHUB_STEP_SUMMARY=" + r.summary, "GITHUB_PATH=" + files["GITHUB_PATH"], "GITHUB_OUTPUT=" + files["GITHUB_OUTPUT"]}
		for k, expr := range st.Env {
			m := inputRef.FindStringSubmatch(expr)
			Expect(m).NotTo(BeNil(), "step %s: env %s = %q is not an input", st.ID, k, expr)
			env = append(env, k+"="+value(m[1]))
		}
		cmd := exec.CommandContext(ctx, "bash", "-e", "-c", st.Run)
		cmd.Dir, cmd.Env = r.dir, env
		cmd.Stdout, cmd.Stderr = &r.log, &r.log
		err := cmd.Run()
		added, _ := os.ReadFile(files["GITHUB_PATH"])
		for _, p := range strings.Fields(string(added)) {
			r.path = append([]string{p}, r.path...)
		}
		if err != nil {
			fmt.Fprintf(&r.log, "\nstep %s: %v\n", st.ID, err)
			return st.ID
		}
	}
	return ""
}

// fakeRelease serves vipctl (the suite's build) as release tag's archive and checksums.txt,
// named as .goreleaser.yaml names them; corrupt makes the archive differ from its checksum.
func fakeRelease(tag string, corrupt bool) string {
	dir := GinkgoT().TempDir()
	Expect(os.MkdirAll(filepath.Join(dir, tag), 0o755)).To(Succeed())
	name := fmt.Sprintf("vipctl_%s_linux_amd64.tar.gz", strings.TrimPrefix(tag, "v"))
	f, err := os.Create(filepath.Join(dir, tag, name))
	Expect(err).NotTo(HaveOccurred())
	sum := sha256.New()
	gz := gzip.NewWriter(io.MultiWriter(f, sum))
	tw := tar.NewWriter(gz)
	bin, err := os.ReadFile(vipctl)
	Expect(err).NotTo(HaveOccurred())
	Expect(tw.WriteHeader(&tar.Header{Name: "vipctl", Mode: 0o755, Size: int64(len(bin))})).To(Succeed())
	_, err = tw.Write(bin)
	Expect(err).NotTo(HaveOccurred())
	Expect(tw.Close()).To(Succeed())
	Expect(gz.Close()).To(Succeed())
	Expect(f.Close()).To(Succeed())
	digest := hex.EncodeToString(sum.Sum(nil))
	if corrupt {
		digest = strings.Repeat("0", len(digest))
	}
	Expect(os.WriteFile(filepath.Join(dir, tag, "checksums.txt"), []byte(digest+"  "+name+"\n"), 0o644)).To(Succeed())
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	DeferCleanup(srv.Close)
	return srv.URL
}

// junitReport is the part of a JUnit file the spec reads.
type junitReport struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Cases []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(path string) junitReport {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var rep junitReport
	Expect(xml.Unmarshal(b, &rep)).To(Succeed(), "%s:\n%s", path, b)
	return rep
}

// The GitHub Action (action.yml) as a team's workflow runs it: installs the pinned release
// (served here from a local server, checked against its checksums), then preflight, check,
// deploy and scores update against a rollup started by `vipctl localnet up`, with a job
// summary and JUnit reports, and no key in any output.
var _ = Describe("the vipctl GitHub Action", Label("action", "evm", "embedded"), Ordered, func() {
	const tag = "v0.0.0-test"
	var env map[string]string
	var secrets []string

	BeforeAll(func(ctx SpecContext) {
		env = map[string]string{}
		for _, kv := range startChain(ctx, chain{vip.EVM, "embedded"}, 1) {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		secrets = []string{env["PRIVATE_KEY"], strings.TrimPrefix(env["PRIVATE_KEY"], "0x"), env["MNEMONIC"]}
	})

	newRun := func() *actionRun {
		base := GinkgoT().TempDir()
		r := &actionRun{dir: filepath.Join(base, "workspace"), summary: filepath.Join(base, "summary.md")}
		Expect(os.MkdirAll(r.dir, 0o755)).To(Succeed())
		DeferCleanup(func() {
			if CurrentSpecReport().Failed() {
				AddReportEntry("action log", r.log.String())
			}
		})
		return r
	}
	rollupInputs := func(release string) map[string]string {
		return map[string]string{"version": tag, "release-url": release, "vm": "evm",
			"json-rpc-url": env["JSON_RPC_URL"], "comet-rpc-url": env["COMET_RPC_URL"], "rest-url": env["REST_URL"],
			"l1-rest-url": env["L1_REST_URL"], "vip-module-address": env["VIP_MODULE_ADDRESS"],
			"private-key": env["PRIVATE_KEY"], "mnemonic": env["MNEMONIC"]}
	}
	noSecrets := func(texts ...string) {
		for _, t := range texts {
			for _, s := range secrets {
				if s != "" {
					Expect(t).NotTo(ContainSubstring(s), "a key was printed")
				}
			}
		}
	}

	It("checks, deploys and pushes a score file, and reports each step", func(ctx SpecContext) {
		r := newRun()
		scoresFile, err := filepath.Abs(filepath.Join(repoRoot, "fixtures", "scores", "small.csv"))
		Expect(err).NotTo(HaveOccurred())
		in := rollupInputs(fakeRelease(tag, false))
		in["deploy"], in["scores-file"] = "true", scoresFile
		Expect(r.run(ctx, in)).To(BeEmpty(), r.log.String())

		summary, err := os.ReadFile(r.summary)
		Expect(err).NotTo(HaveOccurred())
		for _, row := range []string{"| preflight | passed |", "| check | passed |", "| deploy | passed |", "| scores update | passed |"} {
			Expect(string(summary)).To(ContainSubstring(row))
		}
		Expect(string(summary)).To(ContainSubstring("### vipctl evm: vipctl "))
		steps := readJUnit(filepath.Join(r.dir, "vipctl-reports", "steps.xml"))
		Expect(steps.Tests).To(Equal(4))
		Expect(steps.Failures).To(BeZero())
		check := readJUnit(filepath.Join(r.dir, "vipctl-reports", "check.xml"))
		Expect(check.Failures).To(BeZero())
		Expect(check.Tests).To(BeNumerically(">", 1))
		reports, _ := os.ReadFile(filepath.Join(r.dir, "vipctl-reports", "steps.xml"))
		noSecrets(r.log.String(), string(summary), string(reports))
	})

	It("reports a failed step in the summary and the JUnit report, and fails the job", func(ctx SpecContext) {
		r := newRun()
		bad, err := filepath.Abs(filepath.Join(repoRoot, "fixtures", "scores", "bad-checksum.csv"))
		Expect(err).NotTo(HaveOccurred())
		in := rollupInputs(fakeRelease(tag, false))
		in["scores-file"] = bad
		Expect(r.run(ctx, in)).To(Equal("run"))
		summary, err := os.ReadFile(r.summary)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(summary)).To(ContainSubstring("| scores update | failed (exit 2) |"))
		steps := readJUnit(filepath.Join(r.dir, "vipctl-reports", "steps.xml"))
		Expect(steps.Failures).To(Equal(1))
		noSecrets(r.log.String(), string(summary))
	})

	It("refuses an archive that differs from the release's checksums", func(ctx SpecContext) {
		r := newRun()
		Expect(r.run(ctx, rollupInputs(fakeRelease(tag, true)))).To(Equal("install"))
		Expect(r.log.String()).To(ContainSubstring("does not match its sha256"))
	})
})
