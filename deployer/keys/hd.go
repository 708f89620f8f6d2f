package keys

import (
	"crypto/hmac"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
)

// hardened marks a BIP32 hardened child index.
const hardened = 1 << 31

// Path is a BIP32 derivation path as child indexes (hardened ones have the top bit set).
type Path []uint32

// EVMPath is m/44'/60'/0'/0/index, the path Ethereum wallets and Initia (coin type 60) use.
func EVMPath(index uint32) Path { return Path{44 | hardened, 60 | hardened, hardened, 0, index} }

// CosmosPath is m/44'/118'/0'/0/index, the classic Cosmos secp256k1 path.
func CosmosPath(index uint32) Path { return Path{44 | hardened, 118 | hardened, hardened, 0, index} }

// ParsePath reads "m/44'/60'/0'/0/0".
func ParsePath(s string) (Path, error) {
	parts := strings.Split(strings.TrimSpace(s), "/")
	if len(parts) < 2 || parts[0] != "m" {
		return nil, fmt.Errorf("derivation path %q: want m/... ", s)
	}
	p := make(Path, 0, len(parts)-1)
	for _, part := range parts[1:] {
		h := strings.HasSuffix(part, "'") || strings.HasSuffix(part, "h")
		n, err := strconv.ParseUint(strings.TrimRight(part, "'h"), 10, 31)
		if err != nil {
			return nil, fmt.Errorf("derivation path %q: bad element %q", s, part)
		}
		if h {
			n |= hardened
		}
		p = append(p, uint32(n))
	}
	return p, nil
}

func (p Path) String() string {
	var b strings.Builder
	b.WriteString("m")
	for _, i := range p {
		b.WriteString("/" + strconv.FormatUint(uint64(i&^hardened), 10))
		if i&hardened != 0 {
			b.WriteString("'")
		}
	}
	return b.String()
}

var curveN = crypto.S256().Params().N

// derive walks BIP32 from a BIP39 seed to the private key at path.
func derive(seed []byte, path Path) ([]byte, error) {
	mac := hmac.New(sha512.New, []byte("Bitcoin seed"))
	mac.Write(seed)
	sum := mac.Sum(nil)
	key, chain := sum[:32], sum[32:]
	if err := checkScalar(key); err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	for depth, index := range path {
		var err error
		if key, chain, err = child(key, chain, index); err != nil {
			return nil, fmt.Errorf("child %d at depth %d: %w", index&^hardened, depth+1, err)
		}
	}
	return key, nil
}

// child is BIP32 CKDpriv.
func child(key, chain []byte, index uint32) ([]byte, []byte, error) {
	data := make([]byte, 0, 37)
	if index&hardened != 0 {
		data = append(append(data, 0), key...)
	} else {
		k, err := crypto.ToECDSA(key)
		if err != nil {
			return nil, nil, err
		}
		data = append(data, crypto.CompressPubkey(&k.PublicKey)...)
	}
	data = binary.BigEndian.AppendUint32(data, index)
	mac := hmac.New(sha512.New, chain)
	mac.Write(data)
	sum := mac.Sum(nil)
	il := new(big.Int).SetBytes(sum[:32])
	if il.Cmp(curveN) >= 0 {
		return nil, nil, errors.New("derived tweak out of range; use the next index")
	}
	k := il.Add(il, new(big.Int).SetBytes(key))
	k.Mod(k, curveN)
	out := k.FillBytes(make([]byte, 32))
	if err := checkScalar(out); err != nil {
		return nil, nil, err
	}
	return out, sum[32:], nil
}

func checkScalar(k []byte) error {
	v := new(big.Int).SetBytes(k)
	if v.Sign() == 0 || v.Cmp(curveN) >= 0 {
		return errors.New("invalid key; use the next index")
	}
	return nil
}
