package scores

import (
	"bytes"
	"strings"
	"testing"

	sdkbech32 "github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"
)

// initAddr is a 20-byte Initia account address, as the SDK writes it.
var initAddr = func() string {
	s, err := sdkbech32.ConvertAndEncode("init", bytes.Repeat([]byte{0xa7}, 20))
	if err != nil {
		panic(err)
	}
	return s
}()

// The valid and invalid strings of BIP-173's test vectors, and Cosmos addresses.
func TestBech32Decode(t *testing.T) {
	valid := []string{
		"A12UEL5L",
		"a12uel5l",
		"abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
		"split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
		"?1ezyfcl",
		initAddr,
		strings.ToUpper(initAddr),
	}
	for _, s := range valid {
		hrp, _, err := bech32Decode(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if want := strings.ToLower(s[:strings.LastIndexByte(s, '1')]); hrp != want {
			t.Errorf("%s: prefix %q, want %q", s, hrp, want)
		}
	}
	invalid := map[string]string{
		"\x201nwldj5":                    "not printable",
		"\x7f1axkwrx":                    "not printable",
		"pzry9x0s0muk":                   "no prefix",
		"1pzry9x0s0muk":                  "no prefix",
		"x1b4n0q5v":                      "not in the bech32 alphabet",
		"li1dgmt3":                       "shorter than its 6-character checksum",
		"de1lg7wt\xff":                   "not printable",
		"A1G7SGD8":                       "checksum mismatch",
		"10a06t8":                        "no prefix",
		"1qzzfhee":                       "no prefix",
		"a12UEL5L":                       "must not mix upper and lower case",
		initAddr[:len(initAddr)-1] + "q": "checksum mismatch",
		"a1" + strings.Repeat("q", 1100): "at most 1023",
	}
	for s, want := range invalid {
		if _, _, err := bech32Decode(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error containing %q", s, err, want)
		}
	}
}

// TestBech32RoundTrip: every width encodes as the Cosmos SDK encodes it, and decodes back.
func TestBech32RoundTrip(t *testing.T) {
	for n := range 40 {
		data := bytes.Repeat([]byte{byte(n * 37)}, n)
		for i := range data {
			data[i] ^= byte(i * 11)
		}
		got := bech32Encode("init", data)
		want, err := sdkbech32.ConvertAndEncode("init", data)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%d bytes: %s, the SDK writes %s", n, got, want)
		}
		hrp, back, err := bech32Decode(got)
		if err != nil || hrp != "init" || !bytes.Equal(back, data) {
			t.Fatalf("%d bytes: decode %s: %q %x %v", n, got, hrp, back, err)
		}
	}
}

// FuzzBech32 holds the decoder to the Cosmos SDK's: the same strings accepted, with the
// same prefix and bytes.
func FuzzBech32(f *testing.F) {
	f.Add(initAddr)
	f.Add(initAddr[:len(initAddr)-1] + "q")
	f.Add("A12UEL5L")
	f.Add("a12uel5l")
	f.Add("split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w")
	f.Fuzz(func(t *testing.T, s string) {
		hrp, data, err := bech32Decode(s)
		wantHRP, wantData, wantErr := sdkbech32.DecodeAndConvert(s)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: decode error %v, the SDK's %v", s, err, wantErr)
		}
		if err != nil {
			return
		}
		if hrp != wantHRP || !bytes.Equal(data, wantData) {
			t.Fatalf("%q: %q %x, the SDK's %q %x", s, hrp, data, wantHRP, wantData)
		}
		if again := bech32Encode(hrp, data); again != strings.ToLower(s) {
			t.Fatalf("%q: encodes back as %q", s, again)
		}
	})
}

// FuzzEIP55 holds the checksum check to go-ethereum's checksummed text.
func FuzzEIP55(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123"), uint64(0x5a5a5a5a5a))
	f.Fuzz(func(t *testing.T, addr []byte, casing uint64) {
		if len(addr) != 20 {
			return
		}
		sum := common.BytesToAddress(addr).Hex()[2:]
		// Flip the case of some letters of the checksummed text, as a typo would.
		body := []byte(sum)
		for i := range body {
			if casing>>(i%64)&1 == 1 && body[i] >= 'A' {
				body[i] ^= 0x20
			}
		}
		if got, want := eip55Valid(string(body), addr), string(body) == sum; got != want {
			t.Fatalf("%s: valid %v, go-ethereum's checksum %s", body, got, sum)
		}
	})
}
