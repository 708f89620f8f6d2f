package scores

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// canonicalOrder is entries sorted as a Set keeps them (by address bytes; the tests use one width).
func canonicalOrder(t *testing.T, entries []Entry, codec Codec) []Entry {
	t.Helper()
	out := slices.Clone(entries)
	slices.SortFunc(out, func(a, b Entry) int {
		x, err := codec.Decode(a.Addr)
		if err != nil {
			t.Fatal(err)
		}
		y, err := codec.Decode(b.Addr)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Compare(x, y)
	})
	return out
}

// LoadSet validates as it reads: the same entries (in canonical order, each remembering its
// place in the input), or the same problems, as ParseFile then Validate.
func TestLoadSetIsParseThenValidate(t *testing.T) {
	dir := t.TempDir()
	lower := filepath.Join(dir, "lower.csv")
	var b strings.Builder
	b.WriteString("address,score\n")
	for _, e := range Generate(300, 5) {
		fmt.Fprintf(&b, "%s,%d\n", strings.ToLower(e.Addr), e.Amount)
	}
	if err := os.WriteFile(lower, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{lower}
	for _, f := range []string{"small.csv", "small.json", "bad-checksum.csv", "duplicate.csv", "overflow.csv", "empty.csv"} {
		files = append(files, "../../fixtures/scores/"+f)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, wantErr := ParseFile(path, "")
			if wantErr == nil {
				want, wantErr = Validate(want, CheckEVMAddress)
			}
			set, err := LoadSet(path, "", EVMCodec{})
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("LoadSet error %v, ParseFile+Validate error %v", err, wantErr)
			}
			if err != nil {
				// Validation problems carry the file's name here, as vipctl adds it.
				if !strings.HasSuffix(err.Error(), strings.TrimPrefix(wantErr.Error(), "score file "+path+": ")) {
					t.Fatalf("LoadSet error %q, ParseFile+Validate error %q", err, wantErr)
				}
				return
			}
			got := set.Entries(0, set.Len())
			if !slices.Equal(got, canonicalOrder(t, want, EVMCodec{})) {
				t.Fatalf("LoadSet %v\nParseFile+Validate %v", got, want)
			}
			for i, e := range got {
				if want[set.Position(i)] != e {
					t.Fatalf("entry %d %v says it was input entry %d, which is %v", i, e, set.Position(i), want[set.Position(i)])
				}
			}
			if set.LegacyFingerprint() != Fingerprint(want) {
				t.Fatal("LegacyFingerprint differs from Fingerprint of the validated entries in input order")
			}
		})
	}
}

// A Set reports the same problems, in the same words, as Validate.
func TestNewSetProblemsAreValidates(t *testing.T) {
	bad := make([]Entry, 50)
	for i := range bad {
		bad[i] = Entry{Addr: "bad", Amount: 1}
	}
	many := Generate(30, 3)
	many = append(many, many...) // 30 duplicates
	many = append(many, Entry{"0xnope", 1}, Entry{strings.ToLower(many[0].Addr), 5})
	for name, in := range map[string][]Entry{
		"empty":                     nil,
		"after canonical form":      {{addrA, 1}, {strings.ToLower(addrA), 2}},
		"every later use":           {{addrB, 1}, {addrA, 1}, {addrA, 2}, {addrB, 3}, {addrA, 4}, {addrA, 5}},
		"problems in entry order":   {{addrA, 1}, {addrA, 2}, {"0xnope", 3}},
		"bounded":                   bad,
		"duplicates beside invalid": many,
	} {
		t.Run(name, func(t *testing.T) {
			_, want := Validate(in, CheckEVMAddress)
			_, got := NewSet(in, EVMCodec{})
			if want == nil || got == nil || got.Error() != want.Error() {
				t.Fatalf("NewSet error:\n%v\nValidate error:\n%v", got, want)
			}
		})
	}
}

// The order of the input does not change a set: not its entries, chunks or fingerprint.
func TestSetIsCanonical(t *testing.T) {
	in := Generate(1000, 9)
	shuffled := slices.Clone(in)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, k int) { shuffled[i], shuffled[k] = shuffled[k], shuffled[i] })
	a, err := NewSet(in, EVMCodec{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewSet(shuffled, EVMCodec{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Fingerprint() != b.Fingerprint() || !slices.Equal(a.Entries(0, a.Len()), b.Entries(0, b.Len())) {
		t.Fatal("the same pairs in another order gave another set")
	}
	if a.LegacyFingerprint() == b.LegacyFingerprint() {
		t.Fatal("the legacy fingerprint must follow the input order")
	}
	in[500].Amount++
	c, err := NewSet(in, EVMCodec{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Fingerprint() == a.Fingerprint() {
		t.Fatal("another score, the same fingerprint")
	}
	if a.Fingerprint() == Fingerprint(in) || len(a.Fingerprint()) != 64 {
		t.Fatalf("fingerprint %q", a.Fingerprint())
	}
}

// A set larger than a block, with 20- and 32-byte addresses mixed: every entry is found,
// written back as the codec writes it, and in order.
func TestSetAcrossBlocksAndWidths(t *testing.T) {
	codec := Bech32Codec{Prefix: "wasm"}
	n := 2*blockLen + 77
	in := GenerateBech32(n, 4, "wasm")
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 500; i++ {
		var b [32]byte
		for k := range b {
			b[k] = byte(rng.Uint32())
		}
		in = append(in, Entry{codec.Encode(b[:]), rng.Uint64()})
	}
	set, err := NewSet(in, codec)
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != len(in) || !slices.Equal(set.Widths(), []int{20, 32}) {
		t.Fatalf("len %d widths %v", set.Len(), set.Widths())
	}
	var prev []byte
	var top uint64
	for i := range set.Len() {
		addr, score := set.At(i)
		if prev != nil && len(prev) == len(addr) && bytes.Compare(prev, addr) >= 0 || prev != nil && len(prev) > len(addr) {
			t.Fatalf("entry %d out of order", i)
		}
		prev = addr
		e := in[set.Position(i)]
		if e.Addr != codec.Encode(addr) || e.Amount != score {
			t.Fatalf("entry %d = %x %d, input entry %d is %v", i, addr, score, set.Position(i), e)
		}
		if k, ok := set.Find(addr); !ok || k != i {
			t.Fatalf("Find(entry %d) = %d, %v", i, k, ok)
		}
		top = max(top, score)
	}
	if _, ok := set.Find(make([]byte, 20)); ok {
		t.Fatal("found an address not in the set")
	}
	if set.MaxScore() != top {
		t.Fatalf("MaxScore %d, want %d", set.MaxScore(), top)
	}
}

// BenchmarkSetBytesPerAddress loads a 1,000,000-address EVM score file into a Set and
// reports what the set holds per address (bytes-held/addr: its records; heap/addr: the Go
// heap it keeps live beside what was live before, after a collection) and the load time.
func BenchmarkSetBytesPerAddress(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "scores.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := Write(f, Generate(n, 11), CSV); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	var set *Set
	b.ResetTimer()
	for range b.N {
		set = nil
		runtime.GC()
		runtime.ReadMemStats(&before)
		if set, err = LoadSet(path, "", EVMCodec{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(set.Bytes())/n, "bytes-held/addr")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "heap/addr")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "load-ms")
	runtime.KeepAlive(set)
}

// A chunk reads the same entries as bytes and as text, in canonical order.
func TestChunkReadsBytesAndText(t *testing.T) {
	c := Bech32Codec{Prefix: "init"}
	in := append(GenerateBech32(7, 3, "init"), Entry{Addr: c.Encode(bytes.Repeat([]byte{0xab}, 32)), Amount: 9})
	set, err := NewSet(in, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int{{0, set.Len()}, {2, 5}, {4, 4}} {
		ch := set.Chunk(r[0], r[1])
		text := ch.Entries()
		if ch.Len() != r[1]-r[0] || len(text) != ch.Len() {
			t.Fatalf("chunk %v: Len %d, %d entries", r, ch.Len(), len(text))
		}
		for i := range ch.Len() {
			addr, score := ch.At(i)
			want := set.Entries(r[0]+i, r[0]+i+1)[0]
			if c.Encode(addr) != want.Addr || score != want.Amount || text[i] != want {
				t.Fatalf("chunk %v entry %d: bytes %x score %d, text %+v, want %+v", r, i, addr, score, text[i], want)
			}
		}
	}
}

// WriteCSV writes a set that LoadSet reads back as the same set; AddBytes builds the same
// set from its bytes.
func TestWriteCSVAndAddBytesRoundTrip(t *testing.T) {
	c := Bech32Codec{Prefix: "init"}
	in := append(GenerateBech32(5000, 9, "init"), Entry{Addr: c.Encode(bytes.Repeat([]byte{0xcd}, 32)), Amount: 7})
	set, err := NewSet(in, c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "set.csv")
	var buf bytes.Buffer
	if err := set.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	back, err := LoadSet(path, "", c)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(c)
	for i := range set.Len() {
		b.AddBytes(set.At(i))
	}
	if b.Len() != set.Len() {
		t.Fatalf("builder has %d entries, want %d", b.Len(), set.Len())
	}
	again, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []*Set{back, again} {
		if got.Len() != set.Len() || got.Fingerprint() != set.Fingerprint() {
			t.Fatalf("round trip: %d entries, fingerprint %s; want %d, %s", got.Len(), got.Fingerprint(), set.Len(), set.Fingerprint())
		}
	}
	var none *Set
	if none.Len() != 0 {
		t.Fatal("a nil set has entries")
	}
}
