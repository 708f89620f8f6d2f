// Command junitmerge merges the JUnit reports of the CI matrix's shards into one report and
// prints a summary per shard: `go run ./e2e/junitmerge -out merged.xml DIR...`, where each
// DIR holds one shard's reports (its name is the shard's, as `make e2e SHARD=...` writes
// them) and every *.xml below it is read.
package main

import (
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// suites is a JUnit report's root, as Ginkgo writes it; the suites' contents are kept
// verbatim (innerxml), so nothing a reader of the merged report wants is dropped.
type suites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Disabled int      `xml:"disabled,attr"`
	Errors   int      `xml:"errors,attr"`
	Failures int      `xml:"failures,attr"`
	Time     float64  `xml:"time,attr"`
	Suites   []suite  `xml:"testsuite"`
}

type suite struct {
	Name     string     `xml:"name,attr"`
	Package  string     `xml:"package,attr,omitempty"`
	Tests    int        `xml:"tests,attr"`
	Disabled int        `xml:"disabled,attr"`
	Skipped  int        `xml:"skipped,attr"`
	Errors   int        `xml:"errors,attr"`
	Failures int        `xml:"failures,attr"`
	Time     float64    `xml:"time,attr"`
	Attrs    []xml.Attr `xml:",any,attr"`
	Inner    []byte     `xml:",innerxml"`
}

// shardSum is one shard's totals.
type shardSum struct {
	name                                 string
	tests, failures, errors, skipped, ok int
	time                                 float64
}

func main() {
	out := flag.String("out", "junit.xml", "merged report")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "junitmerge: name at least one folder of shard reports")
		os.Exit(2)
	}
	merged, sums, err := merge(flag.Args())
	if err == nil {
		err = write(*out, merged)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "junitmerge:", err)
		os.Exit(1)
	}
	summary(os.Stdout, sums)
	if merged.Failures+merged.Errors > 0 {
		os.Exit(1)
	}
}

// merge reads every report under dirs; each suite's name gets its shard's as a prefix.
func merge(dirs []string) (suites, []shardSum, error) {
	var all suites
	var sums []shardSum
	for _, dir := range dirs {
		shard := filepath.Base(filepath.Clean(dir))
		sum := shardSum{name: shard}
		var files []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".xml") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			return suites{}, nil, fmt.Errorf("read shard %s: %w", dir, err)
		}
		if len(files) == 0 {
			return suites{}, nil, fmt.Errorf("shard %s: no JUnit report (*.xml) in %s", shard, dir)
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return suites{}, nil, err
			}
			var r suites
			if err := xml.Unmarshal(b, &r); err != nil {
				return suites{}, nil, fmt.Errorf("%s: not a JUnit report: %w", f, err)
			}
			for _, s := range r.Suites {
				s.Name = shard + ": " + s.Name
				all.Suites = append(all.Suites, s)
				all.Tests += s.Tests
				all.Disabled += s.Disabled
				all.Errors += s.Errors
				all.Failures += s.Failures
				all.Time += s.Time
				sum.tests += s.Tests
				sum.failures += s.Failures
				sum.errors += s.Errors
				sum.skipped += s.Skipped + s.Disabled
				sum.time += s.Time
			}
		}
		sum.ok = sum.tests - sum.failures - sum.errors - sum.skipped
		sums = append(sums, sum)
	}
	return all, sums, nil
}

func write(path string, r suites) error {
	b, err := xml.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}

// summary is a Markdown table (GitHub shows it as the job summary).
func summary(w io.Writer, sums []shardSum) {
	fmt.Fprintln(w, "| shard | specs | passed | failed | skipped or filtered out | suite time (s) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, s := range sums {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.1f |\n", s.name, s.tests, s.ok, s.failures+s.errors, s.skipped, s.time)
	}
}
