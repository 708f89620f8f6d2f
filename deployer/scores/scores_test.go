package scores

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"
)

const (
	addrA = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	addrB = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
)

func TestCheckEVMAddress(t *testing.T) {
	tests := []struct {
		name, in, want, problem string
	}{
		{"checksummed", addrA, addrA, ""},
		{"lower case", strings.ToLower(addrA), addrA, ""},
		{"upper case body", "0x" + strings.ToUpper(addrA[2:]), addrA, ""},
		{"bad checksum", "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "", "checksum"},
		{"short", "0x1234", "", "40 hex digits"},
		{"no prefix", addrA[2:] + "00", "", "0x"},
		{"not hex", "0x" + strings.Repeat("g", 40), "", "not hex"},
		{"zero", "0x" + strings.Repeat("0", 40), "", "zero address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckEVMAddress(tt.in)
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("CheckEVMAddress(%q) error = %v, want it to mention %q", tt.in, err, tt.problem)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("CheckEVMAddress(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestCheckBech32(t *testing.T) {
	addr20 := GenerateBech32(1, 1, "wasm")[0].Addr
	zero, _ := bech32.ConvertAndEncode("wasm", make([]byte, 20))
	contract, _ := bech32.ConvertAndEncode("wasm", bytes.Repeat([]byte{7}, 32))
	short, _ := bech32.ConvertAndEncode("wasm", bytes.Repeat([]byte{7}, 19))
	other, _ := bech32.ConvertAndEncode("init", bytes.Repeat([]byte{7}, 20))
	mixed := strings.ToUpper(addr20[:6]) + addr20[6:]
	badChecksum := addr20[:len(addr20)-1] + "q"
	if strings.HasSuffix(addr20, "q") {
		badChecksum = addr20[:len(addr20)-1] + "p"
	}
	tests := []struct {
		name, in, want, problem string
	}{
		{"account", addr20, addr20, ""},
		{"upper case", strings.ToUpper(addr20), addr20, ""},
		{"contract", contract, contract, ""},
		{"mixed case", mixed, "", "mix upper and lower"},
		{"bad checksum", badChecksum, "", "not bech32"},
		{"other prefix", other, "", `this chain's is "wasm"`},
		{"19 bytes", short, "", "19 bytes"},
		{"zero", zero, "", "zero address"},
		{"hex", "0x" + strings.Repeat("1", 40), "", "not bech32"},
	}
	check := CheckBech32("wasm")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := check(tt.in)
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("CheckBech32(%q) error = %v, want it to mention %q", tt.in, err, tt.problem)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("CheckBech32(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestGenerateBech32MatchesGenerate(t *testing.T) {
	evm, b32 := Generate(50, 9), GenerateBech32(50, 9, "init")
	for i := range evm {
		_, raw, err := bech32.DecodeAndConvert(b32[i].Addr)
		if err != nil || common.BytesToAddress(raw).Hex() != evm[i].Addr || b32[i].Amount != evm[i].Amount {
			t.Fatalf("entry %d: %s (%v) vs %s", i, b32[i].Addr, err, evm[i].Addr)
		}
	}
	if _, err := Validate(b32, CheckBech32("init")); err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		in      []Entry
		want    []Entry
		problem string
	}{
		{"canonicalizes", []Entry{{strings.ToLower(addrA), 1}, {addrB, 2}}, []Entry{{addrA, 1}, {addrB, 2}}, ""},
		{"empty", nil, nil, "empty"},
		{"duplicate after canonical form", []Entry{{addrA, 1}, {strings.ToLower(addrA), 2}}, nil, "duplicate address " + addrA + " (first at entry 1)"},
		{"names the entry", []Entry{{addrA, 1}, {"0xnope", 2}}, nil, "entry 2"},
		{"every later use names the first", []Entry{{addrB, 1}, {addrA, 1}, {addrA, 2}, {addrB, 3}, {addrA, 4}, {addrA, 5}}, nil,
			"entry 3: duplicate address " + addrA + " (first at entry 2)\nentry 4: duplicate address " + addrB + " (first at entry 1)\n" +
				"entry 5: duplicate address " + addrA + " (first at entry 2)\nentry 6: duplicate address " + addrA + " (first at entry 2)"},
		{"problems in entry order", []Entry{{addrA, 1}, {addrA, 2}, {"0xnope", 3}}, nil, "entry 2: duplicate address " + addrA + " (first at entry 1)\nentry 3: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Validate(tt.in, CheckEVMAddress)
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("Validate error = %v, want it to mention %q", err, tt.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("entry %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestValidateBoundsTheReport(t *testing.T) {
	in := make([]Entry, 50)
	for i := range in {
		in[i] = Entry{Addr: "bad", Amount: 1}
	}
	_, err := Validate(in, CheckEVMAddress)
	if err == nil || !strings.Contains(err.Error(), "and 40 more problems") {
		t.Fatalf("error = %v, want a bounded report", err)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		format  Format
		in      string
		want    []Entry
		problem string
	}{
		{"csv with header and comments", CSV, "address,score\n# note\n" + addrA + ", 10\n\n" + addrB + ",20\n", []Entry{{addrA, 10}, {addrB, 20}}, ""},
		{"csv max u64", CSV, addrA + ",18446744073709551615\n", []Entry{{addrA, 18446744073709551615}}, ""},
		{"csv overflow", CSV, addrA + ",18446744073709551616\n", nil, "line 1: score 18446744073709551616 out of range"},
		{"csv negative", CSV, addrA + ",-1\n", nil, "negative"},
		{"csv fraction", CSV, addrA + ",1.5\n", nil, "whole decimal"},
		{"csv missing score", CSV, addrA + ",\n", nil, "missing score"},
		{"csv three fields", CSV, "a,1\n" + addrA + ",1,2\n", nil, "line 2: want 2 fields"},
		{"csv empty", CSV, "", nil, ""},
		{"json objects", JSON, `[{"address":"` + addrA + `","score":10},{"addr":"` + addrB + `","amount":"20"}]`, []Entry{{addrA, 10}, {addrB, 20}}, ""},
		{"json pairs", JSON, `[["` + addrA + `", "18446744073709551615"]]`, []Entry{{addrA, 18446744073709551615}}, ""},
		{"json overflow", JSON, `[["` + addrA + `", 18446744073709551616]]`, nil, "element 0: score 18446744073709551616 out of range"},
		{"json unknown field", JSON, `[{"address":"` + addrA + `","scor":1}]`, nil, "unknown field"},
		{"json not array", JSON, `{"a":1}`, nil, "want an array"},
		{"json trailing", JSON, `[] []`, nil, "trailing"},
		{"json float", JSON, `[["` + addrA + `", 1e3]]`, nil, "whole decimal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.in), tt.format)
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("Parse error = %v, want it to mention %q", err, tt.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("entry %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseFileFixtures(t *testing.T) {
	tests := []struct {
		file, problem string
	}{
		{"small.csv", ""},
		{"small.json", ""},
		{"bad-checksum.csv", "checksum"},
		{"duplicate.csv", "duplicate"},
		{"overflow.csv", "range"},
		{"empty.csv", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			entries, err := ParseFile("../../fixtures/scores/"+tt.file, "")
			if err == nil {
				_, err = Validate(entries, CheckEVMAddress)
			}
			if tt.problem == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.problem) {
				t.Fatalf("error = %v, want it to mention %q", err, tt.problem)
			}
		})
	}
	csvEntries, _ := ParseFile("../../fixtures/scores/small.csv", "")
	jsonEntries, _ := ParseFile("../../fixtures/scores/small.json", "")
	if Fingerprint(csvEntries) != Fingerprint(jsonEntries) {
		t.Fatal("small.csv and small.json must hold the same score set")
	}
}

func TestParseFileNeedsAFormat(t *testing.T) {
	if _, err := ParseFile("scores", ""); !errors.Is(err, ErrNoFormat) {
		t.Fatalf("error = %v", err)
	}
	if _, err := ParseFile("scores.txt", ""); err == nil || !strings.Contains(err.Error(), "unknown score file format") {
		t.Fatalf("error = %v", err)
	}
}

func TestSplit(t *testing.T) {
	in := Generate(10, 1)
	tests := []struct {
		size  int
		sizes []int
	}{{3, []int{3, 3, 3, 1}}, {5, []int{5, 5}}, {10, []int{10}}, {11, []int{10}}, {0, []int{10}}}
	for _, tt := range tests {
		got := Split(in, tt.size)
		if len(got) != len(tt.sizes) {
			t.Fatalf("Split(10, %d) gave %d chunks, want %d", tt.size, len(got), len(tt.sizes))
		}
		n := 0
		for i, c := range got {
			if len(c) != tt.sizes[i] {
				t.Fatalf("Split(10, %d)[%d] has %d entries, want %d", tt.size, i, len(c), tt.sizes[i])
			}
			for _, e := range c {
				if e != in[n] {
					t.Fatalf("chunk order broken at %d", n)
				}
				n++
			}
		}
	}
	if Split(nil, 3) != nil {
		t.Fatal("Split(nil) must be nil")
	}
}

func TestGenerateIsDeterministicAndValid(t *testing.T) {
	a, b, c := Generate(500, 7), Generate(500, 7), Generate(500, 8)
	if Fingerprint(a) != Fingerprint(b) {
		t.Fatal("same seed, different sets")
	}
	if Fingerprint(a) == Fingerprint(c) {
		t.Fatal("different seeds, same set")
	}
	if _, err := Validate(a, CheckEVMAddress); err != nil {
		t.Fatal(err)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	in := Generate(20, 3)
	for _, f := range []Format{CSV, JSON} {
		var buf bytes.Buffer
		if err := Write(&buf, in, f); err != nil {
			t.Fatal(err)
		}
		out, err := Parse(&buf, f)
		if err != nil {
			t.Fatal(err)
		}
		if Fingerprint(out) != Fingerprint(in) {
			t.Fatalf("%s round trip changed the set", f)
		}
	}
}

// A stand-in's read-back hands rows in pages of the size asked, decoded once; an address
// the codec refuses is an error naming the row.
func TestPageEntries(t *testing.T) {
	entries := Generate(7, 9)
	var pages []int
	var back []Entry
	err := PageEntries(entries, EVMCodec{}, 3, func(page []Row) error {
		pages = append(pages, len(page))
		for _, r := range page {
			back = append(back, r.Entry(EVMCodec{}))
		}
		return nil
	})
	if err != nil || fmt.Sprint(pages) != "[3 3 1]" || fmt.Sprint(back) != fmt.Sprint(entries) {
		t.Fatalf("pages %v, rows %v, %v; want [3 3 1] and the entries back", pages, back, err)
	}
	bad := append(entries[:1:1], Entry{Addr: "0xnot", Amount: 1})
	if err := PageEntries(bad, EVMCodec{}, 3, func([]Row) error { return nil }); err == nil || !strings.Contains(err.Error(), "row 2 (0xnot)") {
		t.Fatalf("bad row: %v", err)
	}
}
