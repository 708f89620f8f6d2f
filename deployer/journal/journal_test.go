package journal

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFoldAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := []Record{
		{Op: OpBegin, Stage: 3, Input: "abc", Chunks: 3, ChunkSize: 10},
		{Op: OpSigned, Chunk: 0, Sequence: 1, Hash: "0x01", Raw: "aa"},
		{Op: OpConfirmed, Chunk: 0, Hash: "0x01", GasUsed: 100},
		{Op: OpSigned, Chunk: 1, Sequence: 2, Hash: "0x02"},
		{Op: OpDropped, Chunk: 1, Hash: "0x02"},
		{Op: OpSigned, Chunk: 1, Sequence: 3, Hash: "0x03"},
		{Op: OpSigned, Chunk: 2, Sequence: 4, Hash: "0x04"},
		{Op: OpFailed, Chunk: 2, Hash: "0x04", Error: "reverted: StageFinalized(3)"},
	}
	for _, r := range recs {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	j = reopen(t, j)
	b, ok := j.Begin()
	if !ok || b.Stage != 3 || b.Chunks != 3 || b.ChunkSize != 10 || b.Input != "abc" {
		t.Fatalf("begin = %+v, %v", b, ok)
	}
	tests := []struct {
		chunk     int
		confirmed bool
		failed    string
		attempts  []string
	}{
		{0, true, "", nil}, // a confirmed chunk keeps no signed txs
		{1, false, "", []string{"0x03"}},
		{2, false, "reverted: StageFinalized(3)", nil},
		{7, false, "", nil},
	}
	for _, tc := range tests {
		c := j.Chunk(tc.chunk)
		var hashes []string
		for _, a := range c.Attempts {
			hashes = append(hashes, a.Hash)
		}
		if c.Confirmed != tc.confirmed || c.Failed != tc.failed || len(hashes) != len(tc.attempts) {
			t.Fatalf("chunk %d = %+v, want confirmed=%v failed=%q attempts=%v", tc.chunk, c, tc.confirmed, tc.failed, tc.attempts)
		}
		for i := range hashes {
			if hashes[i] != tc.attempts[i] {
				t.Fatalf("chunk %d attempts %v, want %v", tc.chunk, hashes, tc.attempts)
			}
		}
	}
}

func TestTornTailIsDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Record{Op: OpSigned, Chunk: 0, Hash: "0x01"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"op":"confirmed","chunk":0,"ha`)
	f.Close()

	j, err = Open(path)
	if err != nil {
		t.Fatalf("open with torn tail: %v", err)
	}
	if c := j.Chunk(0); c.Confirmed || len(c.Attempts) != 1 {
		t.Fatalf("torn confirm applied: %+v", c)
	}
	if err := j.Append(Record{Op: OpConfirmed, Chunk: 0, Hash: "0x01"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j, err = Open(path)
	if err != nil {
		t.Fatalf("reopen after repair: %v", err)
	}
	defer j.Close()
	if !j.Chunk(0).Confirmed {
		t.Fatal("confirm after repair lost")
	}
}

func TestCorruptMiddleIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	os.WriteFile(path, []byte("{\"op\":\"begin\"}\nnot json\n{\"op\":\"signed\"}\n"), 0o644)
	if _, err := Open(path); err == nil {
		t.Fatal("corrupt journal opened without error")
	}
}

func TestKeyPathIsSafe(t *testing.T) {
	p := Key{ChainID: "../../etc", Contract: "0xAbC", Stage: 4, Input: "0123456789abcdef0123"}.Path("/j")
	if p != "/j/.._.._etc/0xabc/stage-4-0123456789abcdef.jsonl" {
		t.Fatalf("path %s", p)
	}
}

func TestDefaultDirIsAbsolute(t *testing.T) {
	for _, tc := range []struct{ state, home, want string }{
		{"/var/state", "/home/u", "/var/state/vipharness/journal"},
		{"", "/home/u", "/home/u/.local/state/vipharness/journal"},
		{"relative", "/home/u", "/home/u/.local/state/vipharness/journal"},
	} {
		t.Setenv("XDG_STATE_HOME", tc.state)
		t.Setenv("HOME", tc.home)
		got, err := DefaultDir()
		if err != nil || got != tc.want {
			t.Errorf("XDG_STATE_HOME=%q HOME=%q: %q %v, want %q", tc.state, tc.home, got, err, tc.want)
		}
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	if _, err := DefaultDir(); err == nil {
		t.Error("no state home and no home gives a folder")
	}
}

// TestGroupCommit: the txs of a window appended together cost one sync, and read back as
// separate attempts.
func TestGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Record{Op: OpBegin, Stage: 1, Chunks: 3, ChunkSize: 1}); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Record{Op: OpSigned, Chunk: 0, Hash: "0x01", Sequence: 4}); err != nil {
		t.Fatal(err)
	}
	before := j.Syncs()
	if err := j.Append(Record{Op: OpSigned, Chunk: 1, Hash: "0x02", Sequence: 5}, Record{Op: OpSigned, Chunk: 2, Hash: "0x03", Sequence: 6}); err != nil {
		t.Fatal(err)
	}
	if got := j.Syncs() - before; got != 1 {
		t.Fatalf("two signed records appended together: %d syncs, want 1", got)
	}
	j = reopen(t, j)
	for i, hash := range []string{"0x01", "0x02", "0x03"} {
		if a := j.Chunk(i).Attempts; len(a) != 1 || a[0].Hash != hash || a[0].Sequence != uint64(4+i) {
			t.Fatalf("chunk %d: attempts %+v, want %s at sequence %d", i, a, hash, 4+i)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if got := j.Syncs(); got != 0 {
		t.Fatalf("a journal opened and closed without a write synced %d times", got)
	}
}

func TestOutcomesRideOnTheNextSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		rec   Record
		syncs int // syncs after the append
	}{
		{Record{Op: OpBegin, Stage: 1, Chunks: 2, ChunkSize: 1}, 0}, // rides with the first signed tx
		{Record{Op: OpSigned, Chunk: 0, Hash: "0x01"}, 2},           // the file, and once its new folder entry
		{Record{Op: OpConfirmed, Chunk: 0, Hash: "0x01"}, 2},
		{Record{Op: OpSigned, Chunk: 1, Hash: "0x02"}, 3},
		{Record{Op: OpFailed, Chunk: 1, Hash: "0x02", Error: "reverted"}, 3},
	}
	for _, s := range steps {
		if err := j.Append(s.rec); err != nil {
			t.Fatal(err)
		}
		if got := j.Syncs(); got != s.syncs {
			t.Fatalf("after %s: %d syncs, want %d", s.rec.Op, got, s.syncs)
		}
	}
	j = reopen(t, j)
	if !j.Chunk(0).Confirmed || j.Chunk(1).Failed != "reverted" {
		t.Fatalf("outcomes lost at close: %+v %+v", j.Chunk(0), j.Chunk(1))
	}
}

// ReadBegin reads the plan from the first line alone; a journal without a complete plan
// line has none.
func TestReadBegin(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plan := `{"op":"begin","chunk":0,"stage":4,"input":"ab","order":"canonical","chunks":2,"chunk_size":7}`
	for _, tc := range []struct {
		name, text string
		ok         bool
		problem    string
	}{
		{"plan then more", plan + "\n" + `{"op":"signed","chunk":0,"hash":"0x1"}` + "\n" + "torn", true, ""},
		{"empty", "", false, ""},
		{"torn plan", plan[:20], false, ""},
		{"no plan first", `{"op":"signed","chunk":0}` + "\n", false, ""},
		{"not json", "nope\n", false, "line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok, err := ReadBegin(write(tc.name, tc.text))
			if tc.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tc.problem) {
					t.Fatalf("err %v, want %q", err, tc.problem)
				}
				return
			}
			if err != nil || ok != tc.ok {
				t.Fatalf("ok %v, %v", ok, err)
			}
			if ok && (r.Stage != 4 || r.Input != "ab" || r.Order != OrderCanonical || r.Chunks != 2 || r.ChunkSize != 7) {
				t.Fatalf("plan %+v", r)
			}
		})
	}
}

// reopen closes j and opens its file again, as a re-run does; the test closes it.
func reopen(t *testing.T, j *Journal) *Journal {
	t.Helper()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	return again
}

// WriteFileDurably makes the file with the permissions asked for, also over a stale
// temporary file left wider open by a crash, and leaves no temporary file behind.
func TestWriteFileDurablyKeepsPermissions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "localnet.env")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".tmp", []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"export MNEMONIC=first\n", "export MNEMONIC=second\n"} {
		if err := WriteFileDurably(path, 0o600, func(w io.Writer) error { _, err := io.WriteString(w, body); return err }); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != body {
			t.Fatalf("read back %q, %v; want %q", got, err, body)
		}
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v, %v; want 0600", st.Mode().Perm(), err)
		}
		if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
			t.Fatalf("temporary file left: %v", err)
		}
	}
	if err := WriteFileDurably(path, 0o600, func(io.Writer) error { return io.ErrShortWrite }); err == nil {
		t.Fatal("a failed write was not reported")
	}
	if got, _ := os.ReadFile(path); string(got) != "export MNEMONIC=second\n" {
		t.Fatalf("a failed write replaced the file: %q", got)
	}
}
