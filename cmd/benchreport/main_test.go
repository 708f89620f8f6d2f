package main

import (
	"strings"
	"testing"
)

// A report splits before each "## " heading and joins back to itself; a section is found
// by its heading's name, the part before its first ":" or "(".
func TestSectionsSplitAndName(t *testing.T) {
	report := "# Benchmarks\n\nWritten on a day.\n\n## Move deployer: publish (old words)\n\nrows\n\n## Move contract gas (ours)\n\n| a | b |\n<!-- marker -->\n## Move gas (issue 19), by hand\n"
	sections := splitSections(report)
	if got := strings.Join(sections, ""); got != report {
		t.Fatalf("joined sections differ from the report:\n%s", got)
	}
	for i, want := range []string{"# Benchmarks", "Move deployer", "Move contract gas", "Move gas"} {
		if i >= len(sections) {
			t.Fatalf("%d sections, want 4", len(sections))
		}
		if i == 0 {
			if !strings.HasPrefix(sections[0], want) {
				t.Fatalf("first piece %q", sections[0])
			}
			continue
		}
		if got := sectionName(sections[i]); got != want {
			t.Fatalf("section %d named %q, want %q", i, got, want)
		}
	}
	if got := sectionName("## Move deployer: publish and throughput (the minitia app + libmovevm)"); got != "Move deployer" {
		t.Fatalf("a suite's title named %q", got)
	}
}
