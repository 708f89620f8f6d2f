// Package ledger is a stand-in for a Ledger device running the Ethereum app, for tests and
// demos: it takes the app's APDUs (GET ADDRESS, SIGN TRANSACTION, SIGN PERSONAL MESSAGE, GET
// APP CONFIGURATION) in the chunks the real app takes, parses what it is sent, signs with a
// software key derived from a test mnemonic, answers with the app's status words (0x6985
// when the user refuses, 0x5515 when locked, 0x6E00 when another app is open, 0x6A80 for data
// it cannot parse) and serves all of that over Speculos' TCP APDU protocol on 127.0.0.1, so
// the deployer reaches it exactly as it reaches the real emulator.
//
// It keeps a log of what the user would have confirmed on the screen, can be told to refuse
// the next request, and counts protocol faults (interleaved requests, overlapping exchanges)
// so tests can assert that a client drives it one request at a time.
package ledger

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/vipharness/vipharness/deployer/keys"
	app "github.com/vipharness/vipharness/deployer/keys/ledger"
)

// Version is the Ethereum app version the stand-in reports.
var Version = [3]byte{1, 13, 0}

// Confirmation is one request the user was shown.
type Confirmation struct {
	Kind     string // "address", "transaction" or "message"
	Path     string
	Screens  []string // what the device displays, in order
	Approved bool
	At       time.Time
}

// Stats counts what the device saw.
type Stats struct {
	APDUs         int // APDUs answered
	Signatures    int // requests signed
	MaxConcurrent int // most exchanges in progress at once (a well-behaved client keeps 1)
	Interleaved   int // chunks that broke into another request, or continued none
}

// Option configures a Device.
type Option func(*Device)

// WithConfirmDelay makes the user take d to confirm each signing request.
func WithConfirmDelay(d time.Duration) Option { return func(dv *Device) { dv.delay = d } }

// WithBlindSigning sets the app's "Blind signing" setting (default on); when off, a
// transaction carrying contract data is refused with 0x6A80, as the real app does.
func WithBlindSigning(on bool) Option { return func(dv *Device) { dv.blind = on } }

// Device is the emulated device. Its methods are safe for concurrent use.
type Device struct {
	mnemonic string
	delay    time.Duration
	blind    bool

	mu         sync.Mutex
	keys       map[string]*ecdsa.PrivateKey
	locked     bool
	app        string
	rejectNext bool
	rejectIn   int // > 0: the user refuses the rejectIn-th request from now
	rejectFrom int // > 0: the user refuses the rejectFrom-th request from now and every later one
	pending    *request
	log        []Confirmation
	stats      Stats
	inFlight   int
}

// request is a multi-chunk request being received.
type request struct {
	ins  byte
	path []uint32
	want int // personal message: the announced length
	data []byte
}

// NewDevice is a device whose keys derive from mnemonic, unlocked with the Ethereum app open.
func NewDevice(mnemonic string, opts ...Option) (*Device, error) {
	if _, err := keys.FromMnemonic(mnemonic, keys.EVMPath(0)); err != nil {
		return nil, fmt.Errorf("ledger stand-in: %w", err)
	}
	d := &Device{mnemonic: mnemonic, blind: true, keys: map[string]*ecdsa.PrivateKey{}, app: "Ethereum"}
	for _, o := range opts {
		o(d)
	}
	return d, nil
}

// RejectNext makes the user refuse the next request that needs a confirmation.
func (d *Device) RejectNext() {
	d.mu.Lock()
	d.rejectNext = true
	d.mu.Unlock()
}

// RejectNth makes the user approve n-1 more requests and refuse the n-th (n >= 1), such as
// the third chunk of a push.
func (d *Device) RejectNth(n int) {
	d.mu.Lock()
	d.rejectIn = n
	d.mu.Unlock()
}

// RejectFrom makes the user approve n-1 more requests and refuse the n-th and every one
// after it (n >= 1): a user who stops confirming half way through a push.
func (d *Device) RejectFrom(n int) {
	d.mu.Lock()
	d.rejectFrom = n
	d.mu.Unlock()
}

// SetLocked locks or unlocks the device.
func (d *Device) SetLocked(locked bool) {
	d.mu.Lock()
	d.locked = locked
	d.mu.Unlock()
}

// OpenApp switches the running app ("Ethereum" is the one this stand-in emulates; any other
// name answers every Ethereum APDU as the real device does when another app is open).
func (d *Device) OpenApp(name string) {
	d.mu.Lock()
	d.app, d.pending = name, nil
	d.mu.Unlock()
}

// Confirmations is the log of what the user was shown, oldest first.
func (d *Device) Confirmations() []Confirmation {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Confirmation(nil), d.log...)
}

// Stats reports the counters.
func (d *Device) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

// Address is the address at path, as the device would report it.
func (d *Device) Address(path keys.Path) (common.Address, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k, err := d.key(path)
	if err != nil {
		return common.Address{}, err
	}
	return crypto.PubkeyToAddress(k.PublicKey), nil
}

func (d *Device) key(path []uint32) (*ecdsa.PrivateKey, error) {
	name := keys.Path(path).String()
	if k, ok := d.keys[name]; ok {
		return k, nil
	}
	acct, err := keys.FromMnemonic(d.mnemonic, path)
	if err != nil {
		return nil, err
	}
	d.keys[name] = acct.PrivateKey()
	return d.keys[name], nil
}

// Exchange answers one APDU as the device would: the reply data and the status word.
func (d *Device) Exchange(apdu []byte) ([]byte, uint16) {
	d.mu.Lock()
	d.inFlight++
	d.stats.MaxConcurrent = max(d.stats.MaxConcurrent, d.inFlight)
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.inFlight--
		d.mu.Unlock()
	}()

	d.mu.Lock()
	defer d.mu.Unlock()
	d.stats.APDUs++
	if len(apdu) < 5 || int(apdu[4]) != len(apdu)-5 {
		return nil, app.SWWrongLength
	}
	if d.locked {
		return nil, app.SWLocked
	}
	if d.app != "Ethereum" || apdu[0] != app.CLA {
		return nil, app.SWClaNotSupported
	}
	ins, p1, p2, data := apdu[1], apdu[2], apdu[3], apdu[5:]
	switch ins {
	case app.INSGetConfig:
		return []byte{0x01, Version[0], Version[1], Version[2]}, app.SWOK
	case app.INSGetAddress:
		return d.getAddress(p1, p2, data)
	case app.INSSignTx, app.INSSignPersonal:
		return d.signChunk(ins, p1, p2, data)
	}
	return nil, app.SWInsNotSupported
}

func parsePath(data []byte) ([]uint32, []byte, bool) {
	if len(data) < 1 || data[0] == 0 || int(data[0]) > app.MaxPathLen || len(data) < 1+4*int(data[0]) {
		return nil, nil, false
	}
	path := make([]uint32, data[0])
	for i := range path {
		path[i] = binary.BigEndian.Uint32(data[1+4*i:])
	}
	return path, data[1+4*len(path):], true
}

func (d *Device) getAddress(p1, p2 byte, data []byte) ([]byte, uint16) {
	if p1 > 1 || p2 != 0 {
		return nil, app.SWWrongP1P2
	}
	path, rest, ok := parsePath(data)
	if !ok || len(rest) != 0 {
		return nil, app.SWBadData
	}
	k, err := d.key(path)
	if err != nil {
		return nil, app.SWBadData
	}
	addr := crypto.PubkeyToAddress(k.PublicKey)
	if p1 == 1 && !d.confirm("address", path, []string{"Verify address", addr.Hex()}) {
		return nil, app.SWRejected
	}
	pub := crypto.FromECDSAPub(&k.PublicKey)
	out := append([]byte{byte(len(pub))}, pub...)
	out = append(out, 40)
	return append(out, []byte(hex.EncodeToString(addr.Bytes()))...), app.SWOK
}

// signChunk takes one chunk of SIGN TRANSACTION or SIGN PERSONAL MESSAGE.
func (d *Device) signChunk(ins, p1, p2 byte, data []byte) ([]byte, uint16) {
	if p2 != 0 || (p1 != app.P1First && p1 != app.P1More) {
		return nil, app.SWWrongP1P2
	}
	if p1 == app.P1First {
		if d.pending != nil {
			d.stats.Interleaved++ // the app drops the unfinished request
		}
		path, rest, ok := parsePath(data)
		if !ok {
			d.pending = nil
			return nil, app.SWBadData
		}
		req := &request{ins: ins, path: path}
		if ins == app.INSSignPersonal {
			if len(rest) < 4 {
				d.pending = nil
				return nil, app.SWBadData
			}
			req.want, rest = int(binary.BigEndian.Uint32(rest)), rest[4:]
		}
		d.pending = req
		data = rest
	} else if d.pending == nil || d.pending.ins != ins {
		d.stats.Interleaved++
		d.pending = nil
		return nil, app.SWBadData
	}
	req := d.pending
	req.data = append(req.data, data...)
	if ins == app.INSSignPersonal {
		switch {
		case len(req.data) < req.want:
			return nil, app.SWOK
		case len(req.data) > req.want:
			d.pending = nil
			return nil, app.SWBadData
		}
		d.pending = nil
		return d.signMessage(req)
	}
	total, ok := typedTxLength(req.data)
	switch {
	case !ok:
		d.pending = nil
		return nil, app.SWBadData
	case len(req.data) < total:
		return nil, app.SWOK
	case len(req.data) > total:
		d.pending = nil
		return nil, app.SWBadData
	}
	d.pending = nil
	return d.signTx(req)
}

// typedTxLength is the full length of a typed transaction from its first bytes (type byte and
// RLP list header), as the app learns it while streaming; ok is false for what it cannot parse.
func typedTxLength(b []byte) (int, bool) {
	if len(b) == 0 {
		return 1, true
	}
	if b[0] != types.DynamicFeeTxType {
		return 0, false // this stand-in emulates EIP-1559 signing only
	}
	if len(b) < 2 {
		return 2, true
	}
	h := b[1]
	switch {
	case h >= 0xc0 && h <= 0xf7:
		return 2 + int(h-0xc0), true
	case h > 0xf7:
		n := int(h - 0xf7)
		if len(b) < 2+n {
			return 2 + n, true
		}
		size := 0
		for _, c := range b[2 : 2+n] {
			size = size<<8 | int(c)
		}
		return 2 + n + size, true
	}
	return 0, false
}

// eip1559 is the signed part of a type-2 transaction, in RLP order.
type eip1559 struct {
	ChainID    *big.Int
	Nonce      uint64
	GasTipCap  *big.Int
	GasFeeCap  *big.Int
	Gas        uint64
	To         []byte
	Value      *big.Int
	Data       []byte
	AccessList types.AccessList
}

func (d *Device) signTx(req *request) ([]byte, uint16) {
	var tx eip1559
	if err := rlp.DecodeBytes(req.data[1:], &tx); err != nil || (len(tx.To) != 0 && len(tx.To) != 20) {
		return nil, app.SWBadData
	}
	if len(tx.Data) > 0 && !d.blind {
		return nil, app.SWBadData
	}
	to := "contract creation"
	if len(tx.To) == 20 {
		to = common.BytesToAddress(tx.To).Hex()
	}
	screens := []string{"Review transaction",
		"Amount: " + tx.Value.String() + " wei", "Address: " + to,
		fmt.Sprintf("Network: chain id %s", tx.ChainID),
		fmt.Sprintf("Max fees: %s wei", new(big.Int).Mul(tx.GasFeeCap, new(big.Int).SetUint64(tx.Gas))),
		fmt.Sprintf("Nonce: %d", tx.Nonce)}
	if len(tx.Data) > 0 {
		screens = append(screens, fmt.Sprintf("Blind signing: %d bytes of contract data", len(tx.Data)))
	}
	if !d.confirm("transaction", req.path, screens) {
		return nil, app.SWRejected
	}
	return d.sign(req.path, crypto.Keccak256(req.data), 0)
}

func (d *Device) signMessage(req *request) ([]byte, uint16) {
	shown := "Message hash: " + hex.EncodeToString(crypto.Keccak256(req.data))
	if utf8.Valid(req.data) && !bytes.ContainsFunc(req.data, func(r rune) bool { return r < 0x20 && r != '\n' }) {
		shown = "Message: " + string(req.data) // the device pages through all of it
	}
	if !d.confirm("message", req.path, []string{"Sign message", shown}) {
		return nil, app.SWRejected
	}
	return d.sign(req.path, accounts.TextHash(req.data), 27)
}

func (d *Device) sign(path []uint32, hash []byte, vBase byte) ([]byte, uint16) {
	k, err := d.key(path)
	if err != nil {
		return nil, app.SWBadData
	}
	sig, err := crypto.Sign(hash, k)
	if err != nil {
		return nil, app.SWBadData
	}
	d.stats.Signatures++
	return append([]byte{vBase + sig[64]}, sig[:64]...), app.SWOK
}

// confirm shows the screens and returns the user's answer; the caller holds d.mu (the
// device does nothing else while a person looks at it).
func (d *Device) confirm(kind string, path []uint32, screens []string) bool {
	if d.delay > 0 {
		time.Sleep(d.delay)
	}
	ok := !d.rejectNext
	d.rejectNext = false
	if d.rejectIn > 0 {
		d.rejectIn--
		ok = ok && d.rejectIn != 0
	}
	if d.rejectFrom > 1 {
		d.rejectFrom--
	} else if d.rejectFrom == 1 {
		ok = false
	}
	d.log = append(d.log, Confirmation{Kind: kind, Path: keys.Path(path).String(), Screens: screens, Approved: ok, At: time.Now()})
	return ok
}
