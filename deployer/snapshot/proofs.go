package snapshot

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ProofLine is one line of a proofs file, as WriteProofs writes it and as a frontend hands
// it to batch_claim_user_reward_script (l2_score and proof for one stage).
type ProofLine struct {
	Address Address
	Score   uint64
	Proof   [][]byte
}

type proofJSON struct {
	Address string   `json:"address"`
	Score   string   `json:"l2_score"`
	Proof   []string `json:"proof"`
}

// ParseProofLine reads one line; every field is checked (64 hex digits after 0x, a decimal
// u64, proof elements of 64 hex digits) and a bad one named.
func ParseProofLine(line []byte) (ProofLine, error) {
	var j proofJSON
	var out ProofLine
	if err := json.Unmarshal(line, &j); err != nil {
		return out, fmt.Errorf("not a proof line: %w", err)
	}
	hexAddr, ok := strings.CutPrefix(j.Address, "0x")
	b, err := hex.DecodeString(hexAddr)
	if !ok || err != nil || len(b) != 32 {
		return out, fmt.Errorf("address %q: want 0x followed by 64 hex digits", j.Address)
	}
	out.Address = Address(b)
	if out.Score, err = strconv.ParseUint(j.Score, 10, 64); err != nil {
		return out, fmt.Errorf("address %s: l2_score %q: want a decimal u64", j.Address, j.Score)
	}
	for i, p := range j.Proof {
		e, err := hex.DecodeString(p)
		if err != nil {
			return out, fmt.Errorf("address %s: proof element %d: not hex", j.Address, i)
		}
		out.Proof = append(out.Proof, e) // a wrong length is Verify's EINVALID_PROOF_LENGTH
	}
	return out, nil
}

// ReadProofs calls each for every line of r in order, stopping at the first error; the
// error names the line.
func ReadProofs(r io.Reader, each func(n int, l ProofLine) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		l, err := ParseProofLine(sc.Bytes())
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := each(n, l); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read proofs: %w", err)
	}
	return nil
}
