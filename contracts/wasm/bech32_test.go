package wasm_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A small BIP-173 bech32 codec: enough to play the chain's address validator
// (wasmd's addr_validate accepts only normalized lowercase bech32 with the
// chain's prefix) without pulling cosmos-sdk into the module.

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

func bech32Polymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := range 5 {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

func bech32HRPExpand(hrp string) []byte {
	out := make([]byte, 0, len(hrp)*2+1)
	for _, c := range []byte(hrp) {
		out = append(out, c>>5)
	}
	out = append(out, 0)
	for _, c := range []byte(hrp) {
		out = append(out, c&31)
	}
	return out
}

// convertBits regroups bits; pad controls whether a partial group is emitted.
func convertBits(data []byte, from, to uint, pad bool) ([]byte, error) {
	var acc, bits uint
	maxv := uint(1)<<to - 1
	var out []byte
	for _, b := range data {
		if uint(b)>>from != 0 {
			return nil, fmt.Errorf("value %d does not fit in %d bits", b, from)
		}
		acc = acc<<from | uint(b)
		bits += from
		for bits >= to {
			bits -= to
			out = append(out, byte(acc>>bits&maxv))
		}
	}
	if pad {
		if bits > 0 {
			out = append(out, byte(acc<<(to-bits)&maxv))
		}
	} else if bits >= from || acc<<(to-bits)&maxv != 0 {
		return nil, errors.New("non-zero padding")
	}
	return out, nil
}

func bech32Encode(hrp string, payload []byte) string {
	data, err := convertBits(payload, 8, 5, true)
	if err != nil {
		panic(err) // 8-bit input always converts
	}
	values := append(bech32HRPExpand(hrp), data...)
	mod := bech32Polymod(append(values, 0, 0, 0, 0, 0, 0)) ^ 1
	var sb strings.Builder
	sb.WriteString(hrp)
	sb.WriteByte('1')
	for _, d := range data {
		sb.WriteByte(bech32Charset[d])
	}
	for i := range 6 {
		sb.WriteByte(bech32Charset[(mod>>(5*(5-i)))&31])
	}
	return sb.String()
}

// bech32Decode checks a normalized (lowercase) bech32 string and returns its
// prefix and payload bytes.
func bech32Decode(s string) (string, []byte, error) {
	if len(s) > 90 {
		return "", nil, fmt.Errorf("address is %d characters, longer than 90", len(s))
	}
	if strings.ToLower(s) != s {
		return "", nil, errors.New("address is not lowercase")
	}
	sep := strings.LastIndexByte(s, '1')
	if sep < 1 || sep+7 > len(s) {
		return "", nil, errors.New("invalid separator position")
	}
	hrp, rest := s[:sep], s[sep+1:]
	for _, c := range []byte(hrp) {
		if c < 33 || c > 126 {
			return "", nil, fmt.Errorf("invalid prefix character %q", c)
		}
	}
	data := make([]byte, len(rest))
	for i := range len(rest) {
		d := strings.IndexByte(bech32Charset, rest[i])
		if d < 0 {
			return "", nil, fmt.Errorf("invalid character %q", rest[i])
		}
		data[i] = byte(d)
	}
	if bech32Polymod(append(bech32HRPExpand(hrp), data...)) != 1 {
		return "", nil, errors.New("invalid checksum")
	}
	payload, err := convertBits(data[:len(data)-6], 5, 8, false)
	if err != nil {
		return "", nil, err
	}
	return hrp, payload, nil
}

func TestBech32(t *testing.T) {
	// BIP-173 reference vectors.
	for _, s := range []string{"a12uel5l", "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw", "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w"} {
		if _, _, err := bech32Decode(s); err != nil {
			t.Errorf("decode %q: %v", s, err)
		}
	}
	for _, s := range []string{"A12UEL5L", "a12uel5m", "pzry9x0s0muk", "1pzry9x0s0muk", "x1b4n0q5v", "li1dgmt3", "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxx"} {
		if _, _, err := bech32Decode(s); err == nil {
			t.Errorf("decode %q: want error", s)
		}
	}
	payload := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 255}
	hrp, got, err := bech32Decode(bech32Encode("init", payload))
	if err != nil || hrp != "init" || string(got) != string(payload) {
		t.Fatalf("round trip: hrp %q payload %x err %v", hrp, got, err)
	}
}
