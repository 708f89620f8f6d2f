// Package process runs real node binaries as child processes: each with its own temporary
// home, loopback-only ports and captured log, stopped by PID (its whole process group) and
// killed by the kernel if this process dies first, so no node outlives a test run.
package process

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vipharness/vipharness/localnet"
)

// node is one running child process.
type node struct {
	name   string
	cmd    *exec.Cmd
	home   string
	log    *tail
	logger *slog.Logger
	done   chan struct{}
	err    error // set when done closes
	once   sync.Once
}

// start launches bin with args; its output goes to home/<name>.log and a tail kept in memory.
func start(name, bin, home string, logger *slog.Logger, args ...string) (*node, error) {
	return startEnv(name, bin, home, nil, logger, args...)
}

// Node is a child process started by Launch: its own process group, its log in its home and
// the last 64 KiB in memory, killed by the kernel if this process dies first.
type Node struct{ n *node }

// Launch starts bin with args in home, with env added to this process's environment (for
// the node's shared libraries, say), as the engines start their nodes.
func Launch(name, bin, home string, env []string, logger *slog.Logger, args ...string) (*Node, error) {
	n, err := startEnv(name, bin, home, env, logger, args...)
	if err != nil {
		return nil, err
	}
	return &Node{n}, nil
}

// Exited reports whether the process has ended, with its error.
func (n *Node) Exited() (bool, error) { return n.n.exited() }

// Stop sends SIGTERM to the process group, then SIGKILL after grace; it waits for the exit.
func (n *Node) Stop(grace time.Duration) error { return n.n.stop(grace) }

// Logs returns the last 512 KiB the node printed.
func (n *Node) Logs() string { return n.n.Logs() }

// PID is the process id.
func (n *Node) PID() int { return n.n.cmd.Process.Pid }

// LastLines is the last n lines of s.
func LastLines(s string, n int) string { return lastLines(s, n) }

func startEnv(name, bin, home string, env []string, logger *slog.Logger, args ...string) (*node, error) {
	logFile, err := os.Create(filepath.Join(home, name+".log"))
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	t := &tail{max: 512 << 10} // room for a goroutine dump (Dump)
	cmd := exec.Command(bin, args...)
	cmd.Dir = home
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout = multi{logFile, t}
	cmd.Stderr = cmd.Stdout
	// Own process group, so Stop reaches children too; Pdeathsig, so a crashed or
	// SIGKILLed test run takes its nodes with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, bin, err)
	}
	n := &node{name: name, cmd: cmd, home: home, log: t, logger: logger, done: make(chan struct{})}
	logger.Debug("node started", "node", name, "pid", cmd.Process.Pid, "home", home)
	go func() {
		n.err = cmd.Wait()
		logFile.Close()
		close(n.done)
	}()
	return n, nil
}

// exited reports whether the process has ended, with its error.
func (n *node) exited() (bool, error) {
	select {
	case <-n.done:
		return true, n.err
	default:
		return false, nil
	}
}

// stop sends SIGTERM to the process group, then SIGKILL after grace; it waits for the exit.
func (n *node) stop(grace time.Duration) error {
	n.once.Do(func() {
		pid := n.cmd.Process.Pid
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		select {
		case <-n.done:
		case <-time.After(grace):
			n.logger.Warn("node did not stop in time; killing", "node", n.name, "pid", pid)
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-n.done
		}
		n.logger.Debug("node stopped", "node", n.name, "pid", pid)
	})
	return nil
}

// Logs returns the last 512 KiB the node printed.
func (n *node) Logs() string { return n.log.String() }

func lastLines(s string, n int) string {
	lines := bytes.Split(bytes.TrimRight([]byte(s), "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// tail keeps the last max bytes written.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// multi writes to every writer; a failing log file never blocks the node.
type multi []interface{ Write([]byte) (int, error) }

func (m multi) Write(p []byte) (int, error) {
	for _, w := range m {
		_, _ = w.Write(p)
	}
	return len(p), nil
}

var errNoBinary = errors.New("node binary not found")

// findBinary locates a node binary in dirs, then $PATH; the error says how to get it.
func findBinary(dirs []string, name string) (string, error) {
	for _, dir := range dirs {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	how := "run `make nodes` in a vipharness checkout"
	if _, ok := localnet.ModuleRoot(); !ok {
		how += fmt.Sprintf(" (it builds them into its .cache/nodes) and copy them to %s, or set VIPHARNESS_NODES to that .cache/nodes", dirs[len(dirs)-1])
	}
	return "", fmt.Errorf("%w: %s not in %s or $PATH: %s", errNoBinary, name, strings.Join(dirs, ", "), how)
}
