package scores

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
)

// Set is a validated score set in compact canonical form, so that a million addresses fit
// in tens of megabytes: each entry is a fixed-size record of its address's canonical bytes
// (Codec.Decode), its score and its position in the input, in address order (addresses of
// one width together, the shorter width first). Its order is canonical: the same pairs give
// the same Set, chunks and Fingerprint whatever the order of the input. Entries are written
// as text (Entries) only for the chunk in flight.
//
// The input position costs 4 bytes an entry and earns them: a duplicate is reported with
// the entry it repeats, and a read-back lists mismatches in the order of the input.
type Set struct {
	codec       Codec
	groups      []*group // by width, ascending
	n           int
	maxScore    uint64
	fingerprint string
}

// Records live in blocks of blockLen, so growing a set never copies what it holds (a single
// slice grown by append holds the old and the new array at once).
const (
	blockShift = 14
	blockLen   = 1 << blockShift
	blockMask  = blockLen - 1
)

// group holds the records of addresses of one width: address, score (8 bytes big-endian),
// input position (4 bytes big-endian). It sorts as a sort.Interface, in place.
type group struct {
	width, stride int
	blocks        [][]byte
	n             int
}

func newGroup(width int) *group { return &group{width: width, stride: width + 12} }

func (g *group) rec(i int) []byte {
	o := (i & blockMask) * g.stride
	return g.blocks[i>>blockShift][o : o+g.stride : o+g.stride]
}

func (g *group) append(addr []byte, score uint64, pos uint32) {
	if g.n>>blockShift == len(g.blocks) {
		// The first block grows with the set, so a small set stays small.
		size := blockLen
		if g.n == 0 {
			size = 16
		}
		g.blocks = append(g.blocks, make([]byte, 0, size*g.stride))
	}
	last := &g.blocks[len(g.blocks)-1]
	*last = append(*last, addr...)
	*last = binary.BigEndian.AppendUint64(*last, score)
	*last = binary.BigEndian.AppendUint32(*last, pos)
	g.n++
}

func (g *group) addr(i int) []byte     { return g.rec(i)[:g.width] }
func (g *group) score(i int) uint64    { return binary.BigEndian.Uint64(g.rec(i)[g.width:]) }
func (g *group) position(i int) uint32 { return binary.BigEndian.Uint32(g.rec(i)[g.width+8:]) }

func (g *group) Len() int { return g.n }

// Less orders by address, then by input position, so a repeated address follows its first use.
func (g *group) Less(i, k int) bool {
	a, b := g.rec(i), g.rec(k)
	if c := bytes.Compare(a[:g.width], b[:g.width]); c != 0 {
		return c < 0
	}
	return bytes.Compare(a[g.width+8:], b[g.width+8:]) < 0
}

func (g *group) Swap(i, k int) {
	var tmp [64]byte
	a, b := g.rec(i), g.rec(k)
	copy(tmp[:], a)
	copy(a, b)
	copy(b, tmp[:g.stride])
}

// Builder validates entries one at a time into a Set: each address is decoded as it is
// added (the input's text is not kept), the whole set is checked for duplicates by Finish.
type Builder struct {
	codec    Codec
	groups   []*group
	entries  int
	invalid  []problem // the first maxReported invalid entries
	nInvalid int
	maxScore uint64
}

// NewBuilder starts an empty set of codec's addresses.
func NewBuilder(codec Codec) *Builder { return &Builder{codec: codec} }

// Add validates the next entry of the input.
func (b *Builder) Add(e Entry) {
	i, ok := b.next()
	if !ok {
		return
	}
	addr, err := b.codec.Decode(e.Addr)
	if err != nil {
		b.nInvalid++
		if len(b.invalid) < maxReported {
			b.invalid = append(b.invalid, problem{i, fmt.Errorf("entry %d: %w", i+1, err)})
		}
		return
	}
	b.add(addr, e.Amount, i)
}

// AddBytes adds the next entry as canonical address bytes (what the builder's codec, or a
// Set of it, decoded), with no round trip through text.
func (b *Builder) AddBytes(addr []byte, score uint64) {
	if i, ok := b.next(); ok {
		b.add(addr, score, i)
	}
}

// next counts an entry and returns its input position; false past what a set can number
// (Finish refuses the set).
func (b *Builder) next() (int, bool) {
	i := b.entries
	b.entries++
	return i, i < math.MaxInt32
}

// Len is the number of entries added so far, valid or not.
func (b *Builder) Len() int { return b.entries }

func (b *Builder) add(addr []byte, score uint64, i int) {
	var g *group
	for _, have := range b.groups {
		if have.width == len(addr) {
			g = have
		}
	}
	if g == nil {
		g = newGroup(len(addr))
		b.groups = append(b.groups, g)
	}
	g.append(addr, score, uint32(i))
	b.maxScore = max(b.maxScore, score)
}

// duplicate is a repeated address, kept small: a file can repeat every one of its entries.
type duplicate struct {
	entry, first uint32
	g            *group
	at           int
}

// Finish checks the set as Validate does (not empty, every address valid, none twice) and
// returns it in canonical order; the error lists the first problems by entry number (1-based).
func (b *Builder) Finish() (*Set, error) {
	if b.entries == 0 {
		return nil, errors.New("empty score set: nothing to send")
	}
	if b.entries > math.MaxInt32 {
		return nil, fmt.Errorf("score set of %d entries: at most %d", b.entries, math.MaxInt32)
	}
	slices.SortFunc(b.groups, func(x, y *group) int { return cmp.Compare(x.width, y.width) })
	var dups []duplicate
	for _, g := range b.groups {
		sort.Sort(g)
		for run, k := 0, 1; k < g.n; k++ {
			if !bytes.Equal(g.addr(k), g.addr(run)) {
				run = k
				continue
			}
			dups = append(dups, duplicate{g.position(k), g.position(run), g, k})
		}
	}
	if n := b.nInvalid + len(dups); n > 0 {
		slices.SortFunc(dups, func(x, y duplicate) int { return cmp.Compare(x.entry, y.entry) })
		problems := b.invalid
		for _, d := range dups[:min(len(dups), maxReported)] {
			problems = append(problems, problem{int(d.entry), fmt.Errorf("entry %d: duplicate address %s (first at entry %d)",
				d.entry+1, b.codec.Encode(d.g.addr(d.at)), d.first+1)})
		}
		return nil, report(b.entries, problems, n)
	}
	s := &Set{codec: b.codec, groups: b.groups, n: b.entries, maxScore: b.maxScore}
	s.fingerprint = s.hash()
	return s, nil
}

// report is the error of a set with n problems, listing the first of problems by entry.
func report(entries int, problems []problem, n int) error {
	slices.SortStableFunc(problems, func(a, b problem) int { return cmp.Compare(a.entry, b.entry) })
	errs := make([]error, 0, maxReported+1)
	for _, p := range problems[:min(len(problems), maxReported)] {
		errs = append(errs, p.err)
	}
	if more := n - maxReported; more > 0 {
		errs = append(errs, fmt.Errorf("and %d more problems", more))
	}
	return fmt.Errorf("invalid score set (%d entries): %w", entries, errors.Join(errs...))
}

// NewSet validates entries into a Set.
func NewSet(entries []Entry, codec Codec) (*Set, error) {
	b := NewBuilder(codec)
	for _, e := range entries {
		b.Add(e)
	}
	return b.Finish()
}

// LoadSet reads a score file and validates it into a Set as it reads: the file's own
// spelling of an entry is dropped once the entry is decoded.
func LoadSet(path, format string, codec Codec) (*Set, error) {
	b := NewBuilder(codec)
	if err := ReadFile(path, format, b.Add); err != nil {
		return nil, err
	}
	s, err := b.Finish()
	if err != nil {
		return nil, fmt.Errorf("score file %s: %w", path, err)
	}
	return s, nil
}

// Len is the number of entries.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// WriteCSV writes the set as a CSV score file in canonical order, a page at a time (never
// the whole set as text); LoadSet reads it back as the same set.
func (s *Set) WriteCSV(w io.Writer) error {
	const page = 4096
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for lo := 0; lo < s.Len(); lo += page {
		if err := writeCSVRows(cw, s.Entries(lo, min(lo+page, s.n))); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Codec is how the set's addresses are written.
func (s *Set) Codec() Codec { return s.codec }

func (s *Set) locate(i int) (*group, int) {
	for _, g := range s.groups {
		if i < g.n {
			return g, i
		}
		i -= g.n
	}
	panic(fmt.Sprintf("scores.Set: entry %d of %d", i, s.n))
}

// At is entry i in canonical order: its address bytes (shared with the set: do not
// modify) and score.
func (s *Set) At(i int) (addr []byte, score uint64) {
	g, k := s.locate(i)
	return g.addr(k), g.score(k)
}

// Position is where entry i (canonical order) stood in the input, counting from 0.
func (s *Set) Position(i int) int {
	g, k := s.locate(i)
	return int(g.position(k))
}

// Chunk is a run of a set's entries in canonical order, read as address bytes (what a
// transaction carries on EVM and Move, without a round trip through text) or as text.
type Chunk struct {
	set    *Set
	lo, hi int
}

// Chunk is entries lo..hi-1 (canonical order).
func (s *Set) Chunk(lo, hi int) Chunk { return Chunk{set: s, lo: lo, hi: hi} }

// Len is the number of entries in the chunk.
func (c Chunk) Len() int { return c.hi - c.lo }

// At is the chunk's entry i: its address bytes (not to be modified) and score.
func (c Chunk) At(i int) (addr []byte, score uint64) { return c.set.At(c.lo + i) }

// Entries writes the chunk as text.
func (c Chunk) Entries() []Entry { return c.set.Entries(c.lo, c.hi) }

// Entries writes entries lo..hi-1 (canonical order) as text: a chunk to sign or report.
func (s *Set) Entries(lo, hi int) []Entry {
	out := make([]Entry, 0, hi-lo)
	for i := lo; i < hi; i++ {
		addr, score := s.At(i)
		out = append(out, Entry{Addr: s.codec.Encode(addr), Amount: score})
	}
	return out
}

// Find is the canonical index of the entry with address bytes addr.
func (s *Set) Find(addr []byte) (int, bool) {
	base := 0
	for _, g := range s.groups {
		if g.width != len(addr) {
			base += g.n
			continue
		}
		k := sort.Search(g.n, func(k int) bool { return bytes.Compare(g.addr(k), addr) >= 0 })
		if k < g.n && bytes.Equal(g.addr(k), addr) {
			return base + k, true
		}
		return 0, false
	}
	return 0, false
}

// MaxScore is the highest score in the set.
func (s *Set) MaxScore() uint64 { return s.maxScore }

// Widths lists the address widths (in bytes) the set holds, ascending.
func (s *Set) Widths() []int {
	out := make([]int, 0, len(s.groups))
	for _, g := range s.groups {
		out = append(out, g.width)
	}
	return out
}

// Bytes is the memory the set's records hold (their blocks' capacity).
func (s *Set) Bytes() int {
	n := 0
	for _, g := range s.groups {
		for _, b := range g.blocks {
			n += cap(b)
		}
	}
	return n
}

// Fingerprint identifies the set by content (sha256, hex): journals are keyed by it, so a
// re-run with the same pairs resumes, in any input order, and a different set starts afresh.
// It differs from Fingerprint of the same entries (LegacyFingerprint is that one).
func (s *Set) Fingerprint() string { return s.fingerprint }

func (s *Set) hash() string {
	h := sha256.New()
	h.Write([]byte("vipharness score set: width, address, score (big-endian), in address order\n"))
	var buf [1 + 32 + 8]byte
	for _, g := range s.groups {
		for k := range g.n {
			rec := g.rec(k)
			buf[0] = byte(g.width)
			copy(buf[1:], rec[:g.width+8])
			h.Write(buf[:1+g.width+8])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// LegacyFingerprint is Fingerprint of the set's entries as text in input order: the key
// of journals written before pushes went in canonical order. It writes every address as
// text, so it is worth its time only when such a journal is on disk.
func (s *Set) LegacyFingerprint() string {
	order := make([]int32, s.n) // input position -> canonical index
	for i := range s.n {
		order[s.Position(i)] = int32(i)
	}
	h := sha256.New()
	var buf []byte
	for _, i := range order {
		addr, score := s.At(int(i))
		buf = append(buf[:0], s.codec.Encode(addr)...)
		buf = append(buf, ',')
		buf = strconv.AppendUint(buf, score, 10)
		buf = append(buf, '\n')
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}
