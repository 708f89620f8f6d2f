package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// Server serves a Device on Speculos' TCP APDU protocol.
type Server struct {
	*Device
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// Serve listens on 127.0.0.1 (a free port) and answers APDUs for dev.
func Serve(dev *Device) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("ledger stand-in: listen: %w", err)
	}
	s := &Server{Device: dev, ln: ln, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Start is NewDevice and Serve in one.
func Start(mnemonic string, opts ...Option) (*Server, error) {
	dev, err := NewDevice(mnemonic, opts...)
	if err != nil {
		return nil, err
	}
	return Serve(dev)
}

// Addr is the host:port to give a Speculos client.
func (s *Server) Addr() string { return s.ln.Addr().String() }

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serve(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

// serve answers length-prefixed APDUs until the client goes away.
func (s *Server) serve(c net.Conn) {
	for {
		var head [4]byte
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(head[:])
		if n > 260 { // CLA INS P1 P2 Lc and at most 255 bytes: not an APDU
			return
		}
		apdu := make([]byte, n)
		if _, err := io.ReadFull(c, apdu); err != nil {
			return
		}
		data, sw := s.Exchange(apdu)
		out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		out = binary.BigEndian.AppendUint16(append(out, data...), sw)
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// Close stops listening, drops the connections and waits for the handlers.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
