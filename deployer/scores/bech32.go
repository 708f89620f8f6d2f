package scores

import (
	"errors"
	"fmt"
	"strings"
)

// Bech32 (BIP-173) of Cosmos account addresses, written for a million of them: a table
// lookup per character and no allocation but the result. The general decoder Cosmos uses
// finds each character's value by a search of the alphabet and decodes through a copy of
// the string, 2 µs an address, which was most of the time it takes to validate a score
// file (10 of the 20 ms a 5,000-address push spends before its first tx).

const bech32Alphabet = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// bech32MaxLen is the longest string accepted, as Cosmos accepts (BIP-173 says 90; a
// 32-byte address under a long prefix exceeds that).
const bech32MaxLen = 1023

var (
	// bech32Values is each byte's value in the alphabet, -1 if none; upper case too.
	bech32Values [256]int8
	// bech32Gen is the checksum generator's xor for each value of the top five bits.
	bech32Gen [32]uint32
)

func init() {
	for i := range bech32Values {
		bech32Values[i] = -1
	}
	for i, c := range []byte(bech32Alphabet) {
		bech32Values[c] = int8(i)
		if c >= 'a' && c <= 'z' {
			bech32Values[c-'a'+'A'] = int8(i)
		}
	}
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	for top := range bech32Gen {
		for bit, g := range gen {
			if top>>bit&1 == 1 {
				bech32Gen[top] ^= g
			}
		}
	}
}

func polymodStep(chk uint32, v byte) uint32 {
	return (chk&0x1ffffff)<<5 ^ uint32(v) ^ bech32Gen[chk>>25]
}

// hrpChecksum is the checksum state after the human-readable part, as BIP-173 expands it
// (high bits of each character, a zero, low bits), lower-cased.
func hrpChecksum(hrp string) uint32 {
	chk := uint32(1)
	for i := 0; i < len(hrp); i++ {
		chk = polymodStep(chk, lower(hrp[i])>>5)
	}
	chk = polymodStep(chk, 0)
	for i := 0; i < len(hrp); i++ {
		chk = polymodStep(chk, lower(hrp[i])&31)
	}
	return chk
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// errBech32Checksum is a string whose characters are valid but whose checksum is not.
var errBech32Checksum = errors.New("checksum mismatch (a mistyped or truncated address)")

// bech32Decode splits s into its human-readable part (lower case, as written when s is)
// and the bytes its data part carries, checking the checksum and the padding. Mixed case
// is refused, as BIP-173 requires.
func bech32Decode(s string) (hrp string, data []byte, err error) {
	if len(s) > bech32MaxLen {
		return "", nil, fmt.Errorf("%d characters, at most %d", len(s), bech32MaxLen)
	}
	var hasLower, hasUpper bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 33 || c > 126 {
			return "", nil, fmt.Errorf("character %q at position %d is not printable ASCII", c, i)
		}
		hasLower = hasLower || (c >= 'a' && c <= 'z')
		hasUpper = hasUpper || (c >= 'A' && c <= 'Z')
	}
	if hasLower && hasUpper {
		return "", nil, errors.New("must not mix upper and lower case")
	}
	sep := strings.LastIndexByte(s, '1')
	if sep < 1 {
		return "", nil, errors.New("no prefix before the separator '1'")
	}
	if len(s)-sep-1 < 6 {
		return "", nil, errors.New("data part shorter than its 6-character checksum")
	}
	hrp = s[:sep]
	if hasUpper {
		hrp = strings.ToLower(hrp)
	}
	part := s[sep+1:]
	chk := hrpChecksum(hrp)
	payload := len(part) - 6
	data = make([]byte, 0, payload*5/8)
	var acc uint32
	var bits uint
	for i := 0; i < len(part); i++ {
		v := bech32Values[part[i]]
		if v < 0 {
			return "", nil, fmt.Errorf("character %q at position %d is not in the bech32 alphabet", part[i], sep+1+i)
		}
		chk = polymodStep(chk, byte(v))
		if i >= payload {
			continue
		}
		acc = acc<<5 | uint32(v)
		bits += 5
		if bits >= 8 {
			bits -= 8
			data = append(data, byte(acc>>bits))
		}
	}
	if chk != 1 {
		return "", nil, errBech32Checksum
	}
	// What is left is padding: fewer than 5 bits, all zero.
	if bits >= 5 || acc&(1<<bits-1) != 0 {
		return "", nil, errors.New("invalid padding of the data part")
	}
	return hrp, data, nil
}

// bech32Encode writes data under hrp (lower case), with its checksum.
func bech32Encode(hrp string, data []byte) string {
	n5 := (len(data)*8 + 4) / 5
	out := make([]byte, 0, len(hrp)+1+n5+6)
	out = append(out, hrp...)
	out = append(out, '1')
	chk := hrpChecksum(hrp)
	var acc uint32
	var bits uint
	emit := func(v byte) {
		chk = polymodStep(chk, v)
		out = append(out, bech32Alphabet[v])
	}
	for _, b := range data {
		acc = acc<<8 | uint32(b)
		bits += 8
		for bits >= 5 {
			bits -= 5
			emit(byte(acc>>bits) & 31)
		}
	}
	if bits > 0 {
		emit(byte(acc<<(5-bits)) & 31)
	}
	for range 6 {
		chk = polymodStep(chk, 0)
	}
	chk ^= 1
	for i := range 6 {
		out = append(out, bech32Alphabet[chk>>(5*(5-i))&31])
	}
	return string(out)
}
