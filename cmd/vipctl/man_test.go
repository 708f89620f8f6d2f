package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// `vipctl man` writes one page per command a user can run or ask help about, completion's
// shells included, each naming its command.
func TestManPageForEveryCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SOURCE_DATE_EPOCH", "0")
	if out, err := runVipctl(t, nil, "man", "--dir", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	root := newRoot()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var paths []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		paths = append(paths, c.CommandPath())
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
				walk(sub)
			}
		}
	}
	walk(root)
	for _, want := range []string{"vipctl deploy", "vipctl scores update", "vipctl completion bash", "vipctl version"} {
		if !contains(paths, want) {
			t.Errorf("no command %q among %v", want, paths)
		}
	}
	for _, p := range paths {
		page := filepath.Join(dir, strings.ReplaceAll(p, " ", "-")+".1")
		b, err := os.ReadFile(page)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !strings.Contains(string(b), `.TH "VIPCTL" "1"`) || !strings.Contains(string(b), ".SH NAME\n"+strings.ReplaceAll(p, " ", "-")+" - ") {
			t.Errorf("%s: the page does not name its command:\n%s", page, b)
		}
		if strings.Contains(string(b), "Auto generated") {
			t.Errorf("%s: carries cobra's generation stamp", page)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	if len(files) != len(paths) {
		t.Errorf("%d pages for %d commands: a hidden command got one, or a page is missing", len(files), len(paths))
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// cobra's completion command writes a script per shell.
func TestCompletionScripts(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "__start_vipctl", "zsh": "#compdef vipctl", "fish": "complete -c vipctl", "powershell": "Register-ArgumentCompleter"} {
		out, err := runVipctl(t, nil, "completion", shell)
		if err != nil || !strings.Contains(out, marker) {
			t.Errorf("completion %s: %v; want %q in:\n%.300s", shell, err, marker, out)
		}
	}
}

// version prints the release stamps when the build set them, in words and as JSON.
func TestVersionStamps(t *testing.T) {
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	version, commit, date = "v1.2.3", "0123abcd", "2026-11-28T00:00:00Z"
	out, err := runVipctl(t, nil, "version")
	if err != nil || !strings.HasPrefix(out, "vipctl v1.2.3 (commit 0123abcd, 2026-11-28T00:00:00Z, go") {
		t.Fatalf("%v: %q", err, out)
	}
	out, err = runVipctl(t, nil, "version", "--json")
	var v versionInfo
	if err != nil || json.Unmarshal([]byte(out), &v) != nil || v.Version != "v1.2.3" || v.Commit != "0123abcd" || v.Modified {
		t.Fatalf("%v: %q", err, out)
	}
}
