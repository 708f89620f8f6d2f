// Package scores reads, validates and splits score sets: (address, score) pairs that a
// scoring contract stores per stage.
package scores

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/cosmos/cosmos-sdk/types/bech32"

	"github.com/ethereum/go-ethereum/common"
)

// Entry is one address's score. Addr is in the VM's canonical form once validated.
type Entry struct {
	Addr   string `json:"address"`
	Amount uint64 `json:"score"`
}

// Row is a stage's row as a contract's read-back hands it: the address as the bytes the
// VM's Codec decodes to, read from the contract's own form once, and its score.
type Row struct {
	Addr   []byte
	Amount uint64
}

// Entry is the row in the VM's text form.
func (r Row) Entry(c Codec) Entry { return Entry{Addr: c.Encode(r.Addr), Amount: r.Amount} }

// RowsOf decodes entries into rows with c (a stand-in contract's read-back); the first
// address c refuses is the error.
func RowsOf(entries []Entry, c Codec) ([]Row, error) {
	rows := make([]Row, len(entries))
	for i, e := range entries {
		addr, err := c.Decode(e.Addr)
		if err != nil {
			return nil, fmt.Errorf("row %d (%s): %w", i+1, e.Addr, err)
		}
		rows[i] = Row{Addr: addr, Amount: e.Amount}
	}
	return rows, nil
}

// PageEntries hands entries to each as rows decoded with c, size at a time: a stand-in
// contract's paged read-back.
func PageEntries(entries []Entry, c Codec, size int, each func([]Row) error) error {
	rows, err := RowsOf(entries, c)
	if err != nil {
		return err
	}
	for len(rows) > 0 {
		n := min(size, len(rows))
		if err := each(rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// AddressCheck validates an address for a VM and returns its canonical form.
type AddressCheck func(addr string) (string, error)

// maxReported bounds how many problems one validation error lists.
const maxReported = 10

// Validate checks every entry before anything is sent: the input is not empty, each address
// passes check, and no address appears twice once canonical. It returns canonical copies;
// the error lists the first problems found with their entry numbers (1-based). Beside the
// copies it holds only an index per entry: duplicates are found by sorting, not in a map.
func Validate(entries []Entry, check AddressCheck) ([]Entry, error) {
	v := newValidator(check, len(entries))
	for _, e := range entries {
		v.add(e)
	}
	return v.finish()
}

// validator puts entries in canonical form one at a time and checks the whole set at the end.
type validator struct {
	check    AddressCheck
	out      []Entry // canonical; an empty Addr where the check failed
	problems []problem
}

type problem struct {
	entry int
	err   error
}

func newValidator(check AddressCheck, n int) *validator {
	return &validator{check: check, out: make([]Entry, 0, n)}
}

func (v *validator) add(e Entry) {
	i := len(v.out)
	canonical, err := v.check(e.Addr)
	if err != nil {
		v.problems = append(v.problems, problem{i, fmt.Errorf("entry %d: %w", i+1, err)})
		v.out = append(v.out, Entry{})
		return
	}
	if canonical == e.Addr {
		canonical = e.Addr // share the input's bytes rather than keep a second copy
	}
	v.out = append(v.out, Entry{Addr: canonical, Amount: e.Amount})
}

func (v *validator) finish() ([]Entry, error) {
	out := v.out
	if len(out) == 0 {
		return nil, errors.New("empty score set: nothing to send")
	}
	if len(out) > math.MaxInt32 {
		return nil, fmt.Errorf("score set of %d entries: at most %d", len(out), math.MaxInt32)
	}
	problems := v.problems
	// Entries in address order, ties in input order: a duplicate follows its first use.
	order := make([]int32, 0, len(out))
	for i := range out {
		if out[i].Addr != "" {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(strings.Compare(out[a].Addr, out[b].Addr), cmp.Compare(a, b))
	})
	for run, k := 0, 1; k < len(order); k++ {
		if out[order[k]].Addr != out[order[run]].Addr {
			run = k // the first use of the next address
			continue
		}
		i, first := order[k], order[run]
		problems = append(problems, problem{int(i), fmt.Errorf("entry %d: duplicate address %s (first at entry %d)", i+1, out[i].Addr, first+1)})
	}
	if len(problems) > 0 {
		return nil, report(len(out), problems, len(problems))
	}
	return out, nil
}

// CheckEVMAddress accepts a 0x-prefixed 20-byte hex address. Mixed case must be a valid
// EIP-55 checksum (a typo in a checksummed address is caught, not silently scored); the
// zero address is refused. It returns the checksummed form.
func CheckEVMAddress(addr string) (string, error) { return Check(EVMCodec{})(addr) }

func hasLower(s string) bool {
	for _, c := range s {
		if c >= 'a' && c <= 'f' {
			return true
		}
	}
	return false
}

func hasUpper(s string) bool {
	for _, c := range s {
		if c >= 'A' && c <= 'F' {
			return true
		}
	}
	return false
}

// CheckBech32 accepts bech32 account addresses under prefix: 20 bytes (a key's address) or
// 32 bytes (a contract's), one case throughout (bech32 refuses mixed case), not all zero.
// It returns the lowercase form the chain itself prints.
func CheckBech32(prefix string) AddressCheck { return Check(Bech32Codec{Prefix: prefix}) }

// Split splits entries into consecutive chunks of at most size entries (one chunk when
// size is not positive). The chunks share the input's backing array.
func Split(entries []Entry, size int) [][]Entry {
	if len(entries) == 0 {
		return nil
	}
	if size <= 0 || size >= len(entries) {
		return [][]Entry{entries}
	}
	out := make([][]Entry, 0, (len(entries)+size-1)/size)
	for len(entries) > size {
		out = append(out, entries[:size:size])
		entries = entries[size:]
	}
	return append(out, entries)
}

// Fingerprint identifies a score set by content and order (sha256, hex): journals are keyed
// by it, so a re-run with the same input resumes and a different input starts afresh.
func Fingerprint(entries []Entry) string {
	h := sha256.New()
	var buf []byte
	for _, e := range entries {
		buf = append(buf[:0], e.Addr...)
		buf = append(buf, ',')
		buf = strconv.AppendUint(buf, e.Amount, 10)
		buf = append(buf, '\n')
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Generate returns n distinct EVM entries (checksummed addresses, scores 1..1,000,000),
// the same for the same seed: load for tests, benchmarks and the demo.
func Generate(n int, seed int64) []Entry {
	return generate(n, seed, func(a []byte) string { return common.BytesToAddress(a).Hex() })
}

// GenerateBech32 is Generate with 20-byte bech32 addresses under prefix (the same address
// bytes as Generate for the same seed).
func GenerateBech32(n int, seed int64, prefix string) []Entry {
	return generate(n, seed, func(a []byte) string {
		s, err := bech32.ConvertAndEncode(prefix, a)
		if err != nil {
			panic(fmt.Sprintf("bech32 prefix %q: %v", prefix, err))
		}
		return s
	})
}

// ToBech32 rewrites EVM entries with the bech32 form of the same 20 address bytes.
func ToBech32(entries []Entry, prefix string) ([]Entry, error) {
	out := make([]Entry, len(entries))
	for i, e := range entries {
		canonical, err := CheckEVMAddress(e.Addr)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		b32, err := bech32.ConvertAndEncode(prefix, common.HexToAddress(canonical).Bytes())
		if err != nil {
			return nil, fmt.Errorf("entry %d: bech32 prefix %q: %w", i+1, prefix, err)
		}
		out[i] = Entry{Addr: b32, Amount: e.Amount}
	}
	return out, nil
}

func generate(n int, seed int64, encode func([]byte) string) []Entry {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x766970))
	out := make([]Entry, 0, n)
	seen := make(map[common.Address]bool, n)
	for len(out) < n {
		var a common.Address
		for i := 0; i < len(a); i += 8 {
			v := rng.Uint64()
			for j := 0; j < 8 && i+j < len(a); j++ {
				a[i+j] = byte(v >> (8 * j))
			}
		}
		if seen[a] || a == (common.Address{}) {
			continue
		}
		seen[a] = true
		out = append(out, Entry{Addr: encode(a[:]), Amount: 1 + rng.Uint64N(1_000_000)})
	}
	return out
}
