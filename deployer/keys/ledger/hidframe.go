package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// USB HID framing of APDUs: 64-byte packets with channel 0x0101, tag 0x05 and a 2-byte
// sequence number; the first packet of a message starts with its 2-byte length.
const (
	hidPacket  = 64
	hidChannel = 0x0101
	hidTagAPDU = 0x05
)

// frameHID splits an APDU into HID packets.
func frameHID(apdu []byte) [][]byte {
	msg := binary.BigEndian.AppendUint16(nil, uint16(len(apdu)))
	msg = append(msg, apdu...)
	var out [][]byte
	for seq := 0; len(msg) > 0; seq++ {
		p := make([]byte, hidPacket)
		binary.BigEndian.PutUint16(p, hidChannel)
		p[2] = hidTagAPDU
		binary.BigEndian.PutUint16(p[3:], uint16(seq))
		n := copy(p[5:], msg)
		msg = msg[n:]
		out = append(out, p)
	}
	return out
}

// unframeHID reads packets with next until a whole reply is in; it returns the data and the
// status word.
func unframeHID(next func() ([]byte, error)) ([]byte, uint16, error) {
	var msg []byte
	want := -1
	for seq := 0; want < 0 || len(msg) < want; seq++ {
		p, err := next()
		if err != nil {
			return nil, 0, err
		}
		if len(p) < 7 || binary.BigEndian.Uint16(p) != hidChannel || p[2] != hidTagAPDU {
			return nil, 0, errors.New("hid: reply packet with a foreign header (is the device in another mode?)")
		}
		if got := int(binary.BigEndian.Uint16(p[3:])); got != seq {
			return nil, 0, fmt.Errorf("hid: reply packet %d out of order (want %d)", got, seq)
		}
		body := p[5:]
		if seq == 0 {
			want = int(binary.BigEndian.Uint16(body))
			body = body[2:]
		}
		msg = append(msg, body[:min(len(body), want-len(msg))]...)
	}
	if len(msg) < 2 {
		return nil, 0, errors.New("hid: reply without a status word")
	}
	return msg[:len(msg)-2], binary.BigEndian.Uint16(msg[len(msg)-2:]), nil
}
