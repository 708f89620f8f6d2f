//go:build !ledgerhid || !cgo

package ledger

import (
	"context"
	"errors"
)

// HIDSupported reports whether this binary can reach a device over USB.
const HIDSupported = false

// ErrNoHID is the answer of a binary built without USB support.
var ErrNoHID = errors.New("this binary was built without USB HID support for Ledger devices: " +
	"rebuild it with `make build-ledger` in a checkout (CGO_ENABLED=1 go build -tags ledgerhid ./cmd/vipctl; needs a C compiler), " +
	"or reach the device through Speculos with --ledger-speculos HOST:PORT")

// HID is a Ledger device on USB (not available in this build).
type HID struct{}

// OpenHID fails: see ErrNoHID.
func OpenHID() (*HID, error) { return nil, ErrNoHID }

// Exchange fails: see ErrNoHID.
func (*HID) Exchange(context.Context, []byte) ([]byte, uint16, error) { return nil, 0, ErrNoHID }

// Close does nothing.
func (*HID) Close() error { return nil }
