// Package whitelist prepares a rollup's VIP whitelisting (step 7 of the program): on mainnet,
// the forum post in the template's sections and the governance proposal whose
// MsgGovExecute calls the L1 vip module's register with its arguments BCS-encoded in the real
// signature's order and types; on testnet, the note of what to send to the maintainers. Every
// input is checked first, and each refusal names its field.
package whitelist

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/cosmos/cosmos-sdk/types/bech32"

	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

// L1Prefix is the bech32 prefix of Initia L1 accounts.
const L1Prefix = "init"

// VMType is vip::register's vm_type: the real module's numbering.
func VMType(vm vip.VM) (uint64, error) {
	spec, err := vip.Describe(vm)
	return spec.VMType, err
}

// Request is what a whitelisting needs. Text fields are markdown.
type Request struct {
	// Network is "mainnet" (forum post and proposal) or "testnet" (a note for the maintainers).
	Network string
	// Name is the rollup's pretty name; ChainID its chain id.
	Name    string
	ChainID string
	VM      vip.VM
	// Operator receives the operator commission on the L1 (init1... or 0x-hex).
	Operator string
	// BridgeID and BridgeAddress are the rollup's OPinit bridge on the L1.
	BridgeID      uint64
	BridgeAddress string
	// ScoreContract is the scoring contract on the rollup: 0x EVM address, Move module
	// address, or Wasm contract bech32 address.
	ScoreContract string
	// The operator commission: max rate, max change per stage, and the starting rate.
	MaxRate, MaxChangeRate, Rate string
	// VIPAddress is the L1 vip module's address (0x-hex).
	VIPAddress string
	// Sender signs register inside the proposal; it must be the vip module's address or 0x1
	// (the module's chain permission check). Default: VIPAddress.
	Sender string

	// The forum post (mainnet), in the forum template's sections: the proposer (project or
	// team name) and its contacts, TL;DR, background (about the project), rationale and
	// impact, and the scoring policy with its formulas.
	Proposer, Email, ProjectURL, XAccount        string
	TLDR, Background, ProtocolType, Docs, Audits string
	Rationale, ScoringPolicy                     string
	// The proposal (mainnet): deposit (e.g. 100000000uinit), title and summary (defaults
	// are derived), metadata (e.g. the forum post's URL).
	Deposit, Title, Summary, Metadata string
}

// Checked is a validated request with its parsed values.
type Checked struct {
	Request
	operator, bridge, vip, sender [32]byte
	maxRate, maxChangeRate, rate  Rate
	vmType                        uint64
}

// FieldError is one refused input.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// Check validates every field and returns all refusals at once (errors.Join of *FieldError).
func (r Request) Check() (*Checked, error) {
	c := &Checked{Request: r}
	var errs []error
	fail := func(field string, err error) { errs = append(errs, &FieldError{field, err}) }

	mainnet := false
	switch strings.ToLower(strings.TrimSpace(r.Network)) {
	case "mainnet":
		mainnet = true
	case "testnet":
	default:
		fail("network", fmt.Errorf("%q: want mainnet or testnet", r.Network))
	}
	if strings.TrimSpace(r.Name) == "" {
		fail("name", errors.New("empty: the rollup's pretty name"))
	}
	if strings.TrimSpace(r.ChainID) == "" {
		fail("chain-id", errors.New("empty"))
	}
	var err error
	if c.vmType, err = VMType(r.VM); err != nil {
		fail("vm", err)
	}
	if c.operator, err = ParseL1Address(r.Operator); err != nil {
		fail("operator", err)
	}
	if r.BridgeID == 0 {
		fail("bridge-id", errors.New("0: OPinit bridge ids start at 1"))
	}
	if c.bridge, err = ParseL1Address(r.BridgeAddress); err != nil {
		fail("bridge-address", err)
	}
	if err := checkScoreContract(r.VM, r.ScoreContract); err != nil {
		fail("score-contract", err)
	}
	rates := []struct {
		field string
		in    string
		out   *Rate
	}{{"max-rate", r.MaxRate, &c.maxRate}, {"max-change-rate", r.MaxChangeRate, &c.maxChangeRate}, {"rate", r.Rate, &c.rate}}
	ratesOK := true
	for _, x := range rates {
		if *x.out, err = ParseRate(x.in); err != nil {
			fail(x.field, err)
			ratesOK = false
		}
	}
	if ratesOK && c.rate.Cmp(c.maxRate) > 0 {
		fail("rate", fmt.Errorf("%s is above the max rate %s", c.rate, c.maxRate))
	}
	if c.vip, err = parseHexAddress(r.VIPAddress); err != nil {
		fail("vip-address", err)
	}
	if strings.TrimSpace(r.Sender) == "" {
		c.sender = c.vip
	} else if c.sender, err = ParseL1Address(r.Sender); err != nil {
		fail("sender", err)
	} else if c.sender != c.vip && c.sender != chainAddress {
		fail("sender", fmt.Errorf("%s is neither the vip module's address nor 0x1: register would abort (permission denied)", r.Sender))
	}
	if mainnet {
		for _, f := range []struct{ field, v string }{{"proposer", r.Proposer}, {"tldr", r.TLDR}, {"scoring-policy", r.ScoringPolicy}, {"deposit", r.Deposit}} {
			if strings.TrimSpace(f.v) == "" {
				fail(f.field, errors.New("empty: the mainnet forum post and proposal need it"))
			}
		}
		if strings.TrimSpace(r.Deposit) != "" {
			if err := checkCoins(r.Deposit); err != nil {
				fail("deposit", err)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// Mainnet reports whether the request is for mainnet.
func (c *Checked) Mainnet() bool { return strings.EqualFold(strings.TrimSpace(c.Network), "mainnet") }

// chainAddress is 0x1, the other signer vip's chain permission check accepts.
var chainAddress = [32]byte{31: 1}

// ParseL1Address reads an L1 account address: bech32 with the init prefix (20 or 32 bytes)
// or 0x-hex (up to 32 bytes), as a Move address (left-padded to 32 bytes). Zero is refused.
func ParseL1Address(s string) ([32]byte, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return [32]byte{}, errors.New("empty")
	}
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		return parseHexAddress(t)
	}
	hrp, bz, err := bech32.DecodeAndConvert(t)
	if err != nil {
		return [32]byte{}, fmt.Errorf("%q is neither 0x-hex nor bech32: %v", s, err)
	}
	if hrp != L1Prefix {
		return [32]byte{}, fmt.Errorf("%q has prefix %q, want %q (an Initia L1 account)", s, hrp, L1Prefix)
	}
	if len(bz) != 20 && len(bz) != 32 {
		return [32]byte{}, fmt.Errorf("%q is %d bytes, want 20 or 32", s, len(bz))
	}
	return pad(bz)
}

func parseHexAddress(s string) ([32]byte, error) {
	t := strings.TrimSpace(s)
	h, ok := strings.CutPrefix(strings.ToLower(t), "0x")
	if !ok || h == "" || len(h) > 64 {
		return [32]byte{}, fmt.Errorf("%q: want 0x and 1 to 64 hex digits", s)
	}
	if len(h)%2 == 1 {
		h = "0" + h
	}
	bz, err := hex.DecodeString(h)
	if err != nil {
		return [32]byte{}, fmt.Errorf("%q: want 0x and 1 to 64 hex digits", s)
	}
	return pad(bz)
}

func pad(bz []byte) ([32]byte, error) {
	var a [32]byte
	copy(a[32-len(bz):], bz)
	if a == ([32]byte{}) {
		return a, errors.New("the zero address")
	}
	return a, nil
}

// checkScoreContract checks the contract address in the form its VM writes it.
func checkScoreContract(vm vip.VM, s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty: the scoring contract's address on the rollup")
	}
	spec, err := vip.Describe(vm)
	if err != nil {
		return nil // the vm field's own error says so
	}
	return spec.CheckContract(s)
}
