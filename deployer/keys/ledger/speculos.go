package ledger

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Speculos is the TCP APDU transport of Speculos, Ledger's device emulator (its --apdu-port,
// 9999 by default): a request is a 4-byte big-endian length and the APDU; a reply is a 4-byte
// big-endian length of the data, the data and the 2-byte status word.
type Speculos struct {
	mu     sync.Mutex
	conn   net.Conn
	broken error // set when an exchange was cut off: the stream is out of step
}

// DialSpeculos connects to a Speculos APDU port such as 127.0.0.1:9999.
func DialSpeculos(ctx context.Context, addr string) (*Speculos, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connect to the Speculos APDU port %s: %w", addr, err)
	}
	return &Speculos{conn: conn}, nil
}

// Exchange sends one APDU and waits for its reply, as long as ctx allows (a person may take a
// while to confirm on the device).
func (s *Speculos) Exchange(ctx context.Context, apdu []byte) ([]byte, uint16, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return nil, 0, s.broken
	}
	stop := context.AfterFunc(ctx, func() { _ = s.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	data, sw, err := s.exchange(apdu)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		s.broken = fmt.Errorf("speculos connection unusable after an interrupted exchange: %w", err)
		return nil, 0, err
	}
	return data, sw, nil
}

func (s *Speculos) exchange(apdu []byte) ([]byte, uint16, error) {
	req := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(apdu)), uint32(len(apdu)))
	if _, err := s.conn.Write(append(req, apdu...)); err != nil {
		return nil, 0, fmt.Errorf("send apdu: %w", err)
	}
	var head [4]byte
	if _, err := io.ReadFull(s.conn, head[:]); err != nil {
		return nil, 0, fmt.Errorf("read reply: %w", err)
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > 64<<10 {
		return nil, 0, fmt.Errorf("read reply: length %d is not a Speculos reply", n)
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(s.conn, body); err != nil {
		return nil, 0, fmt.Errorf("read reply: %w", err)
	}
	return body[:n], binary.BigEndian.Uint16(body[n:]), nil
}

// Close closes the connection.
func (s *Speculos) Close() error {
	if err := s.conn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
