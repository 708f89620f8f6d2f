//go:build ledgerhid && cgo

package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zondax/hid"
)

const (
	vendorLedger    = 0x2c97
	usagePageLedger = 0xffa0
)

// HIDSupported reports whether this binary can reach a device over USB.
const HIDSupported = true

// HID is a Ledger device on USB.
type HID struct {
	mu  sync.Mutex
	dev *hid.Device
}

// OpenHID opens the first Ledger device on USB.
func OpenHID() (*HID, error) {
	for _, d := range hid.Enumerate(vendorLedger, 0) {
		if d.UsagePage == usagePageLedger || d.Interface == 0 {
			dev, err := d.Open()
			if err != nil {
				return nil, fmt.Errorf("open Ledger %s: %w (is another program such as Ledger Live using it?)", d.Product, err)
			}
			return &HID{dev: dev}, nil
		}
	}
	return nil, errors.New("no Ledger device on USB: plug it in, unlock it and open the Ethereum app (on Linux, install Ledger's udev rules)")
}

// Exchange writes the APDU as HID packets and reads the reply. A USB read cannot be
// interrupted, so ctx is checked between packets only.
func (h *HID) Exchange(ctx context.Context, apdu []byte) ([]byte, uint16, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range frameHID(apdu) {
		if _, err := h.dev.Write(p); err != nil {
			return nil, 0, fmt.Errorf("hid write: %w", err)
		}
	}
	return unframeHID(func() ([]byte, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		buf := make([]byte, hidPacket)
		n, err := h.dev.Read(buf)
		if err != nil {
			return nil, fmt.Errorf("hid read: %w", err)
		}
		return buf[:n], nil
	})
}

// Close releases the device.
func (h *HID) Close() error { return h.dev.Close() }
