package minitiad

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
)

// A node's REST port taken between FreePorts and its bind (by a socket bound but not
// listening: an outgoing connection's local port) leaves a real minitiad making blocks
// without a REST server and without a word in its log. Start tells it by its refusals and
// starts again on fresh ports.
func TestANodeThatLostItsRESTPortStartsAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real minitiad twice")
	}
	src, err := (Engine{}).source(vip.Move)
	if err != nil || src.bin == "" {
		t.Skipf("no minimove minitiad here: %v", err)
	}
	var (
		mu    sync.Mutex
		calls int
		taken int
	)
	freePorts = func(n int) ([]int, error) {
		ports, err := localnet.FreePorts(n)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if calls++; calls == 1 {
			fd, err := bindOnly(ports[5]) // the REST port (see newBinaryRunner)
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { syscall.Close(fd) })
			taken = ports[5]
		}
		return ports, nil
	}
	t.Cleanup(func() { freePorts = localnet.FreePorts })

	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r, err := Start(ctx, src.bin, vip.Move, Bridge{}, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop(context.Background())
	if calls != 2 {
		t.Fatalf("ports found %d times, want 2 (one start, one more on fresh ports)", calls)
	}
	if strings.Contains(r.Endpoints().REST, fmt.Sprint(taken)) {
		t.Fatalf("REST %s on the taken port %d", r.Endpoints().REST, taken)
	}
	if !strings.Contains(logs.String(), "starting again on fresh ports") || !strings.Contains(logs.String(), "refused connections") {
		t.Fatalf("the restart is not logged with its reason:\n%s", logs.String())
	}
	if err := r.restReady(ctx); err != nil {
		t.Fatalf("REST after the restart: %v", err)
	}
}

// bindOnly binds a TCP socket to 127.0.0.1:port without listening, as a connection's local
// port is bound: a listener cannot bind it, and a client is refused.
func bindOnly(port int) (int, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return 0, err
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return 0, fmt.Errorf("bind 127.0.0.1:%d: %w", port, err)
	}
	return fd, nil
}

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// A REST that refuses connections for refusedFor in a row is a lost port; any other
// answer (an error that is not a refusal, or success) starts the count again.
func TestRefusals(t *testing.T) {
	refused := fmt.Errorf("get: %w", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED})
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name string
		errs []error
		at   []time.Duration
		want bool
	}{
		{"refused throughout", []error{refused, refused}, []time.Duration{0, refusedFor}, true},
		{"refused, not yet long", []error{refused, refused}, []time.Duration{0, refusedFor - time.Second}, false},
		{"a 500 in between", []error{refused, errors.New("HTTP 500"), refused}, []time.Duration{0, refusedFor / 2, refusedFor}, false},
		{"answered in between", []error{refused, nil, refused}, []time.Duration{0, refusedFor / 2, refusedFor}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r refusals
			got := false
			for i, err := range tc.errs {
				got = r.see(err, t0.Add(tc.at[i]))
			}
			if got != tc.want {
				t.Fatalf("lost port %v, want %v", got, tc.want)
			}
		})
	}
}
