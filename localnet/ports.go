package localnet

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// FreePorts finds n distinct free loopback ports, for nodes that must be told their ports
// up front. A port is free when found and released for the node to bind, so another
// process can take it in between. Most takers in a busy test run are the kernel's own
// picks: the local port of an outgoing connection, or a listener on port 0. So FreePorts
// looks outside the kernel's ephemeral range, where neither lands. (A Cosmos SDK node whose
// REST server cannot bind keeps running without it, so a taken port shows only as a node
// that never answers.)
func FreePorts(n int) ([]int, error) {
	pick := func() int { return 0 } // the kernel's choice, where no other range is known
	lo, hi, outside := portsOutside(ephemeralRange())
	if outside {
		pick = func() int { return lo + rand.IntN(hi-lo+1) }
	}
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	out := make([]int, 0, n)
	for tries := 0; len(out) < n; tries++ {
		if tries == 100*n {
			return nil, fmt.Errorf("find %d free ports in %d-%d: %d found after %d tries", n, lo, hi, len(out), tries)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(pick())))
		switch {
		case err != nil && !outside:
			return nil, fmt.Errorf("find a free port: %w", err)
		case err != nil:
			continue // in use, or just held by a listener of ours
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// Ports below lowestPort are left alone (well-known and common service ports); a range
// narrower than minPorts is too small to pick from at random.
const (
	lowestPort = 10000
	minPorts   = 2000
)

// portsOutside is the range to pick from given the kernel's ephemeral range [elo, ehi]:
// below it when there is room, else above it.
func portsOutside(elo, ehi int, known bool) (lo, hi int, ok bool) {
	switch {
	case !known:
		return 0, 0, false
	case elo-1-lowestPort+1 >= minPorts:
		return lowestPort, elo - 1, true
	case 65535-(ehi+1)+1 >= minPorts:
		return ehi + 1, 65535, true
	}
	return 0, 0, false
}

// ephemeralRange is Linux's ip_local_port_range; known is false elsewhere or when it
// cannot be read.
func ephemeralRange() (lo, hi int, known bool) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0, false
	}
	lo, hi, err = parseRange(string(b))
	return lo, hi, err == nil
}

func parseRange(s string) (lo, hi int, err error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("port range %q: want two numbers", s)
	}
	if lo, err = strconv.Atoi(f[0]); err != nil {
		return 0, 0, fmt.Errorf("port range %q: %w", s, err)
	}
	if hi, err = strconv.Atoi(f[1]); err != nil {
		return 0, 0, fmt.Errorf("port range %q: %w", s, err)
	}
	if lo < 1 || hi > 65535 || lo > hi {
		return 0, 0, errors.New("port range " + strconv.Quote(s) + ": not a range of ports")
	}
	return lo, hi, nil
}
