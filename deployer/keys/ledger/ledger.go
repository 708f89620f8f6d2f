// Package ledger talks to the Ethereum app of a Ledger device, the app Initia's own CLI uses
// for eth_secp256k1 (coin type 60) keys: GET ADDRESS, SIGN TRANSACTION (EIP-1559 typed
// transactions) and SIGN PERSONAL MESSAGE (used for Cosmos SIGN_MODE_EIP_191). It speaks APDUs
// over a Transport: Speculos' TCP protocol (pure Go) or USB HID (cgo, build tag ledgerhid).
//
// A device shows one request at a time and a multi-APDU request must not interleave with
// another, so an App serialises whole requests: callers may share one App between goroutines.
package ledger

import (
	"context"
	"errors"
	"fmt"
)

// Transport carries one APDU to the device and returns the reply data and status word.
type Transport interface {
	Exchange(ctx context.Context, apdu []byte) (data []byte, sw uint16, err error)
	Close() error
}

// Status words the Ethereum app and the device's OS answer with.
const (
	SWOK              uint16 = 0x9000
	SWRejected        uint16 = 0x6985 // the user refused on the device
	SWLocked          uint16 = 0x5515 // the device is locked (PIN screen)
	SWSecurityStatus  uint16 = 0x6982 // older firmware's "locked" answer
	SWBadData         uint16 = 0x6A80 // the app could not parse the data
	SWWrongP1P2       uint16 = 0x6B00
	SWInsNotSupported uint16 = 0x6D00 // another app (or the dashboard) is open
	SWClaNotSupported uint16 = 0x6E00 // another app (or the dashboard) is open
	SWAppNotOpen      uint16 = 0x6E01 // dashboard: no app open
	SWWrongLength     uint16 = 0x6700
)

// Errors a caller may branch on; a *StatusError wraps one of them where it applies.
var (
	ErrRejected = errors.New("rejected on the device")
	ErrLocked   = errors.New("the device is locked: unlock it with its PIN")
	ErrWrongApp = errors.New("the Ethereum app is not open on the device: open it")
	ErrBadData  = errors.New("the Ethereum app refused the data")
	// ErrTransport is the link to the device failing mid-request (unplugged, the
	// connection reset): the request's answer is lost, nothing was signed for it.
	ErrTransport = errors.New("the connection to the device failed")
)

// StatusError is a reply with a status word other than 0x9000.
type StatusError struct {
	Op string // what was asked, such as "sign transaction"
	SW uint16
}

func (e *StatusError) Error() string {
	msg := "unexpected status"
	if k := e.kind(); k != nil {
		msg = k.Error()
	}
	switch e.SW {
	case SWBadData:
		msg += " (for contract data, enable \"Blind signing\" in the app's settings)"
	case SWWrongLength, SWWrongP1P2:
		msg = "the Ethereum app refused the request's format (update the app)"
	}
	return fmt.Sprintf("ledger %s: status 0x%04X: %s", e.Op, e.SW, msg)
}

func (e *StatusError) kind() error {
	switch e.SW {
	case SWRejected:
		return ErrRejected
	case SWLocked, SWSecurityStatus:
		return ErrLocked
	case SWInsNotSupported, SWClaNotSupported, SWAppNotOpen, 0x6D02, 0x6511:
		return ErrWrongApp
	case SWBadData:
		return ErrBadData
	}
	return nil
}

// Unwrap lets errors.Is(err, ErrRejected) and friends work.
func (e *StatusError) Unwrap() error { return e.kind() }

// Rejected reports whether err is the user refusing a request on the device.
func Rejected(err error) bool { return errors.Is(err, ErrRejected) }

// Interrupted reports whether err is a request the device did not complete: refused by the
// user, or lost with the connection. Either way what was signed before it stands, and a
// re-run resumes after it.
func Interrupted(err error) bool { return Rejected(err) || errors.Is(err, ErrTransport) }

// ErrNoHID is the answer of a binary built without USB support (hid_off.go); a binary with
// it never returns it.
var ErrNoHID = errors.New("this binary was built without USB HID support for Ledger devices: " +
	"rebuild it with `make build-ledger` in a checkout (CGO_ENABLED=1, build tag ledgerhid; needs a C compiler), " +
	"or reach the device through Speculos at its HOST:PORT")
