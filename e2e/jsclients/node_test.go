package jsclients_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
)

// call is one SDK call a script made: the line it prints on stdout as JSON.
type call struct {
	Name  string `json:"call"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// requireClients reports whether a missing Node or npm package must fail instead of skip.
func requireClients() bool {
	return os.Getenv("REQUIRE_TOOLCHAIN") == "1" || os.Getenv("CI") == "true"
}

// ensureClients skips (or, when required, fails) the spec when Node or the pinned packages
// are not installed (`make setup-jsclients`).
func ensureClients() {
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join("node_modules", ".package-lock.json")); err != nil {
		missing = "e2e/jsclients/node_modules is missing (make setup-jsclients)"
	}
	if missing == "" {
		return
	}
	if requireClients() {
		Fail("JS clients required: " + missing)
	}
	Skip(missing)
}

// runScript runs a script of this folder with node, the environment given added, and
// returns the calls it reported, one JSON line each. Lines that are not JSON objects go to
// the spec's log. A script that exits non-zero is an error carrying its stderr.
func runScript(ctx context.Context, script string, env map[string]string) ([]call, error) {
	ensureClients()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var calls []call
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		var c call
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &c) == nil && c.Name != "" {
			calls = append(calls, c)
			continue
		}
		fmt.Fprintln(GinkgoWriter, line)
	}
	if stderr.Len() > 0 {
		fmt.Fprintf(GinkgoWriter, "%s stderr:\n%s\n", script, stderr.String())
	}
	if runErr != nil {
		return calls, fmt.Errorf("node %s: %w: %s", script, runErr, lastLines(stderr.String(), 20))
	}
	return calls, nil
}

// failed lists the calls that did not pass, one line each.
func failed(calls []call) []string {
	var out []string
	for _, c := range calls {
		if !c.OK {
			out = append(out, c.Name+": "+c.Error)
		}
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
