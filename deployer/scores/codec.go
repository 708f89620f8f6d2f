package scores

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Codec is how a VM writes account addresses. Decode validates an address and returns its
// canonical bytes: two addresses are the same account exactly when their bytes are equal.
// Encode writes canonical bytes (as Decode returned them) in the VM's canonical text, the
// form the chain itself prints. A Set keeps the bytes and writes the text only for the
// entries in flight.
type Codec interface {
	Decode(addr string) ([]byte, error)
	Encode(b []byte) string
}

// EVMCodec is 0x-prefixed 20-byte hex, checksummed (EIP-55) when written.
type EVMCodec struct{}

// Decode accepts 0x followed by 40 hex digits; mixed case must be a valid EIP-55 checksum
// (a typo in a checksummed address is caught, not silently scored); the zero address is
// refused.
func (EVMCodec) Decode(addr string) ([]byte, error) {
	if len(addr) != 42 || (addr[:2] != "0x" && addr[:2] != "0X") {
		return nil, fmt.Errorf("address %q: want 0x followed by 40 hex digits", addr)
	}
	body := addr[2:]
	b, err := hex.DecodeString(body)
	if err != nil {
		return nil, fmt.Errorf("address %q: not hex", addr)
	}
	if !slices.ContainsFunc(b, func(c byte) bool { return c != 0 }) {
		return nil, fmt.Errorf("address %q: the zero address cannot hold a score", addr)
	}
	// The checksum (a keccak hash) is computed only where the input claims one.
	if hasLower(body) && hasUpper(body) {
		if !eip55Valid(body, b) {
			return nil, fmt.Errorf("address %q: bad EIP-55 checksum (mixed case must read %s)", addr, common.BytesToAddress(b).Hex())
		}
	}
	return b, nil
}

// keccaks are reused: a hasher per address was a third of validating a file of
// checksummed addresses.
var keccaks = sync.Pool{New: func() any { return crypto.NewKeccakState() }}

// eip55Valid reports whether body (the 40 hex digits of addr) has addr's EIP-55 casing: a
// letter is upper case exactly where the keccak of the lower-case hex has a nibble >= 8.
func eip55Valid(body string, addr []byte) bool {
	var text [40]byte
	hex.Encode(text[:], addr)
	h := keccaks.Get().(crypto.KeccakState)
	h.Reset()
	h.Write(text[:])
	var sum [32]byte
	h.Read(sum[:])
	keccaks.Put(h)
	for i := range 40 {
		c := body[i]
		if c < 'A' {
			continue // a digit
		}
		nibble := sum[i/2] >> (4 * (1 - i%2)) & 0xf
		if (c <= 'F') != (nibble >= 8) {
			return false
		}
	}
	return true
}

// Encode is the EIP-55 checksummed form.
func (EVMCodec) Encode(b []byte) string { return common.BytesToAddress(b).Hex() }

// Bech32Codec is bech32 account addresses under Prefix: 20 bytes (a key's address) or 32
// (a contract's), written in lower case as the chain prints them.
type Bech32Codec struct{ Prefix string }

// Decode accepts one case throughout (bech32 refuses mixed case), the chain's prefix, 20
// or 32 bytes, not all zero.
func (c Bech32Codec) Decode(addr string) ([]byte, error) {
	if strings.HasPrefix(addr, "0x") || strings.HasPrefix(addr, "0X") {
		return nil, fmt.Errorf("address %q: not bech32 but hex; this chain's addresses start with %q", addr, c.Prefix+"1")
	}
	hrp, data, err := bech32Decode(addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: not bech32: %v", addr, err)
	}
	if hrp != c.Prefix {
		return nil, fmt.Errorf("address %q: prefix %q, this chain's is %q", addr, hrp, c.Prefix)
	}
	if len(data) != 20 && len(data) != 32 {
		return nil, fmt.Errorf("address %q: %d bytes, want 20 or 32", addr, len(data))
	}
	if !slices.ContainsFunc(data, func(b byte) bool { return b != 0 }) {
		return nil, fmt.Errorf("address %q: the zero address cannot hold a score", addr)
	}
	return data, nil
}

// Encode is the bech32 text under Prefix, in lower case as Decode accepts it.
func (c Bech32Codec) Encode(b []byte) string {
	return bech32Encode(c.Prefix, b)
}

// Check is codec's AddressCheck: an address's canonical text.
func Check(codec Codec) AddressCheck {
	return func(addr string) (string, error) {
		b, err := codec.Decode(addr)
		if err != nil {
			return "", err
		}
		return codec.Encode(b), nil
	}
}
