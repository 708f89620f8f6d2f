package scores

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadFileRefusesAFileThatChangesDuringTheRead changes the file from inside the read
// (at its first entry), so each case is deterministic.
func TestReadFileRefusesAFileThatChangesDuringTheRead(t *testing.T) {
	const body = "address,score\n" + addrA + ",1\n" + addrB + ",2\n"
	tests := []struct {
		name   string
		file   string // name, for the format
		body   string
		change func(t *testing.T, path string) // nil: the file stays as it is
		want   error                           // nil: read whole
		n      int                             // entries read, when want is nil
	}{
		{name: "unchanged", file: "s.csv", body: body, n: 2},
		{name: "appended", file: "s.csv", body: body, want: ErrChanged, change: func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			must(t, err)
			_, err = f.WriteString("0x" + strings.Repeat("1", 40) + ",3\n")
			must(t, err)
			must(t, f.Close())
		}},
		{name: "truncated", file: "s.csv", body: body, want: ErrChanged, change: func(t *testing.T, path string) {
			must(t, os.Truncate(path, int64(len(body)/2)))
		}},
		{name: "renamed over, same size and time", file: "s.csv", body: body, want: ErrChanged, change: func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			must(t, err)
			tmp := path + ".tmp"
			must(t, os.WriteFile(tmp, []byte(body), 0o644))
			must(t, os.Chtimes(tmp, fi.ModTime(), fi.ModTime()))
			must(t, os.Rename(tmp, path))
		}},
		{name: "removed", file: "s.csv", body: body, want: ErrChanged, change: func(t *testing.T, path string) {
			must(t, os.Remove(path))
		}},
		{name: "rewritten, same size, new time", file: "s.csv", body: body, want: ErrChanged, change: func(t *testing.T, path string) {
			must(t, os.WriteFile(path, []byte(strings.Replace(body, ",2\n", ",7\n", 1)), 0o644))
			must(t, os.Chtimes(path, time.Now().Add(time.Hour), time.Now().Add(time.Hour)))
		}},
		{name: "CSV last line unterminated", file: "s.csv", body: strings.TrimSuffix(body, "\n"), want: ErrUnterminated},
		{name: "CSV header only, unterminated", file: "s.csv", body: "address,score", want: ErrUnterminated},
		{name: "CSV empty", file: "s.csv", body: "", n: 0},
		{name: "JSON unterminated is whole once its array closes", file: "s.json", body: `[["` + addrA + `", 1]]`, n: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			must(t, os.WriteFile(path, []byte(tt.body), 0o644))
			n := 0
			_, err := ReadFileStamped(path, "", func(Entry) {
				if n == 0 && tt.change != nil {
					tt.change(t, path)
				}
				n++
			})
			if tt.want == nil {
				if err != nil || n != tt.n {
					t.Fatalf("got %d entries, %v; want %d, no error", n, err, tt.n)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v; want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("%q does not name the file", err)
			}
		})
	}
}

func TestParseSkipsAByteOrderMark(t *testing.T) {
	const bom = "\xEF\xBB\xBF"
	tests := []struct {
		name, body string
		f          Format
		want       []Entry
		problem    string
	}{
		{name: "CSV header", body: bom + "address,score\n" + addrA + ",5\n", f: CSV, want: []Entry{{addrA, 5}}},
		{name: "CSV no header", body: bom + addrA + ",5\n", f: CSV, want: []Entry{{addrA, 5}}},
		{name: "JSON", body: bom + `[{"address":"` + addrA + `","score":5}]`, f: JSON, want: []Entry{{addrA, 5}}},
		{name: "only the first is a mark", body: bom + bom + addrA + ",5\n", f: CSV, problem: "not a letter or digit"},
		{name: "a mark inside a line is no mark", body: "address,score\n" + bom + addrA + ",5\n", f: CSV, problem: "not a letter or digit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.body), tt.f)
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("got %v, %v; want an error with %q", got, err, tt.problem)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) || got[0] != tt.want[0] {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
