package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// LocalnetUp runs `vipctl localnet up` with args (and an env file and state dir of the spec's
// own) in its own process group until the spec tree ends, and returns the variables of the
// env file it writes, as K=V. It waits up to wait for that file and fails the spec, with the
// command's output, if the command ends first. At cleanup it stops it as a user does
// (Ctrl-C), then the whole group by its PID, and attaches its output to a failed spec.
func LocalnetUp(ctx context.Context, vipctl string, wait time.Duration, args ...string) []string {
	dir := ginkgo.GinkgoT().TempDir()
	envFile := filepath.Join(dir, "localnet.env")
	cmd := exec.Command(vipctl, append(append([]string{"localnet", "up"}, args...), "--env-file", envFile, "--state-dir", dir)...)
	var log SyncBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	gomega.Expect(cmd.Start()).To(gomega.Succeed())
	// exited is closed once the command ends (waitErr its error): both the wait below and
	// the cleanup read it, so a command that ended early never leaves the cleanup waiting.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	ginkgo.DeferCleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if ginkgo.CurrentSpecReport().Failed() {
			ginkgo.AddReportEntry("localnet log", log.String())
		}
	})
	gomega.Eventually(func() error {
		select {
		case <-exited:
			return gomega.StopTrying(fmt.Sprintf("vipctl localnet up exited (%v):\n%s", waitErr, log.String()))
		default:
		}
		_, err := os.Stat(envFile)
		return err
	}).WithContext(ctx).WithTimeout(wait).WithPolling(100 * time.Millisecond).Should(gomega.Succeed())
	env, err := ReadEnvFile(envFile)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return env
}

// ReadEnvFile reads an env file of `export K=V` lines as K=V (see ParseEnv).
func ReadEnvFile(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	env, err := ParseEnv(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return env, nil
}

// ParseEnv reads `export K=V` lines (V Go-quoted where the file quotes it, as vipctl
// localnet up writes them) as K=V; comment lines are left out.
func ParseEnv(b []byte) ([]string, error) {
	var env []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimPrefix(strings.TrimSpace(sc.Text()), "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		if strings.HasPrefix(v, `"`) {
			var err error
			if v, err = strconv.Unquote(v); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
		}
		env = append(env, k+"="+v)
	}
	return env, sc.Err()
}

// SyncBuffer is a buffer a process writes while the spec reads it.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
