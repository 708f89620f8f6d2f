package movebcs

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// Address is a 32-byte Move account address.
type Address [32]byte

// ParseAddress reads a Move address: 0x and up to 64 hex digits, left-padded with zeros.
func ParseAddress(s string) (Address, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "0x"), "0X")
	if h == "" || len(h) > 64 {
		return Address{}, fmt.Errorf("move address %q: want 0x and 1 to 64 hex digits", s)
	}
	if len(h)%2 == 1 {
		h = "0" + h
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return Address{}, fmt.Errorf("move address %q: not hex", s)
	}
	var a Address
	copy(a[32-len(raw):], raw)
	return a, nil
}

// MustAddress is ParseAddress for constants; it panics on a malformed address.
func MustAddress(s string) Address {
	a, err := ParseAddress(s)
	if err != nil {
		panic(err)
	}
	return a
}

// String is 0x and 64 lowercase hex digits.
func (a Address) String() string { return "0x" + hex.EncodeToString(a[:]) }

// Short is the address in Move's short form (0x1, 0xabc...), as module ids print it.
func (a Address) Short() string {
	s := strings.TrimLeft(hex.EncodeToString(a[:]), "0")
	if s == "" {
		s = "0"
	}
	return "0x" + s
}

// AccountAddress is the Move address of a Cosmos account: its address bytes left-padded to
// 32, as Initia maps them.
func AccountAddress(addr []byte) Address {
	var a Address
	copy(a[32-len(addr):], addr)
	return a
}

// AccountBytes is the Cosmos account address of a Move address: 20 bytes when the first 12
// are zero (a key's account), else all 32 (an object's or a module account's).
func (a Address) AccountBytes() []byte {
	for _, b := range a[:12] {
		if b != 0 {
			return append([]byte{}, a[:]...)
		}
	}
	return append([]byte{}, a[12:]...)
}
