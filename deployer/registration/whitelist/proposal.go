package whitelist

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	govv1 "github.com/cosmos/cosmos-sdk/x/gov/types/v1"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
)

// The call a whitelisting proposal makes.
const (
	ModuleName   = "vip"
	FunctionName = "register"
)

// GovAuthority is the L1 gov module's account (the authority of x/move's gov messages).
func GovAuthority() string {
	s, err := bech32.ConvertAndEncode(L1Prefix, authtypes.NewModuleAddress("gov"))
	if err != nil {
		panic(err) // a fixed, valid input
	}
	return s
}

func checkCoins(s string) error {
	coins, err := sdk.ParseCoinsNormalized(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q: %v (want e.g. 100000000uinit)", s, err)
	}
	if coins.Empty() {
		return fmt.Errorf("%q: no coins", s)
	}
	return nil
}

// RegisterArgs are vip::register's arguments after the signer, BCS-encoded in the
// signature's order: operator address, bridge_id u64, bridge_address address,
// vip_l2_score_contract String, operator_commission_max_rate, _max_change_rate and _rate
// BigDecimal, vm_type u64.
func (c *Checked) RegisterArgs() [][]byte {
	address := func(a [32]byte) []byte {
		w := movebcs.NewWriter(32)
		w.Address(movebcs.Address(a))
		return w.Out()
	}
	return [][]byte{
		address(c.operator),
		movebcs.ArgU64(c.BridgeID),
		address(c.bridge),
		movebcs.ArgString(strings.TrimSpace(c.ScoreContract)),
		c.maxRate.BCS(),
		c.maxChangeRate.BCS(),
		c.rate.BCS(),
		movebcs.ArgU64(c.vmType),
	}
}

// MsgGovExecute is the proposal's message: the gov module runs vip::register with Sender as
// the signer.
func (c *Checked) MsgGovExecute() *initiamove.MsgGovExecute {
	sender, err := bech32.ConvertAndEncode(L1Prefix, c.sender[:])
	if err != nil {
		panic(err) // 32 bytes always encode
	}
	return &initiamove.MsgGovExecute{
		Authority:     GovAuthority(),
		Sender:        sender,
		ModuleAddress: "0x" + hex.EncodeToString(c.vip[:]),
		ModuleName:    ModuleName,
		FunctionName:  FunctionName,
		TypeArgs:      []string{},
		Args:          c.RegisterArgs(),
	}
}

// Codec is a JSON codec that knows MsgGovExecute and the gov messages.
func Codec() codec.Codec {
	reg := codectypes.NewInterfaceRegistry()
	initiamove.RegisterInterfaces(reg)
	govv1.RegisterInterfaces(reg)
	return codec.NewProtoCodec(reg)
}

func (c *Checked) title() string {
	if t := strings.TrimSpace(c.Title); t != "" {
		return t
	}
	return fmt.Sprintf("Whitelist %s on VIP", strings.TrimSpace(c.Name))
}

func (c *Checked) summary() string {
	if s := strings.TrimSpace(c.Summary); s != "" {
		return s
	}
	s := fmt.Sprintf("Register %s (chain %s, bridge %d, %s) in the VIP program: operator %s, scoring contract %s, operator commission %s (max %s, max change %s per stage).",
		strings.TrimSpace(c.Name), strings.TrimSpace(c.ChainID), c.BridgeID, vmLabel(c.VM), strings.TrimSpace(c.Operator),
		strings.TrimSpace(c.ScoreContract), c.rate.Percent(), c.maxRate.Percent(), c.maxChangeRate.Percent())
	if m := strings.TrimSpace(c.Metadata); m != "" {
		s += " Discussion: " + m
	}
	return s
}

// ProposalFile is the proposal as `initiad tx gov submit-proposal <file>` reads it:
// messages (each with its @type), metadata, deposit, title, summary, expedited.
func (c *Checked) ProposalFile() ([]byte, error) {
	msg, err := Codec().MarshalInterfaceJSON(c.MsgGovExecute())
	if err != nil {
		return nil, fmt.Errorf("encode MsgGovExecute: %w", err)
	}
	file := struct {
		Messages  []json.RawMessage `json:"messages"`
		Metadata  string            `json:"metadata"`
		Deposit   string            `json:"deposit"`
		Title     string            `json:"title"`
		Summary   string            `json:"summary"`
		Expedited bool              `json:"expedited"`
	}{[]json.RawMessage{msg}, strings.TrimSpace(c.Metadata), strings.TrimSpace(c.Deposit), c.title(), c.summary(), false}
	return indentJSON(file)
}

// SubmitProposal is the MsgSubmitProposal holding the MsgGovExecute, as proposer would sign it.
func (c *Checked) SubmitProposal(proposer string) (*govv1.MsgSubmitProposal, error) {
	if _, err := ParseL1Address(proposer); err != nil {
		return nil, &FieldError{"proposer-address", err}
	}
	deposit, err := sdk.ParseCoinsNormalized(strings.TrimSpace(c.Deposit))
	if err != nil {
		return nil, &FieldError{"deposit", err}
	}
	return govv1.NewMsgSubmitProposal([]sdk.Msg{c.MsgGovExecute()}, deposit, strings.TrimSpace(proposer),
		strings.TrimSpace(c.Metadata), c.title(), c.summary(), false)
}

// SubmitProposalJSON is SubmitProposal in the chain's JSON (with its @type).
func (c *Checked) SubmitProposalJSON(proposer string) ([]byte, error) {
	m, err := c.SubmitProposal(proposer)
	if err != nil {
		return nil, err
	}
	b, err := Codec().MarshalInterfaceJSON(m)
	if err != nil {
		return nil, fmt.Errorf("encode MsgSubmitProposal: %w", err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func indentJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
