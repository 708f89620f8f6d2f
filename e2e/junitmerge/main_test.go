package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report as Ginkgo writes it (trimmed): one suite, a passed, a failed and a skipped spec.
const ginkgoReport = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" disabled="1" errors="0" failures="1" time="12.5">
  <testsuite name="Fault suite" package="/w/e2e/fault" tests="3" disabled="1" skipped="0" errors="0" failures="1" time="12.5" timestamp="2026-11-24T22:00:00">
    <properties><property name="SuiteSucceeded" value="false"></property></properties>
    <testcase name="[It] waits for the node" classname="Fault suite" status="passed" time="10"></testcase>
    <testcase name="[It] restarts" classname="Fault suite" status="failed" time="2.5"><failure message="boom" type="failed">boom &amp; more</failure></testcase>
    <testcase name="[It] skipped one" classname="Fault suite" status="skipped" time="0"><skipped message="skipped"></skipped></testcase>
  </testsuite>
</testsuites>
`

func TestMergeKeepsSpecsAndPrefixesShards(t *testing.T) {
	root := t.TempDir()
	for _, shard := range []string{"evm-container", "wasm-process"} {
		if err := os.MkdirAll(filepath.Join(root, shard), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, shard, "junit.xml"), []byte(ginkgoReport), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	merged, sums, err := merge([]string{filepath.Join(root, "evm-container"), filepath.Join(root, "wasm-process")})
	if err != nil {
		t.Fatal(err)
	}
	if merged.Tests != 6 || merged.Failures != 2 || merged.Disabled != 2 || merged.Time != 25 || len(merged.Suites) != 2 {
		t.Fatalf("totals %+v", merged)
	}
	if merged.Suites[0].Name != "evm-container: Fault suite" || merged.Suites[1].Name != "wasm-process: Fault suite" {
		t.Fatalf("names %q, %q", merged.Suites[0].Name, merged.Suites[1].Name)
	}
	out := filepath.Join(root, "merged.xml")
	if err := write(out, merged); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	for _, want := range []string{`<testcase name="[It] restarts"`, `boom &amp; more`, `package="/w/e2e/fault"`, `timestamp="2026-11-24T22:00:00"`, `<testsuites tests="6"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("merged report lacks %s:\n%s", want, b)
		}
	}
	var sb strings.Builder
	summary(&sb, sums)
	if !strings.Contains(sb.String(), "| evm-container | 3 | 1 | 1 | 1 | 12.5 |") {
		t.Fatalf("summary:\n%s", sb.String())
	}
}

func TestMergeRefusesAShardWithoutReports(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "move-process")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := merge([]string{dir}); err == nil || !strings.Contains(err.Error(), "shard move-process: no JUnit report") {
		t.Fatalf("err = %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junit.xml"), []byte("not xml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := merge([]string{dir}); err == nil || !strings.Contains(err.Error(), "not a JUnit report") {
		t.Fatalf("err = %v", err)
	}
}
