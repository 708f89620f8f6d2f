package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/conformance"
	"github.com/vipharness/vipharness/deployer/vip"
)

// docker runs the docker CLI with args (env on top of this process's) and returns its
// output and error.
func docker(ctx context.Context, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// The container image (cmd/vipctl/Dockerfile, FROM scratch) built as `make image` builds
// it, from vipctl linked as the release links it: it runs `vipctl version`, and `vipctl
// check` against a rollup on this host. The rollup's servers listen on the host's
// 127.0.0.1 only, which a container reaches on the host's network alone: so the engine
// must be this machine's (the default socket), as a team's CI job runs the image beside
// its rollup.
var _ = Describe("the vipctl image", Label("image", "evm", "container"), Ordered, func() {
	var ref string

	BeforeAll(func(ctx SpecContext) {
		engines := os.Getenv("E2E_ENGINES")
		if !strings.Contains(engines, "container") {
			Skip("E2E_ENGINES has no container engine")
		}
		if out, err := docker(ctx, nil, "info", "--format", "{{.ServerVersion}}"); err != nil {
			if os.Getenv("REQUIRE_DOCKER") == "1" || os.Getenv("CI") == "true" {
				Fail(fmt.Sprintf("REQUIRE_DOCKER=1 or CI=true: no Docker engine: %s", out))
			}
			Skip("no Docker engine: " + out)
		}
		// vipctl as .goreleaser.yaml links it: libwasmvm is found beside it or in ../lib (no
		// -trimpath: the build reuses the packages the tests compiled).
		dir := GinkgoT().TempDir()
		bin := filepath.Join(dir, "release", "vipctl")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin,
			"-ldflags", "-X main.version=v0.0.0-image -extldflags=-Wl,-rpath,$ORIGIN:$ORIGIN/../lib", "github.com/vipharness/vipharness/cmd/vipctl")
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", out)
		ldd, err := exec.CommandContext(ctx, "ldd", bin).Output()
		Expect(err).NotTo(HaveOccurred())
		var wasmvm string
		for _, line := range strings.Split(string(ldd), "\n") {
			if f := strings.Fields(line); len(f) >= 3 && f[0] == "libwasmvm.x86_64.so" {
				wasmvm = f[2]
			}
		}
		Expect(wasmvm).NotTo(BeEmpty(), "ldd names no libwasmvm:\n%s", ldd)
		lib, err := os.ReadFile(wasmvm)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, "release", "libwasmvm.x86_64.so"), lib, 0o755)).To(Succeed())

		buildDir := filepath.Join(dir, "context")
		script := filepath.Join(repoRoot, "cmd", "vipctl", "image-context.sh")
		out, err = exec.CommandContext(ctx, "bash", script, filepath.Join(dir, "release"), buildDir).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", out)
		ref = fmt.Sprintf("vipharness/vipctl:e2e-%d", os.Getpid())
		out2, err := docker(ctx, nil, "build", "-q", "--label", "vipharness=image", "-t", ref, "-f", filepath.Join(repoRoot, "cmd", "vipctl", "Dockerfile"), buildDir)
		Expect(err).NotTo(HaveOccurred(), out2)
		DeferCleanup(func(ctx context.Context) {
			out, err := docker(ctx, nil, "rmi", "-f", ref)
			Expect(err).NotTo(HaveOccurred(), out)
		})
	})

	It("prints its version", func(ctx SpecContext) {
		out, err := docker(ctx, nil, "run", "--rm", ref, "version")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(HavePrefix("vipctl v0.0.0-image (commit "))
	})

	It("checks a rollup on the host", func(ctx SpecContext) {
		env := startChain(ctx, chain{vip.EVM, "embedded"}, 1)
		// -e NAME passes the value from the docker CLI's environment: no key is in its arguments.
		args := []string{"run", "--rm", "--network", "host"}
		var secrets []string
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			args = append(args, "-e", k)
			if k == "PRIVATE_KEY" || k == "MNEMONIC" {
				secrets = append(secrets, v)
			}
		}
		out, err := docker(ctx, env, append(args, ref, "check", "--json", "--no-progress")...)
		for _, s := range secrets {
			Expect(out).NotTo(ContainSubstring(s), "a key was printed")
		}
		Expect(err).NotTo(HaveOccurred(), out)
		var rep conformance.Report
		Expect(json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep)).To(Succeed(), out)
		Expect(failed(rep)).To(BeEmpty())
		Expect(len(rep.Checks)).To(BeNumerically(">", 10))
	})
})
