// Package snapshot is the VIP snapshot of a stage: the merkle tree whose root and total the
// VIP agent submits to the L1's vip module (submit_snapshot), and a proof for every address
// that the module's claim entry (batch_claim_user_reward_script) accepts, in the proof file's
// format. It is the standard library only; audit builds it from a contract's stage and
// policy from a computed one.
//
// Leaf: ScoreHash, as the module's score_hash. Tree: leaves sorted by their 32-byte
// address; each internal node is sha3-256 of its two children, the smaller first (unsigned
// byte order), so every proof passes the module's assert_merkle_proofs whatever side a node
// sits on; an odd node at the end of a level moves up unchanged (its proof gets nothing for
// that level). The tree is held as its rows (40 bytes each) and the hashes above the leaves
// (32 bytes a node, about n nodes); a leaf's hash is recomputed when a proof needs it.
package snapshot

import (
	"bufio"
	"bytes"
	"crypto/sha3"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Hash is a 32-byte sha3-256 digest: a leaf, a node or a root.
type Hash [32]byte

// String is the 64 lower-case hex digits, as proofs and roots are written.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Address is an account as the L1 sees it: 32 bytes.
type Address [32]byte

// String is "0x" and 64 hex digits.
func (a Address) String() string { return "0x" + hex.EncodeToString(a[:]) }

// L1Address is the 32-byte Move address of a rollup account's bytes: a 20-byte EVM or bech32
// account is left-padded with zeros (the same key signs on the L1 under that address); a
// 32-byte one is itself.
func L1Address(b []byte) (Address, error) {
	var a Address
	if len(b) == 0 || len(b) > 32 {
		return a, fmt.Errorf("address of %d bytes: want 1 to 32", len(b))
	}
	copy(a[32-len(b):], b)
	return a, nil
}

// ScoreHash is the module's score_hash: sha3-256 of BCS(bridge_id u64) ++ BCS(stage u64) ++
// the 32 address bytes ++ BCS(l2_score u64) ++ BCS(total_l2_score u64), BCS u64 being 8
// bytes little-endian.
func ScoreHash(bridgeID, stage uint64, addr Address, score, total uint64) Hash {
	var buf [8 + 8 + 32 + 8 + 8]byte
	binary.LittleEndian.PutUint64(buf[0:], bridgeID)
	binary.LittleEndian.PutUint64(buf[8:], stage)
	copy(buf[16:], addr[:])
	binary.LittleEndian.PutUint64(buf[48:], score)
	binary.LittleEndian.PutUint64(buf[56:], total)
	return Hash(sha3.Sum256(buf[:]))
}

// node is the parent of a and b: sha3-256 of the smaller then the larger.
func node(a, b *Hash) Hash {
	var buf [64]byte
	if bytes.Compare(a[:], b[:]) < 0 {
		copy(buf[:32], a[:])
		copy(buf[32:], b[:])
	} else {
		copy(buf[:32], b[:])
		copy(buf[32:], a[:])
	}
	return Hash(sha3.Sum256(buf[:]))
}

// Errors Verify returns, named as the module's aborts.
var (
	ErrInvalidMerkleProofs = errors.New("EINVALID_MERKLE_PROOFS: the proof does not lead to the root")
	ErrInvalidProofLength  = errors.New("EINVALID_PROOF_LENGTH: a proof element is not 32 bytes")
)

// Verify is the module's assert_merkle_proofs: fold each proof element into the leaf's hash
// (smaller first) and compare the result with root. An empty proof proves a one-leaf tree.
func Verify(proof [][]byte, root, leaf Hash) error {
	seed := leaf
	for i, p := range proof {
		if len(p) != 32 {
			return fmt.Errorf("proof element %d has %d bytes: %w", i, len(p), ErrInvalidProofLength)
		}
		seed = node(&seed, (*Hash)(p))
	}
	if seed != root {
		return ErrInvalidMerkleProofs
	}
	return nil
}

// record is one leaf's input.
type record struct {
	addr  Address
	score uint64
}

// Builder collects a stage's (address, score) rows in any order; Build sorts them and
// hashes the tree. It holds 40 bytes a row until Build.
type Builder struct {
	bridgeID, stage uint64
	recs            []record
}

// NewBuilder starts the tree of (bridgeID, stage); sizeHint preallocates that many rows.
func NewBuilder(bridgeID, stage uint64, sizeHint int) *Builder {
	return &Builder{bridgeID: bridgeID, stage: stage, recs: make([]record, 0, max(sizeHint, 0))}
}

// Add adds a row; addr is the rollup account's bytes (see L1Address).
func (b *Builder) Add(addr []byte, score uint64) error {
	a, err := L1Address(addr)
	if err != nil {
		return err
	}
	b.recs = append(b.recs, record{a, score})
	return nil
}

// Len is the number of rows added.
func (b *Builder) Len() int { return len(b.recs) }

// ErrDuplicate is a row whose 32-byte address another row has: the module would hold one
// score per account, and a tree of both could not say which.
var ErrDuplicate = errors.New("duplicate address")

// Build sorts the rows by address, sums the total (which every leaf holds) and hashes the
// tree. The Builder is spent.
func (b *Builder) Build() (*Tree, error) {
	recs := b.recs
	b.recs = nil
	slices.SortFunc(recs, func(x, y record) int { return bytes.Compare(x.addr[:], y.addr[:]) })
	var total uint64
	for i, r := range recs {
		if i > 0 && recs[i-1].addr == r.addr {
			return nil, fmt.Errorf("build tree of stage %d: %s: %w", b.stage, r.addr, ErrDuplicate)
		}
		if total+r.score < total {
			return nil, fmt.Errorf("build tree of stage %d: the total score overflows u64 at %s", b.stage, r.addr)
		}
		total += r.score
	}
	t := &Tree{BridgeID: b.bridgeID, Stage: b.stage, Total: total, recs: recs}
	if len(recs) <= 1 {
		return t, nil
	}
	// The level above the leaves, hashed pair by pair without keeping the leaves.
	level := make([]Hash, (len(recs)+1)/2)
	for i := 0; i+1 < len(recs); i += 2 {
		l, r := t.leaf(i), t.leaf(i+1)
		level[i/2] = node(&l, &r)
	}
	if len(recs)%2 == 1 {
		level[len(level)-1] = t.leaf(len(recs) - 1)
	}
	t.levels = append(t.levels, level)
	for len(level) > 1 {
		up := make([]Hash, (len(level)+1)/2)
		for i := 0; i+1 < len(level); i += 2 {
			up[i/2] = node(&level[i], &level[i+1])
		}
		if len(level)%2 == 1 {
			up[len(up)-1] = level[len(level)-1]
		}
		t.levels = append(t.levels, up)
		level = up
	}
	return t, nil
}

// Tree is a stage's merkle tree: its rows in leaf order and every level's hashes.
type Tree struct {
	BridgeID, Stage uint64
	// Total is the sum of the scores, the total_l2_score every leaf holds.
	Total  uint64
	recs   []record
	levels [][]Hash // levels[0] the one above the leaves, the last the root; none for n <= 1
}

func (t *Tree) leaf(i int) Hash {
	return ScoreHash(t.BridgeID, t.Stage, t.recs[i].addr, t.recs[i].score, t.Total)
}

// Len is the number of leaves.
func (t *Tree) Len() int { return len(t.recs) }

// Root is the merkle root; a tree without leaves has the zero hash (this package's
// convention: the module's claim can prove nothing against it).
func (t *Tree) Root() Hash {
	switch {
	case len(t.recs) == 0:
		return Hash{}
	case len(t.levels) == 0:
		return t.leaf(0)
	}
	return t.levels[len(t.levels)-1][0]
}

// Leaf is the i-th leaf in tree order: its address, score and hash.
func (t *Tree) Leaf(i int) (Address, uint64, Hash) {
	return t.recs[i].addr, t.recs[i].score, t.leaf(i)
}

// Find is the leaf index of addr.
func (t *Tree) Find(addr Address) (int, bool) {
	return slices.BinarySearchFunc(t.recs, addr, func(r record, a Address) int { return bytes.Compare(r.addr[:], a[:]) })
}

// Proof is the proof of leaf i, bottom up: the sibling at each level that has one.
func (t *Tree) Proof(i int) []Hash { return t.appendProof(nil, i) }

func (t *Tree) appendProof(out []Hash, i int) []Hash {
	if len(t.recs) < 2 {
		return out
	}
	if sib := i ^ 1; sib < len(t.recs) {
		out = append(out, t.leaf(sib))
	}
	i /= 2
	for _, level := range t.levels[:len(t.levels)-1] {
		if sib := i ^ 1; sib < len(level) {
			out = append(out, level[sib])
		}
		i /= 2
	}
	return out
}

// Bytes is the memory the tree holds: its rows and hashes.
func (t *Tree) Bytes() int {
	n := cap(t.recs) * 40
	for _, l := range t.levels {
		n += cap(l) * 32
	}
	return n
}

// WriteProofs writes one JSON line per leaf, in tree order:
// {"address":"0x<64 hex>","l2_score":"<decimal>","proof":["<64 hex>",...]}.
func (t *Tree) WriteProofs(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	line := make([]byte, 0, 256)
	var proof []Hash
	for i, r := range t.recs {
		line = append(line[:0], `{"address":"0x`...)
		line = hex.AppendEncode(line, r.addr[:])
		line = append(line, `","l2_score":"`...)
		line = strconv.AppendUint(line, r.score, 10)
		line = append(line, `","proof":[`...)
		proof = t.appendProof(proof[:0], i)
		for j, p := range proof {
			if j > 0 {
				line = append(line, ',')
			}
			line = append(line, '"')
			line = hex.AppendEncode(line, p[:])
			line = append(line, '"')
		}
		line = append(line, "]}\n"...)
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("write proof of %s: %w", r.addr, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write proofs: %w", err)
	}
	return nil
}
