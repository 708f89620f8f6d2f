//go:build !ledgerhid || !cgo

package ledger

import (
	"context"
)

// HIDSupported reports whether this binary can reach a device over USB.
const HIDSupported = false

// HID is a Ledger device on USB (not available in this build).
type HID struct{}

// OpenHID fails: see ErrNoHID.
func OpenHID() (*HID, error) { return nil, ErrNoHID }

// Exchange fails: see ErrNoHID.
func (*HID) Exchange(context.Context, []byte) ([]byte, uint16, error) { return nil, 0, ErrNoHID }

// Close does nothing.
func (*HID) Close() error { return nil }
