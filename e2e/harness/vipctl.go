package harness

import (
	"bytes"
	"context"
	"os"
	"os/exec"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// BuildVipctl registers the suite nodes that build cmd/vipctl once per suite run (on the
// first parallel process) and store its path in *bin for every process, and remove the
// build when the suite ends. Use it at package level: var _ = harness.BuildVipctl(&vipctl).
func BuildVipctl(bin *string) bool {
	ginkgo.SynchronizedBeforeSuite(func() []byte {
		path, err := gexec.Build("github.com/vipharness/vipharness/cmd/vipctl")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return []byte(path)
	}, func(path []byte) {
		*bin = string(path)
	})
	ginkgo.SynchronizedAfterSuite(func() {}, gexec.CleanupBuildArtifacts)
	return true
}

// Vipctl runs a built vipctl binary to completion, the way a user would.
type Vipctl struct {
	Bin     string
	Dir     string   // working directory ("": this process's)
	Env     []string // on top of this process's environment
	Secrets []string // keys or parts of them: the spec fails if the output holds any
}

// Run runs vipctl with args and returns what it printed (stdout and stderr together) and its
// exit code.
func (v Vipctl) Run(ctx context.Context, args ...string) (string, int) {
	cmd := exec.CommandContext(ctx, v.Bin, args...)
	cmd.Env = append(os.Environ(), v.Env...)
	cmd.Dir = v.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	}
	for _, s := range v.Secrets {
		if s != "" {
			gomega.Expect(out.String()).NotTo(gomega.ContainSubstring(s), "a key must never be printed")
		}
	}
	return out.String(), code
}

// RunVipctl runs vipctl with the Env's operator environment, a state directory and no
// progress bar.
func (e *Env) RunVipctl(ctx context.Context, bin, stateDir string, args ...string) (string, int) {
	v := Vipctl{Bin: bin, Env: e.VipctlEnv(), Secrets: []string{e.OperatorSecret()}}
	return v.Run(ctx, append([]string{"--state-dir", stateDir, "--no-progress"}, args...)...)
}
