package snapshot

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// addrN is a distinct 20-byte account for n.
func addrN(n int) []byte {
	b := make([]byte, 20)
	binary.BigEndian.PutUint64(b[12:], uint64(n)*2654435761+1)
	return b
}

func mustHex(t *testing.T, s string) Hash {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad hex %q", s)
	}
	return Hash(b)
}

// Golden values computed outside Go (Python hashlib.sha3_256 over the BCS bytes).
func TestScoreHashAndRootGolden(t *testing.T) {
	a, _ := hex.DecodeString("00112233445566778899aabbccddeeff00112233")
	b := make([]byte, 32)
	b[31] = 1
	bl := NewBuilder(7, 3, 2)
	if err := bl.Add(a, 100); err != nil {
		t.Fatal(err)
	}
	if err := bl.Add(b, 150); err != nil {
		t.Fatal(err)
	}
	tr, err := bl.Build()
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := L1Address(a)
	if got, want := ScoreHash(7, 3, pa, 100, 250), mustHex(t, "8b21b956815178949504342bd426146493cced4344274e0cfd9cf288b97dcb44"); got != want {
		t.Fatalf("score hash %s, want %s", got, want)
	}
	if tr.Total != 250 {
		t.Fatalf("total %d", tr.Total)
	}
	if got, want := tr.Root(), mustHex(t, "f6e6ade281a92ba3025866112b2ba984abfddc666989eb55d01a3bc8205f9aec"); got != want {
		t.Fatalf("root %s, want %s", got, want)
	}
}

func TestL1Address(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    string
		wantErr bool
	}{
		{"evm 20 bytes padded", bytes.Repeat([]byte{0xab}, 20), "0x000000000000000000000000" + strings.Repeat("ab", 20), false},
		{"move 32 bytes kept", bytes.Repeat([]byte{0xcd}, 32), "0x" + strings.Repeat("cd", 32), false},
		{"empty", nil, "", true},
		{"33 bytes", make([]byte, 33), "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := L1Address(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if !tc.wantErr && a.String() != tc.want {
				t.Fatalf("got %s, want %s", a, tc.want)
			}
		})
	}
}

// Every leaf's proof passes Verify for trees of many shapes, including odd sizes, a single
// leaf and zero scores; rows added in any order give the same tree.
func TestEveryProofVerifies(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		scores func(i int) uint64
	}{
		{"single leaf", 1, func(int) uint64 { return 5 }},
		{"two leaves", 2, func(i int) uint64 { return uint64(i + 1) }},
		{"three leaves (odd)", 3, func(i int) uint64 { return uint64(i * 10) }},
		{"five leaves", 5, func(i int) uint64 { return 1 }},
		{"seven leaves", 7, func(i int) uint64 { return uint64(i) }},
		{"sixteen leaves", 16, func(i int) uint64 { return uint64(i * i) }},
		{"seventeen leaves", 17, func(i int) uint64 { return 3 }},
		{"all zero scores", 6, func(int) uint64 { return 0 }},
		{"large scores", 9, func(i int) uint64 { return 1<<60 + uint64(i) }},
		{"1000 leaves", 1000, func(i int) uint64 { return uint64(i % 7) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fwd, rev := NewBuilder(1, 4, 0), NewBuilder(1, 4, 0)
			var total uint64
			for i := range tc.n {
				total += tc.scores(i)
				if err := fwd.Add(addrN(i), tc.scores(i)); err != nil {
					t.Fatal(err)
				}
			}
			for i := tc.n - 1; i >= 0; i-- {
				if err := rev.Add(addrN(i), tc.scores(i)); err != nil {
					t.Fatal(err)
				}
			}
			tr, err := fwd.Build()
			if err != nil {
				t.Fatal(err)
			}
			tr2, err := rev.Build()
			if err != nil {
				t.Fatal(err)
			}
			if tr.Root() != tr2.Root() {
				t.Fatalf("row order changed the root")
			}
			if tr.Len() != tc.n || tr.Total != total {
				t.Fatalf("len %d total %d, want %d %d", tr.Len(), tr.Total, tc.n, total)
			}
			for i := range tr.Len() {
				addr, score, leaf := tr.Leaf(i)
				if i > 0 {
					prev, _, _ := tr.Leaf(i - 1)
					if bytes.Compare(prev[:], addr[:]) >= 0 {
						t.Fatalf("leaves not sorted by address at %d", i)
					}
				}
				if leaf != ScoreHash(1, 4, addr, score, total) {
					t.Fatalf("leaf %d is not score_hash", i)
				}
				if err := Verify(toBytes(tr.Proof(i)), tr.Root(), leaf); err != nil {
					t.Fatalf("leaf %d: %v", i, err)
				}
			}
		})
	}
}

func toBytes(p []Hash) [][]byte {
	out := make([][]byte, len(p))
	for i := range p {
		out[i] = append([]byte(nil), p[i][:]...)
	}
	return out
}

func TestTamperingIsRefused(t *testing.T) {
	b := NewBuilder(2, 9, 0)
	for i := range 11 {
		if err := b.Add(addrN(i), uint64(i*3)); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	const i = 4
	addr, score, _ := tr.Leaf(i)
	other, _, _ := tr.Leaf(i + 1)
	proof := toBytes(tr.Proof(i))
	tests := []struct {
		name  string
		proof [][]byte
		leaf  Hash
		want  error
	}{
		{"score changed", proof, ScoreHash(2, 9, addr, score+1, tr.Total), ErrInvalidMerkleProofs},
		{"total changed", proof, ScoreHash(2, 9, addr, score, tr.Total+1), ErrInvalidMerkleProofs},
		{"stage changed", proof, ScoreHash(2, 10, addr, score, tr.Total), ErrInvalidMerkleProofs},
		{"bridge changed", proof, ScoreHash(3, 9, addr, score, tr.Total), ErrInvalidMerkleProofs},
		{"another address", proof, ScoreHash(2, 9, other, score, tr.Total), ErrInvalidMerkleProofs},
		{"proof element flipped", flip(proof, 1), ScoreHash(2, 9, addr, score, tr.Total), ErrInvalidMerkleProofs},
		{"proof element dropped", proof[1:], ScoreHash(2, 9, addr, score, tr.Total), ErrInvalidMerkleProofs},
		{"proof element short", short(proof, 2), ScoreHash(2, 9, addr, score, tr.Total), ErrInvalidProofLength},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := Verify(tc.proof, tr.Root(), tc.leaf); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func flip(p [][]byte, i int) [][]byte {
	out := toBytes(nil)
	for _, e := range p {
		out = append(out, append([]byte(nil), e...))
	}
	out[i][0] ^= 1
	return out
}

func short(p [][]byte, i int) [][]byte {
	out := append([][]byte(nil), p...)
	out[i] = out[i][:31]
	return out
}

func TestBuildRefusals(t *testing.T) {
	tests := []struct {
		name string
		rows [][2]uint64 // address seed, score
		want string
	}{
		{"duplicate address", [][2]uint64{{1, 5}, {2, 5}, {1, 6}}, "duplicate address"},
		{"total overflows", [][2]uint64{{1, 1 << 63}, {2, 1 << 63}}, "overflows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder(1, 1, 0)
			for _, r := range tc.rows {
				if err := b.Add(addrN(int(r[0])), r[1]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestEmptyTree(t *testing.T) {
	tr, err := NewBuilder(1, 1, 0).Build()
	if err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 0 || tr.Total != 0 || tr.Root() != (Hash{}) {
		t.Fatalf("empty tree: len %d total %d root %s", tr.Len(), tr.Total, tr.Root())
	}
	var buf bytes.Buffer
	if err := tr.WriteProofs(&buf); err != nil || buf.Len() != 0 {
		t.Fatalf("empty tree wrote %q, %v", buf.String(), err)
	}
}

// The proofs file round-trips: every line parses and verifies against the root.
func TestProofsFileRoundTrip(t *testing.T) {
	b := NewBuilder(5, 2, 0)
	for i := range 13 {
		if err := b.Add(addrN(i), uint64(i%3)); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tr.WriteProofs(&buf); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(buf.String(), "\n")
	if !strings.HasPrefix(first, `{"address":"0x000000000000000000000000`) || !strings.Contains(first, `"l2_score":"`) {
		t.Fatalf("first line %s", first)
	}
	seen := 0
	err = ReadProofs(&buf, func(n int, l ProofLine) error {
		seen++
		if err := Verify(l.Proof, tr.Root(), ScoreHash(5, 2, l.Address, l.Score, tr.Total)); err != nil {
			return err
		}
		i, ok := tr.Find(l.Address)
		if !ok || i != n-1 {
			t.Errorf("line %d: address %s at leaf %d (%v)", n, l.Address, i, ok)
		}
		return nil
	})
	if err != nil || seen != 13 {
		t.Fatalf("read %d lines: %v", seen, err)
	}
}

func TestParseProofLineRefusals(t *testing.T) {
	good := `"0x` + strings.Repeat("00", 31) + `01"`
	tests := []struct{ name, line, want string }{
		{"not json", `{`, "not a proof line"},
		{"short address", `{"address":"0x01","l2_score":"1","proof":[]}`, "64 hex digits"},
		{"address without 0x", `{"address":"` + strings.Repeat("00", 32) + `","l2_score":"1","proof":[]}`, "64 hex digits"},
		{"negative score", `{"address":` + good + `,"l2_score":"-1","proof":[]}`, "decimal u64"},
		{"score as a number", `{"address":` + good + `,"l2_score":1,"proof":[]}`, "not a proof line"},
		{"proof not hex", `{"address":` + good + `,"l2_score":"1","proof":["zz"]}`, "not hex"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseProofLine([]byte(tc.line)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
