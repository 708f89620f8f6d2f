package localnet

import (
	"net"
	"strconv"
	"testing"
)

func TestPortsOutside(t *testing.T) {
	for _, tc := range []struct {
		name           string
		elo, ehi       int
		known          bool
		wantLo, wantHi int
		wantOK         bool
	}{
		{"Linux default: below it", 32768, 60999, true, 10000, 32767, true},
		{"wide range from 11000: above it", 11000, 60000, true, 60001, 65535, true},
		{"everything ephemeral: the kernel's picks", 1024, 65535, true, 0, 0, false},
		{"unknown range: the kernel's picks", 0, 0, false, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, ok := portsOutside(tc.elo, tc.ehi, tc.known)
			if lo != tc.wantLo || hi != tc.wantHi || ok != tc.wantOK {
				t.Fatalf("portsOutside(%d, %d, %v) = %d, %d, %v; want %d, %d, %v", tc.elo, tc.ehi, tc.known, lo, hi, ok, tc.wantLo, tc.wantHi, tc.wantOK)
			}
		})
	}
}

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in      string
		lo, hi  int
		wantErr bool
	}{
		{"32768\t60999\n", 32768, 60999, false},
		{"1024 65535", 1024, 65535, false},
		{"60999 32768", 0, 0, true},
		{"32768", 0, 0, true},
		{"a b", 0, 0, true},
		{"0 70000", 0, 0, true},
	} {
		lo, hi, err := parseRange(tc.in)
		if (err != nil) != tc.wantErr || lo != tc.lo || hi != tc.hi {
			t.Errorf("parseRange(%q) = %d, %d, %v; want %d, %d, error %v", tc.in, lo, hi, err, tc.lo, tc.hi, tc.wantErr)
		}
	}
}

// The ports are distinct, outside the ephemeral range where one is known, and bindable.
func TestFreePorts(t *testing.T) {
	ports, err := FreePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	elo, ehi, known := ephemeralRange()
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Fatalf("port %d twice in %v", p, ports)
		}
		seen[p] = true
		if known && p >= elo && p <= ehi {
			t.Errorf("port %d is in the ephemeral range %d-%d", p, elo, ehi)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Errorf("port %d: %v", p, err)
			continue
		}
		ln.Close()
	}
}
